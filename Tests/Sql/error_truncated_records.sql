SELECT tracestore_attach('@WORK@/s');
SELECT count(*) FROM page_fault;
