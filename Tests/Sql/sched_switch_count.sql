.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT count(*) FROM sched_switch;
