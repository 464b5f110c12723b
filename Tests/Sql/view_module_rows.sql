-- The module store of a uftrace recording: one row per line of its
-- sid-SID.map, at the session's start, for its process.
.output /dev/null
SELECT tracestore_attach('@WORK@/s.trace');
.output
SELECT ts, pid, printf('%x', start), printf('%x', "end"), offset, path,
       perms, build_id
FROM module ORDER BY id;
