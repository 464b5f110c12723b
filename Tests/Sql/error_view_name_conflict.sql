-- A view name taken by the user's own view or table: the attach fails
-- naming it, and changes nothing (the first time no table is left; the
-- second time the first session's tables and views stay).
.bail off
CREATE TEMP VIEW event AS SELECT 1 AS x;
SELECT tracestore_attach('@SESSION@');
SELECT type, name FROM temp.sqlite_master ORDER BY name;
DROP VIEW event;
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
CREATE TEMP TABLE span_self_time(x);
SELECT tracestore_attach('@WORK@/u.trace');
SELECT type, name FROM temp.sqlite_master WHERE type != 'table' OR name = 'span_self_time'
ORDER BY name;
SELECT count(*) FROM temp.sqlite_master WHERE instr(sql, 'u.trace') > 0;
SELECT count(*) > 0 FROM event;
