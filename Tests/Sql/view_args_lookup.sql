-- WHERE arg_set_id = N gives the fields of that one event, and
-- tracestore_arg() reads one field: the exec events' filenames and pids.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT a.key, a.display_value FROM ftrace_event AS e, args AS a
WHERE e.name = 'sched_process_exec' AND a.arg_set_id = e.id
ORDER BY e.id, a.key;
SELECT tracestore_arg(args, 'filename'), tracestore_arg(args, 'pid') + 0
FROM ftrace_event WHERE name = 'sched_process_exec' ORDER BY id;
