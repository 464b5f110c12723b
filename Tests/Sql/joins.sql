-- Constraints that arrive through joins and subqueries (usable only in some
-- plans), and cursors of one table open at once.  Each line prints what it
-- checks and 1 when the virtual table agrees with t, a plain copy of it.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
CREATE TABLE t AS SELECT * FROM page_fault;
SELECT 'join on rowid, every column equal',
  (SELECT count(*) FROM t JOIN page_fault AS p ON p.rowid = t.id
    WHERE p.ts IS t.ts AND p.address IS t.address AND p.ip IS t.ip
      AND p.ip_sym IS t.ip_sym AND p.error_code IS t.error_code
      AND p.name IS t.name AND p.tid IS t.tid AND p.pid IS t.pid
      AND p.comm IS t.comm AND p.cpu IS t.cpu)
  = (SELECT count(*) FROM t);
SELECT 'join on id, other direction',
  (SELECT count(*) FROM page_fault AS p JOIN t ON t.id = p.id
    WHERE p.ts = t.ts AND p.name = t.name)
  = (SELECT count(*) FROM t);
SELECT 'self-join on the next rowid',
  (SELECT count(*) FROM page_fault AS a JOIN page_fault AS b
      ON b.rowid = a.rowid + 1)
  = (SELECT count(*) - 1 FROM t);
SELECT 'self-join on ts',
  (SELECT count(*) FROM page_fault AS a JOIN page_fault AS b ON b.ts = a.ts)
  = (SELECT count(*) FROM t AS a JOIN t AS b ON b.ts = a.ts);
SELECT 'correlated subquery on rowid',
  (SELECT count(*) FROM page_fault AS a
    WHERE a.ts <= (SELECT b.ts FROM page_fault AS b WHERE b.rowid = a.rowid + 1))
  = (SELECT count(*) FROM t AS a
    WHERE a.ts <= (SELECT b.ts FROM t AS b WHERE b.id = a.id + 1));
SELECT 'range join',
  (SELECT group_concat(x) FROM (SELECT a.id || '-' || b.id AS x
     FROM page_fault AS a JOIN page_fault AS b
       ON b.rowid BETWEEN a.rowid - 1 AND a.rowid + 1
    WHERE a.rowid < 20 ORDER BY a.id, b.id))
  IS (SELECT group_concat(x) FROM (SELECT a.id || '-' || b.id AS x
     FROM t AS a JOIN t AS b ON b.id BETWEEN a.id - 1 AND a.id + 1
    WHERE a.id < 20 ORDER BY a.id, b.id));
SELECT 'group by name with rowid range',
  (SELECT group_concat(x) FROM (SELECT name || ':' || count(*) AS x
     FROM page_fault WHERE rowid >= 100 GROUP BY name ORDER BY name))
  IS (SELECT group_concat(x) FROM (SELECT name || ':' || count(*) AS x
     FROM t WHERE id >= 100 GROUP BY name ORDER BY name));
SELECT 'two cursors interleaved',
  (SELECT count(*) FROM page_fault AS a, page_fault AS b
    WHERE a.rowid < 30 AND b.rowid < 30 AND a.comm = b.comm)
  = (SELECT count(*) FROM t AS a, t AS b
    WHERE a.id < 30 AND b.id < 30 AND a.comm = b.comm);
SELECT 'page_fault joined with sched_switch on ts',
  (SELECT count(*) FROM page_fault AS p JOIN sched_switch AS s
      ON s.ts BETWEEN p.ts - 1000 AND p.ts + 1000)
  = (SELECT count(*) FROM t AS p JOIN sched_switch AS s
      ON s.ts BETWEEN p.ts - 1000 AND p.ts + 1000);
