-- Columns come from the store headers: `id` (the rowid) first, then the
-- schema's columns in order; string ids are TEXT.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT 'page_fault', name, type FROM pragma_table_info('page_fault', 'temp');
SELECT 'sched_switch', name, type FROM pragma_table_info('sched_switch', 'temp');
SELECT 'ftrace_event', name, type FROM pragma_table_info('ftrace_event', 'temp');
SELECT 'store_info', name, type FROM pragma_table_info('store_info', 'temp');
