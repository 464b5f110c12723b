-- Attaching another session into the same schema switches every table to
-- it, and drops the table of the store it does not have; attaching the
-- first one again brings that table back.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT tracestore_attach('@WORK@/s2');
SELECT name, instr(sql, '@WORK@/s2') > 0 FROM temp.sqlite_master
WHERE type = 'table' ORDER BY name;
SELECT tracestore_attach('@SESSION@');
SELECT (SELECT count(*) FROM ftrace_event) > 0;
SELECT count(*) FROM temp.sqlite_master WHERE instr(sql, '@WORK@/s2') > 0;
