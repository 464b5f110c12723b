-- Push-down of ts constraints (binary search when the store is sorted):
-- every query over the virtual table must give the same rows as the same
-- query over t, a plain SQLite copy of it.  Duplicate timestamps, REAL and
-- TEXT values, empty and reversed ranges, and bounds past either end.
-- Each line prints the constraint and 1 when the results are equal.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
CREATE TABLE t AS SELECT * FROM page_fault;
SELECT 'ts = (SELECT ts FROM t WHERE id = 50)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts = (SELECT ts FROM t WHERE id = 50) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts = (SELECT ts FROM t WHERE id = 50) ORDER BY id));
SELECT 'ts = (SELECT ts FROM t WHERE id = 50) + 1',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts = (SELECT ts FROM t WHERE id = 50) + 1 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts = (SELECT ts FROM t WHERE id = 50) + 1 ORDER BY id));
SELECT 'ts = (SELECT ts FROM t WHERE id = 50) * 1.0',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts = (SELECT ts FROM t WHERE id = 50) * 1.0 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts = (SELECT ts FROM t WHERE id = 50) * 1.0 ORDER BY id));
SELECT 'ts = (SELECT ts FROM t WHERE id = 50) + 0.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts = (SELECT ts FROM t WHERE id = 50) + 0.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts = (SELECT ts FROM t WHERE id = 50) + 0.5 ORDER BY id));
SELECT 'ts = CAST((SELECT ts FROM t WHERE id = 50) AS TEXT)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts = CAST((SELECT ts FROM t WHERE id = 50) AS TEXT) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts = CAST((SELECT ts FROM t WHERE id = 50) AS TEXT) ORDER BY id));
SELECT 'ts = (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts = (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts = (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1) ORDER BY id));
SELECT 'ts >= (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts >= (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts >= (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1) ORDER BY id));
SELECT 'ts > (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts > (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts > (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1) ORDER BY id));
SELECT 'ts <= (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts <= (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts <= (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1) ORDER BY id));
SELECT 'ts < (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts < (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts < (SELECT ts FROM t GROUP BY ts HAVING count(*) > 1 ORDER BY ts LIMIT 1) ORDER BY id));
SELECT 'ts BETWEEN (SELECT ts FROM t WHERE id = 100) AND (SELECT ts FROM t WHERE id = 200)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts BETWEEN (SELECT ts FROM t WHERE id = 100) AND (SELECT ts FROM t WHERE id = 200) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts BETWEEN (SELECT ts FROM t WHERE id = 100) AND (SELECT ts FROM t WHERE id = 200) ORDER BY id));
SELECT 'ts BETWEEN (SELECT ts FROM t WHERE id = 200) AND (SELECT ts FROM t WHERE id = 100)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts BETWEEN (SELECT ts FROM t WHERE id = 200) AND (SELECT ts FROM t WHERE id = 100) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts BETWEEN (SELECT ts FROM t WHERE id = 200) AND (SELECT ts FROM t WHERE id = 100) ORDER BY id));
SELECT 'ts > (SELECT ts FROM t WHERE id = 300)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts > (SELECT ts FROM t WHERE id = 300) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts > (SELECT ts FROM t WHERE id = 300) ORDER BY id));
SELECT 'ts >= (SELECT ts FROM t WHERE id = 300)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts >= (SELECT ts FROM t WHERE id = 300) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts >= (SELECT ts FROM t WHERE id = 300) ORDER BY id));
SELECT 'ts < (SELECT ts FROM t WHERE id = 10)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts < (SELECT ts FROM t WHERE id = 10) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts < (SELECT ts FROM t WHERE id = 10) ORDER BY id));
SELECT 'ts <= (SELECT ts FROM t WHERE id = 10)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts <= (SELECT ts FROM t WHERE id = 10) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts <= (SELECT ts FROM t WHERE id = 10) ORDER BY id));
SELECT 'ts > (SELECT ts FROM t WHERE id = 50) + 0.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts > (SELECT ts FROM t WHERE id = 50) + 0.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts > (SELECT ts FROM t WHERE id = 50) + 0.5 ORDER BY id));
SELECT 'ts < (SELECT ts FROM t WHERE id = 50) - 0.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts < (SELECT ts FROM t WHERE id = 50) - 0.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts < (SELECT ts FROM t WHERE id = 50) - 0.5 ORDER BY id));
SELECT 'ts >= (SELECT ts FROM t WHERE id = 50) - 0.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts >= (SELECT ts FROM t WHERE id = 50) - 0.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts >= (SELECT ts FROM t WHERE id = 50) - 0.5 ORDER BY id));
SELECT 'ts <= (SELECT ts FROM t WHERE id = 50) + 0.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts <= (SELECT ts FROM t WHERE id = 50) + 0.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts <= (SELECT ts FROM t WHERE id = 50) + 0.5 ORDER BY id));
SELECT 'ts <= (SELECT min(ts) FROM t)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts <= (SELECT min(ts) FROM t) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts <= (SELECT min(ts) FROM t) ORDER BY id));
SELECT 'ts < (SELECT min(ts) FROM t)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts < (SELECT min(ts) FROM t) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts < (SELECT min(ts) FROM t) ORDER BY id));
SELECT 'ts > (SELECT max(ts) FROM t)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts > (SELECT max(ts) FROM t) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts > (SELECT max(ts) FROM t) ORDER BY id));
SELECT 'ts >= (SELECT max(ts) FROM t)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts >= (SELECT max(ts) FROM t) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts >= (SELECT max(ts) FROM t) ORDER BY id));
SELECT 'ts > 0',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts > 0 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts > 0 ORDER BY id));
SELECT 'ts < 0',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts < 0 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts < 0 ORDER BY id));
SELECT 'ts > 1e30',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts > 1e30 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts > 1e30 ORDER BY id));
SELECT 'ts < 1e30',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts < 1e30 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts < 1e30 ORDER BY id));
SELECT 'ts > -1e30',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts > -1e30 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts > -1e30 ORDER BY id));
SELECT 'ts < -1e30',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts < -1e30 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts < -1e30 ORDER BY id));
SELECT 'ts > 9223372036854775807',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts > 9223372036854775807 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts > 9223372036854775807 ORDER BY id));
SELECT 'ts < -9223372036854775808',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts < -9223372036854775808 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts < -9223372036854775808 ORDER BY id));
SELECT 'ts > ''abc''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts > 'abc' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts > 'abc' ORDER BY id));
SELECT 'ts < ''abc''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts < 'abc' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts < 'abc' ORDER BY id));
SELECT 'ts = NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts = NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts = NULL ORDER BY id));
SELECT 'ts > NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts > NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts > NULL ORDER BY id));
SELECT 'ts BETWEEN 10 AND 5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts BETWEEN 10 AND 5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts BETWEEN 10 AND 5 ORDER BY id));
SELECT 'ts > (SELECT ts FROM t WHERE id = 100) AND rowid < 150',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts > (SELECT ts FROM t WHERE id = 100) AND rowid < 150 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts > (SELECT ts FROM t WHERE id = 100) AND id < 150 ORDER BY id));
SELECT 'ts > (SELECT ts FROM t WHERE id = 100) AND id >= 120 AND id < 400',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts > (SELECT ts FROM t WHERE id = 100) AND id >= 120 AND id < 400 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts > (SELECT ts FROM t WHERE id = 100) AND id >= 120 AND id < 400 ORDER BY id));
SELECT 'ts >= (SELECT ts FROM t WHERE id = 100) AND ts <= (SELECT ts FROM t WHERE id = 100)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts >= (SELECT ts FROM t WHERE id = 100) AND ts <= (SELECT ts FROM t WHERE id = 100) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts >= (SELECT ts FROM t WHERE id = 100) AND ts <= (SELECT ts FROM t WHERE id = 100) ORDER BY id));
SELECT 'ts IN ((SELECT ts FROM t WHERE id = 5), (SELECT ts FROM t WHERE id = 9), 7)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts IN ((SELECT ts FROM t WHERE id = 5), (SELECT ts FROM t WHERE id = 9), 7) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts IN ((SELECT ts FROM t WHERE id = 5), (SELECT ts FROM t WHERE id = 9), 7) ORDER BY id));
SELECT 'ts = (SELECT ts FROM t WHERE id = 5) OR ts = (SELECT ts FROM t WHERE id = 400)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE ts = (SELECT ts FROM t WHERE id = 5) OR ts = (SELECT ts FROM t WHERE id = 400) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE ts = (SELECT ts FROM t WHERE id = 5) OR ts = (SELECT ts FROM t WHERE id = 400) ORDER BY id));
SELECT 'sorted', (SELECT sorted FROM store_info WHERE name = 'page_fault');
