-- A session written before page_fault had hard/code attaches: its faults
-- read, page_fault_summary is made, page_fault_traffic (which reads hard
-- and code) is not.
.output /dev/null
SELECT tracestore_attach('@WORK@/old');
.output
SELECT count(*), sum(address), sum(error_code) FROM page_fault;
SELECT faults FROM page_fault_summary;
SELECT name FROM temp.sqlite_master WHERE type = 'view' ORDER BY name;
