-- The args view: the key=value fields of every ftrace_event row, with the
-- row's id as arg_set_id.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT arg_set_id, key, value_type, display_value FROM args
ORDER BY arg_set_id, key, display_value;
