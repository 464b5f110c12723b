-- A schema that shows a session refuses another one (never a silent
-- switch under the user's queries), naming both and the ways out; the
-- same session by another path is the same session; into another schema
-- the second one goes; after tracestore_detach() it goes into temp too.
.bail off
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT tracestore_attach('@WORK@/s2');
SELECT count(*) FROM temp.sqlite_master WHERE instr(sql, '@WORK@/s2') > 0;
SELECT count(*) FROM page_fault;
SELECT tracestore_attach('@SESSION@/') > 0;
ATTACH ':memory:' AS b;
SELECT tracestore_attach('@WORK@/s2', 'b') > 0;
SELECT tracestore_detach() > 0;
SELECT count(*) FROM temp.sqlite_master;
SELECT tracestore_attach('@WORK@/s2') > 0;
SELECT count(*) FROM temp.sqlite_master WHERE instr(sql, '@WORK@/s2') > 0
  AND type = 'table';
