-- Every page fault, every column the text carries, as one string per row:
-- ts|name|comm|tid|cpu|address|ip (or its symbol)|error_code.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT ts || '|' || name || '|' || comm || '|' || tid || '|' || cpu || '|'
       || printf('0x%x', address) || '|'
       || CASE WHEN ip IS NULL THEN ip_sym ELSE printf('0x%x', ip) END || '|'
       || printf('0x%x', error_code) AS row
  FROM page_fault
 ORDER BY row;
