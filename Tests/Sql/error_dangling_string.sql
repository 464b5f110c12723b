.output /dev/null
SELECT tracestore_attach('@WORK@/s');
.output
SELECT count(*) FROM page_fault;
SELECT id, name FROM page_fault WHERE rowid BETWEEN 0 AND 5;
