-- Every context switch as one string per row:
-- ts|cpu|prev_comm|prev_pid|prev_prio|prev_state|next_comm|next_pid|next_prio.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT ts || '|' || cpu || '|' || prev_comm || '|' || prev_pid || '|'
       || prev_prio || '|' || prev_state || '|' || next_comm || '|'
       || next_pid || '|' || next_prio AS row
  FROM sched_switch
 ORDER BY row;
