-- A view name taken by the user's own view or table: the attach fails
-- naming it, and changes nothing (the first time no table is left; the
-- second time, attaching the same session again, its tables and views
-- stay).
.bail off
CREATE TEMP VIEW event AS SELECT 1 AS x;
SELECT tracestore_attach('@SESSION@');
SELECT type, name FROM temp.sqlite_master ORDER BY name;
DROP VIEW event;
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
DROP VIEW syscall_counts;
CREATE TEMP TABLE syscall_counts(x);
SELECT tracestore_attach('@SESSION@');
SELECT type, name FROM temp.sqlite_master WHERE type != 'table' OR name = 'syscall_counts'
ORDER BY name;
SELECT count(*) > 0 FROM event;
