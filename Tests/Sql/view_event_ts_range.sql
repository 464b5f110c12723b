-- A ts range and ORDER BY ts over the event view: the rows in the range,
-- in time order.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT ts, store FROM event WHERE ts BETWEEN 697456000000 AND 697457000000
ORDER BY ts, store, id;
