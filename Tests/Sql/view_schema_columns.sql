-- Every table, view and table-valued function that docs/schema.md documents
-- has exactly the columns it lists, in that order (pragma_table_info).
.output /dev/null
SELECT tracestore_attach('@WORK@/all.trace');
.output
SELECT m.name, group_concat(p.name, ',')
FROM (SELECT name FROM temp.sqlite_master WHERE type IN ('table', 'view')
      UNION SELECT 'tracestore_args') AS m,
     pragma_table_info(m.name) AS p
GROUP BY m.name ORDER BY m.name;
