-- A table that a running statement reads cannot be dropped: the detach
-- fails naming it, and the schema is left as it was (still the session,
-- every table and view in place).
.bail off
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT tracestore_detach() FROM page_fault LIMIT 1;
SELECT count(*) FROM temp.sqlite_master WHERE instr(sql, '@WORK@/s2') > 0;
SELECT name FROM temp.sqlite_master WHERE type = 'table' ORDER BY name;
SELECT count(*) FROM page_fault;
