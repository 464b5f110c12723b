-- The event view holds every event line of the capture once, with its
-- time, name, task and CPU, and the table it comes from.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT ts, name, tid, cpu, store FROM event
ORDER BY ts, name, tid, cpu, store;
SELECT count(*) FROM event WHERE pid IS NOT NULL;
