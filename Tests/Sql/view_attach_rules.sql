-- The views follow the session: attaching the same one again keeps them
-- (same text), another one with other stores (after tracestore_detach())
-- has its own views, and
-- attaching into another schema makes tables but no views (SQLite does
-- not let a view stored outside temp read the store tables).
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
CREATE TEMP TABLE before AS SELECT name, sql FROM temp.sqlite_master WHERE type = 'view';
SELECT tracestore_attach('@SESSION@');
SELECT count(*) FROM temp.sqlite_master AS m JOIN before AS b USING (name, sql)
WHERE m.type = 'view';
DROP TABLE before;
SELECT tracestore_detach() > 0;
SELECT tracestore_attach('@WORK@/u.trace');
SELECT name FROM temp.sqlite_master WHERE type = 'view' ORDER BY name;
SELECT name, calls FROM span_self_time WHERE name = 'fib';
SELECT tracestore_detach() > 0;
SELECT tracestore_attach('@SESSION@');
SELECT name FROM temp.sqlite_master WHERE type = 'view' ORDER BY name;
ATTACH ':memory:' AS b;
SELECT tracestore_attach('@WORK@/u.trace', 'b');
SELECT count(*) FROM b.sqlite_master WHERE type = 'view';
SELECT count(*) FROM b.span;
SELECT count(*) > 0 FROM event;
