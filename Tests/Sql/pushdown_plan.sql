-- The plans use the push-down: the idxNum after INDEX is the sum of the
-- TS_* bits of tracestore.c (rowid: EQ 1, GT 2, GE 4, LT 8, LE 16; ts: EQ 32,
-- GT 64, GE 128, LT 256, LE 512; descending order 1024, (ts, rowid) order
-- 2048, rowid IN 4096, LIMIT 8192, OFFSET 16384), the text after it names
-- what was taken, and an ORDER BY that the scan answers needs no sorting
-- step.  page_fault of the capture is sorted by ts.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
EXPLAIN QUERY PLAN SELECT * FROM page_fault WHERE rowid = 5;
EXPLAIN QUERY PLAN SELECT * FROM page_fault WHERE id BETWEEN 3 AND 7;
EXPLAIN QUERY PLAN SELECT * FROM page_fault WHERE rowid > 3 AND rowid < 7;
EXPLAIN QUERY PLAN SELECT * FROM page_fault WHERE ts >= 5 AND ts < 10;
EXPLAIN QUERY PLAN SELECT * FROM page_fault WHERE ts = 5 AND rowid <= 100;
EXPLAIN QUERY PLAN SELECT * FROM page_fault WHERE comm = 'ls';
EXPLAIN QUERY PLAN SELECT * FROM page_fault ORDER BY rowid DESC;
EXPLAIN QUERY PLAN SELECT * FROM page_fault WHERE rowid > 10 ORDER BY id;
EXPLAIN QUERY PLAN SELECT * FROM page_fault WHERE rowid IN (3, 1, 2) ORDER BY id DESC;
EXPLAIN QUERY PLAN SELECT * FROM page_fault WHERE ts >= 5 AND ts <= 10 ORDER BY ts DESC LIMIT 3 OFFSET 2;
EXPLAIN QUERY PLAN SELECT * FROM page_fault WHERE ts > 5 AND comm = 'ls' LIMIT 3;
EXPLAIN QUERY PLAN SELECT * FROM page_fault WHERE ts >= ?1 LIMIT 3;
EXPLAIN QUERY PLAN SELECT * FROM page_fault ORDER BY ts, id;
EXPLAIN QUERY PLAN SELECT * FROM page_fault ORDER BY ts, comm;
EXPLAIN QUERY PLAN SELECT * FROM page_fault WHERE (ts, id) > (5, 3) LIMIT 2;
