-- Nothing read is dropped: every event line is a row of page_fault,
-- sched_switch or ftrace_event (kvm_exit/kvm_entry pairs aside).
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT (SELECT count(*) FROM page_fault) + (SELECT count(*) FROM sched_switch)
       + (SELECT count(*) FROM ftrace_event);
