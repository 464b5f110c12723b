-- Counts, first and last ts, and the sorted trait of the event stores.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT name, records, first_ts, last_ts, sorted FROM store_info
 WHERE name IN ('ftrace_event', 'page_fault', 'sched_switch')
 ORDER BY name;
