-- A second schema holds a second copy of the tables, as for comparing two
-- sessions side by side; temp is untouched.
ATTACH ':memory:' AS other;
SELECT tracestore_attach('@SESSION@', 'other') > 0;
SELECT count(*) FROM temp.sqlite_master;
SELECT name FROM other.sqlite_master WHERE type = 'table' ORDER BY name;
SELECT count(*) FROM other.sched_switch;
