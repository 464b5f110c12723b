-- Every event without a dedicated store, as one string per row:
-- ts|name|comm|tid|cpu|flags|args (args as printed).
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT ts || '|' || name || '|' || comm || '|' || tid || '|' || cpu || '|'
       || coalesce(flags, '') || '|' || args AS row
  FROM ftrace_event
 ORDER BY row;
