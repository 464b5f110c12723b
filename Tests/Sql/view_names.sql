-- The views tracestore_attach() makes for a session from ftrace text (no
-- span or counter store: no span_self_time), in temp, with their kind.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT type, name FROM temp.sqlite_master WHERE type = 'view' ORDER BY name;
