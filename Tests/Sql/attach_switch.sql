-- After tracestore_detach(), attaching another session into the same
-- schema switches every table to it, and drops the table of the store it
-- does not have; detaching and attaching the first one again brings that
-- table back.  (Without the detach the attach is refused:
-- error_attach_other_session.)
.output /dev/null
SELECT tracestore_attach('@SESSION@');
SELECT tracestore_detach();
.output
SELECT tracestore_attach('@WORK@/s2');
SELECT name, instr(sql, '@WORK@/s2') > 0 FROM temp.sqlite_master
WHERE type = 'table' ORDER BY name;
.output /dev/null
SELECT tracestore_detach();
.output
SELECT tracestore_attach('@SESSION@');
SELECT (SELECT count(*) FROM ftrace_event) > 0;
SELECT count(*) FROM temp.sqlite_master WHERE instr(sql, '@WORK@/s2') > 0;
