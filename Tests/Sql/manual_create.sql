-- The modules without tracestore_attach(): the store name defaults to the
-- table name; any table name works with an explicit store name.
CREATE VIRTUAL TABLE temp.faults USING tracestore('@SESSION@', 'page_fault');
CREATE VIRTUAL TABLE temp.sched_switch USING tracestore("@SESSION@");
CREATE VIRTUAL TABLE temp.info USING tracestore_info('@SESSION@');
SELECT count(*) FROM faults;
SELECT count(*) FROM sched_switch;
SELECT count(*) FROM info;
