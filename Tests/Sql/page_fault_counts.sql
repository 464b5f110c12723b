-- Page faults per event name.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT name, count(*) FROM page_fault GROUP BY name ORDER BY name;
