-- Push-down of rowid (and id) constraints: every query over the virtual
-- table must give the same rows as the same query over t, a plain SQLite
-- copy of it, whatever the constraint's operator, value type or range
-- (empty, reversed, past either end, NULL, REAL, TEXT, BLOB, int64 limits).
-- Each line prints the constraint and 1 when the results are equal.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
CREATE TABLE t AS SELECT * FROM page_fault;
SELECT 'rowid = 0',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = 0 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 0 ORDER BY id));
SELECT 'rowid = 5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = 5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 5 ORDER BY id));
SELECT 'rowid = (SELECT max(id) FROM t)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = (SELECT max(id) FROM t) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = (SELECT max(id) FROM t) ORDER BY id));
SELECT 'rowid = (SELECT count(*) FROM t)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = (SELECT count(*) FROM t) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = (SELECT count(*) FROM t) ORDER BY id));
SELECT 'rowid = -1',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = -1 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = -1 ORDER BY id));
SELECT 'rowid = 2.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = 2.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 2.5 ORDER BY id));
SELECT 'rowid = 5.0',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = 5.0 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 5.0 ORDER BY id));
SELECT 'rowid = ''5''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = '5' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = '5' ORDER BY id));
SELECT 'rowid = '' 5 ''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = ' 5 ' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = ' 5 ' ORDER BY id));
SELECT 'rowid = ''abc''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = 'abc' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 'abc' ORDER BY id));
SELECT 'rowid = NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = NULL ORDER BY id));
SELECT 'rowid = x''05''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = x'05' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = x'05' ORDER BY id));
SELECT 'rowid BETWEEN 3 AND 7',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid BETWEEN 3 AND 7 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id BETWEEN 3 AND 7 ORDER BY id));
SELECT 'rowid BETWEEN 7 AND 3',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid BETWEEN 7 AND 3 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id BETWEEN 7 AND 3 ORDER BY id));
SELECT 'rowid BETWEEN -10 AND 2',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid BETWEEN -10 AND 2 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id BETWEEN -10 AND 2 ORDER BY id));
SELECT 'rowid BETWEEN (SELECT max(id) FROM t) - 2 AND (SELECT max(id) FROM t) + 10',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid BETWEEN (SELECT max(id) FROM t) - 2 AND (SELECT max(id) FROM t) + 10 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id BETWEEN (SELECT max(id) FROM t) - 2 AND (SELECT max(id) FROM t) + 10 ORDER BY id));
SELECT 'rowid > 590',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > 590 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 590 ORDER BY id));
SELECT 'rowid >= 590',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid >= 590 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id >= 590 ORDER BY id));
SELECT 'rowid < 3',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid < 3 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 3 ORDER BY id));
SELECT 'rowid <= 3',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid <= 3 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id <= 3 ORDER BY id));
SELECT 'rowid > 2.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > 2.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 2.5 ORDER BY id));
SELECT 'rowid >= 2.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid >= 2.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id >= 2.5 ORDER BY id));
SELECT 'rowid < 2.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid < 2.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 2.5 ORDER BY id));
SELECT 'rowid <= 2.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid <= 2.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id <= 2.5 ORDER BY id));
SELECT 'rowid > 2.5 AND rowid < 7.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > 2.5 AND rowid < 7.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 2.5 AND id < 7.5 ORDER BY id));
SELECT 'rowid > -1',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > -1 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > -1 ORDER BY id));
SELECT 'rowid < 0',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid < 0 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 0 ORDER BY id));
SELECT 'rowid <= -1',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid <= -1 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id <= -1 ORDER BY id));
SELECT 'rowid >= 0',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid >= 0 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id >= 0 ORDER BY id));
SELECT 'rowid > 9223372036854775807',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > 9223372036854775807 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 9223372036854775807 ORDER BY id));
SELECT 'rowid >= 9223372036854775807',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid >= 9223372036854775807 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id >= 9223372036854775807 ORDER BY id));
SELECT 'rowid < -9223372036854775808',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid < -9223372036854775808 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < -9223372036854775808 ORDER BY id));
SELECT 'rowid <= -9223372036854775808',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid <= -9223372036854775808 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id <= -9223372036854775808 ORDER BY id));
SELECT 'rowid < 9223372036854775807',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid < 9223372036854775807 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 9223372036854775807 ORDER BY id));
SELECT 'rowid > -9223372036854775808',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > -9223372036854775808 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > -9223372036854775808 ORDER BY id));
SELECT 'rowid > 1e30',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > 1e30 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 1e30 ORDER BY id));
SELECT 'rowid < 1e30',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid < 1e30 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 1e30 ORDER BY id));
SELECT 'rowid > -1e30',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > -1e30 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > -1e30 ORDER BY id));
SELECT 'rowid < -1e30',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid < -1e30 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < -1e30 ORDER BY id));
SELECT 'rowid >= 1e-300 AND rowid <= 3',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid >= 1e-300 AND rowid <= 3 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id >= 1e-300 AND id <= 3 ORDER BY id));
SELECT 'rowid > ''abc''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > 'abc' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 'abc' ORDER BY id));
SELECT 'rowid < ''abc''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid < 'abc' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 'abc' ORDER BY id));
SELECT 'rowid > ''10''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > '10' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > '10' ORDER BY id));
SELECT 'rowid <= ''3''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid <= '3' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id <= '3' ORDER BY id));
SELECT 'rowid < x''00''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid < x'00' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < x'00' ORDER BY id));
SELECT 'rowid > x''00''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > x'00' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > x'00' ORDER BY id));
SELECT 'rowid > NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > NULL ORDER BY id));
SELECT 'rowid <= NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid <= NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id <= NULL ORDER BY id));
SELECT 'rowid > 3 AND rowid < 10 AND rowid >= 5 AND rowid <= 8',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > 3 AND rowid < 10 AND rowid >= 5 AND rowid <= 8 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 3 AND id < 10 AND id >= 5 AND id <= 8 ORDER BY id));
SELECT 'rowid > 10 AND rowid < 5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > 10 AND rowid < 5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 10 AND id < 5 ORDER BY id));
SELECT 'rowid = 5 AND rowid > 3',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = 5 AND rowid > 3 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 5 AND id > 3 ORDER BY id));
SELECT 'rowid = 5 AND rowid = 6',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = 5 AND rowid = 6 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 5 AND id = 6 ORDER BY id));
SELECT 'rowid = 5 AND rowid < 5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = 5 AND rowid < 5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 5 AND id < 5 ORDER BY id));
SELECT 'rowid > 3 AND rowid > 7 AND rowid < 20 AND rowid < 12',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > 3 AND rowid > 7 AND rowid < 20 AND rowid < 12 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 3 AND id > 7 AND id < 20 AND id < 12 ORDER BY id));
SELECT 'rowid IN (1, 3, 5, 100000)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid IN (1, 3, 5, 100000) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id IN (1, 3, 5, 100000) ORDER BY id));
SELECT 'rowid IN (SELECT id * 7 FROM t)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid IN (SELECT id * 7 FROM t) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id IN (SELECT id * 7 FROM t) ORDER BY id));
SELECT 'rowid IN (''2'', 4.0, NULL)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid IN ('2', 4.0, NULL) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id IN ('2', 4.0, NULL) ORDER BY id));
SELECT 'rowid = 3 OR rowid = 7',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = 3 OR rowid = 7 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 3 OR id = 7 ORDER BY id));
SELECT 'rowid = 3 OR rowid BETWEEN 10 AND 12',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = 3 OR rowid BETWEEN 10 AND 12 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 3 OR id BETWEEN 10 AND 12 ORDER BY id));
SELECT 'rowid NOT BETWEEN 2 AND 590',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid NOT BETWEEN 2 AND 590 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id NOT BETWEEN 2 AND 590 ORDER BY id));
SELECT 'rowid != 5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid != 5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id != 5 ORDER BY id));
SELECT 'rowid IS 5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid IS 5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id IS 5 ORDER BY id));
SELECT 'rowid IS NOT NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid IS NOT NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id IS NOT NULL ORDER BY id));
SELECT 'rowid IS NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid IS NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id IS NULL ORDER BY id));
SELECT 'rowid + 0 = 5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid + 0 = 5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id + 0 = 5 ORDER BY id));
SELECT 'rowid BETWEEN 3 AND 7 AND comm IS NOT NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid BETWEEN 3 AND 7 AND comm IS NOT NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id BETWEEN 3 AND 7 AND comm IS NOT NULL ORDER BY id));
SELECT 'id = 0',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = 0 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 0 ORDER BY id));
SELECT 'id = 5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = 5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 5 ORDER BY id));
SELECT 'id = (SELECT max(id) FROM t)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = (SELECT max(id) FROM t) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = (SELECT max(id) FROM t) ORDER BY id));
SELECT 'id = (SELECT count(*) FROM t)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = (SELECT count(*) FROM t) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = (SELECT count(*) FROM t) ORDER BY id));
SELECT 'id = -1',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = -1 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = -1 ORDER BY id));
SELECT 'id = 2.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = 2.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 2.5 ORDER BY id));
SELECT 'id = 5.0',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = 5.0 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 5.0 ORDER BY id));
SELECT 'id = ''5''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = '5' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = '5' ORDER BY id));
SELECT 'id = '' 5 ''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = ' 5 ' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = ' 5 ' ORDER BY id));
SELECT 'id = ''abc''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = 'abc' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 'abc' ORDER BY id));
SELECT 'id = NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = NULL ORDER BY id));
SELECT 'id = x''05''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = x'05' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = x'05' ORDER BY id));
SELECT 'id BETWEEN 3 AND 7',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id BETWEEN 3 AND 7 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id BETWEEN 3 AND 7 ORDER BY id));
SELECT 'id BETWEEN 7 AND 3',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id BETWEEN 7 AND 3 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id BETWEEN 7 AND 3 ORDER BY id));
SELECT 'id BETWEEN -10 AND 2',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id BETWEEN -10 AND 2 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id BETWEEN -10 AND 2 ORDER BY id));
SELECT 'id BETWEEN (SELECT max(id) FROM t) - 2 AND (SELECT max(id) FROM t) + 10',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id BETWEEN (SELECT max(id) FROM t) - 2 AND (SELECT max(id) FROM t) + 10 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id BETWEEN (SELECT max(id) FROM t) - 2 AND (SELECT max(id) FROM t) + 10 ORDER BY id));
SELECT 'id > 590',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > 590 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 590 ORDER BY id));
SELECT 'id >= 590',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id >= 590 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id >= 590 ORDER BY id));
SELECT 'id < 3',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id < 3 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 3 ORDER BY id));
SELECT 'id <= 3',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id <= 3 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id <= 3 ORDER BY id));
SELECT 'id > 2.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > 2.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 2.5 ORDER BY id));
SELECT 'id >= 2.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id >= 2.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id >= 2.5 ORDER BY id));
SELECT 'id < 2.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id < 2.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 2.5 ORDER BY id));
SELECT 'id <= 2.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id <= 2.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id <= 2.5 ORDER BY id));
SELECT 'id > 2.5 AND id < 7.5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > 2.5 AND id < 7.5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 2.5 AND id < 7.5 ORDER BY id));
SELECT 'id > -1',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > -1 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > -1 ORDER BY id));
SELECT 'id < 0',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id < 0 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 0 ORDER BY id));
SELECT 'id <= -1',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id <= -1 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id <= -1 ORDER BY id));
SELECT 'id >= 0',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id >= 0 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id >= 0 ORDER BY id));
SELECT 'id > 9223372036854775807',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > 9223372036854775807 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 9223372036854775807 ORDER BY id));
SELECT 'id >= 9223372036854775807',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id >= 9223372036854775807 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id >= 9223372036854775807 ORDER BY id));
SELECT 'id < -9223372036854775808',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id < -9223372036854775808 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < -9223372036854775808 ORDER BY id));
SELECT 'id <= -9223372036854775808',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id <= -9223372036854775808 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id <= -9223372036854775808 ORDER BY id));
SELECT 'id < 9223372036854775807',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id < 9223372036854775807 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 9223372036854775807 ORDER BY id));
SELECT 'id > -9223372036854775808',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > -9223372036854775808 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > -9223372036854775808 ORDER BY id));
SELECT 'id > 1e30',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > 1e30 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 1e30 ORDER BY id));
SELECT 'id < 1e30',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id < 1e30 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 1e30 ORDER BY id));
SELECT 'id > -1e30',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > -1e30 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > -1e30 ORDER BY id));
SELECT 'id < -1e30',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id < -1e30 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < -1e30 ORDER BY id));
SELECT 'id >= 1e-300 AND id <= 3',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id >= 1e-300 AND id <= 3 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id >= 1e-300 AND id <= 3 ORDER BY id));
SELECT 'id > ''abc''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > 'abc' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 'abc' ORDER BY id));
SELECT 'id < ''abc''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id < 'abc' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 'abc' ORDER BY id));
SELECT 'id > ''10''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > '10' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > '10' ORDER BY id));
SELECT 'id <= ''3''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id <= '3' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id <= '3' ORDER BY id));
SELECT 'id < x''00''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id < x'00' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < x'00' ORDER BY id));
SELECT 'id > x''00''',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > x'00' ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > x'00' ORDER BY id));
SELECT 'id > NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > NULL ORDER BY id));
SELECT 'id <= NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id <= NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id <= NULL ORDER BY id));
SELECT 'id > 3 AND id < 10 AND id >= 5 AND id <= 8',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > 3 AND id < 10 AND id >= 5 AND id <= 8 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 3 AND id < 10 AND id >= 5 AND id <= 8 ORDER BY id));
SELECT 'id > 10 AND id < 5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > 10 AND id < 5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 10 AND id < 5 ORDER BY id));
SELECT 'id = 5 AND id > 3',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = 5 AND id > 3 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 5 AND id > 3 ORDER BY id));
SELECT 'id = 5 AND id = 6',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = 5 AND id = 6 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 5 AND id = 6 ORDER BY id));
SELECT 'id = 5 AND id < 5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = 5 AND id < 5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 5 AND id < 5 ORDER BY id));
SELECT 'id > 3 AND id > 7 AND id < 20 AND id < 12',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > 3 AND id > 7 AND id < 20 AND id < 12 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 3 AND id > 7 AND id < 20 AND id < 12 ORDER BY id));
SELECT 'id IN (1, 3, 5, 100000)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id IN (1, 3, 5, 100000) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id IN (1, 3, 5, 100000) ORDER BY id));
SELECT 'id IN (SELECT id * 7 FROM t)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id IN (SELECT id * 7 FROM t) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id IN (SELECT id * 7 FROM t) ORDER BY id));
SELECT 'id IN (''2'', 4.0, NULL)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id IN ('2', 4.0, NULL) ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id IN ('2', 4.0, NULL) ORDER BY id));
SELECT 'id = 3 OR id = 7',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = 3 OR id = 7 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 3 OR id = 7 ORDER BY id));
SELECT 'id = 3 OR id BETWEEN 10 AND 12',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = 3 OR id BETWEEN 10 AND 12 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 3 OR id BETWEEN 10 AND 12 ORDER BY id));
SELECT 'id NOT BETWEEN 2 AND 590',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id NOT BETWEEN 2 AND 590 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id NOT BETWEEN 2 AND 590 ORDER BY id));
SELECT 'id != 5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id != 5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id != 5 ORDER BY id));
SELECT 'id IS 5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id IS 5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id IS 5 ORDER BY id));
SELECT 'id IS NOT NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id IS NOT NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id IS NOT NULL ORDER BY id));
SELECT 'id IS NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id IS NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id IS NULL ORDER BY id));
SELECT 'id + 0 = 5',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id + 0 = 5 ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id + 0 = 5 ORDER BY id));
SELECT 'id BETWEEN 3 AND 7 AND comm IS NOT NULL',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id BETWEEN 3 AND 7 AND comm IS NOT NULL ORDER BY id))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id BETWEEN 3 AND 7 AND comm IS NOT NULL ORDER BY id));
SELECT 'rowid BETWEEN 3 AND 7 ORDER BY rowid DESC',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid BETWEEN 3 AND 7 ORDER BY rowid DESC))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id BETWEEN 3 AND 7 ORDER BY id DESC));
SELECT 'id BETWEEN 3 AND 7 ORDER BY id DESC',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id BETWEEN 3 AND 7 ORDER BY id DESC))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id BETWEEN 3 AND 7 ORDER BY id DESC));
SELECT 'rowid > 590 ORDER BY rowid DESC',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > 590 ORDER BY rowid DESC))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 590 ORDER BY id DESC));
SELECT 'id > 590 ORDER BY id DESC',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > 590 ORDER BY id DESC))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 590 ORDER BY id DESC));
SELECT 'rowid < 3 ORDER BY rowid DESC',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid < 3 ORDER BY rowid DESC))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 3 ORDER BY id DESC));
SELECT 'id < 3 ORDER BY id DESC',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id < 3 ORDER BY id DESC))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id < 3 ORDER BY id DESC));
SELECT 'rowid >= 0 ORDER BY rowid DESC',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid >= 0 ORDER BY rowid DESC))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id >= 0 ORDER BY id DESC));
SELECT 'id >= 0 ORDER BY id DESC',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id >= 0 ORDER BY id DESC))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id >= 0 ORDER BY id DESC));
SELECT 'rowid = 5 ORDER BY rowid DESC',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid = 5 ORDER BY rowid DESC))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 5 ORDER BY id DESC));
SELECT 'id = 5 ORDER BY id DESC',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id = 5 ORDER BY id DESC))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id = 5 ORDER BY id DESC));
SELECT 'rowid > 10 AND rowid < 5 ORDER BY rowid DESC',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > 10 AND rowid < 5 ORDER BY rowid DESC))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 10 AND id < 5 ORDER BY id DESC));
SELECT 'id > 10 AND id < 5 ORDER BY id DESC',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE id > 10 AND id < 5 ORDER BY id DESC))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 10 AND id < 5 ORDER BY id DESC));
SELECT 'rowid > 10 ORDER BY rowid LIMIT 5 OFFSET 2',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault WHERE rowid > 10 ORDER BY rowid LIMIT 5 OFFSET 2))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 10 ORDER BY id LIMIT 5 OFFSET 2));
SELECT 'ORDER BY rowid DESC (whole table)',
  (SELECT group_concat(id) FROM (SELECT id FROM page_fault ORDER BY rowid DESC))
  IS (SELECT group_concat(id) FROM (SELECT id FROM t ORDER BY id DESC));
SELECT 'min and max rowid',
  (SELECT min(rowid) || ',' || max(rowid) || ',' || count(*) FROM page_fault)
  IS (SELECT min(id) || ',' || max(id) || ',' || count(*) FROM t);
