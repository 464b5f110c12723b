-- A table that a running statement reads cannot be replaced: the call
-- fails, and the schema is left as it was (still the first session).
.bail off
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT tracestore_attach('@WORK@/s2') FROM page_fault LIMIT 1;
SELECT count(*) FROM temp.sqlite_master WHERE instr(sql, '@WORK@/s2') > 0;
SELECT name FROM temp.sqlite_master WHERE type = 'table' ORDER BY name;
SELECT count(*) FROM page_fault;
