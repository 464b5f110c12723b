-- The flame-graph table of two uftrace recordings (one thread; three
-- threads): calls, total and self time and the deepest nesting per
-- function.
.output /dev/null
SELECT tracestore_attach('@WORK@/s.trace');
.output
SELECT name, calls, total_dur, self_dur, max_dur, max_depth
FROM span_self_time ORDER BY name;
.output /dev/null
SELECT tracestore_detach();
SELECT tracestore_attach('@WORK@/mt.trace');
.output
SELECT name, calls, total_dur, self_dur, max_dur, max_depth
FROM span_self_time ORDER BY name;
