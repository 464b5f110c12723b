-- The plans use the push-down: the idxNum after INDEX is the sum of the
-- TS_* bits of tracestore.c (rowid: EQ 1, GT 2, GE 4, LT 8, LE 16; ts: EQ 32,
-- GT 64, GE 128, LT 256, LE 512; descending order 1024), and an ORDER BY
-- on the rowid needs no sorting step.
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
