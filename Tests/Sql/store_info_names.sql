-- store_info has one row per store file, string stores included.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT name FROM store_info ORDER BY name;
