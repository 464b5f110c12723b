.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
DELETE FROM page_fault WHERE rowid = 0;
