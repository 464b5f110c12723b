-- A user's own table of a store's name is never replaced.
CREATE TEMP TABLE sched_switch(mine);
SELECT tracestore_attach('@SESSION@');
