-- Page-fault traffic for the ftrace capture: ftrace text does not say hard
-- or soft (hard NULL: every fault unclassified), nor which mapping (code
-- NULL: code/data from the error code, which the hard/soft cells need).
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT pid, comm, module, faults, hard, soft, unclassified, hard_code,
       hard_data, soft_code, soft_data
FROM page_fault_traffic ORDER BY comm;
SELECT count(*) FROM page_fault WHERE hard IS NOT NULL OR fault_kind IS NOT NULL
  OR module_offset IS NOT NULL OR ip_module_offset IS NOT NULL OR code IS NOT NULL;
