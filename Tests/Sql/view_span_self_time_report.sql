-- Self time and calls per function as `uftrace report` prints them (us,
-- three decimals: exact for this short recording).
.output /dev/null
SELECT tracestore_attach('@WORK@/s.trace');
.output
SELECT printf('%.3f us', self_dur / 1000.0), calls, name
FROM span_self_time ORDER BY name;
