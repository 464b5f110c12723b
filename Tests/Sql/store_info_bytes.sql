-- bytes is the header page plus the committed records, and the file holds
-- them: a closed store is trimmed to its records, rounded up to a page.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
CREATE TABLE sizes(name TEXT, size INTEGER);
.import --csv @WORK@/sizes.csv sizes
SELECT s.name,
       CASE WHEN i.bytes = 4096 + i.records * i.record_size
             AND i.bytes <= s.size AND s.size < i.bytes + 4096
            THEN 'ok'
            ELSE printf('bytes %s, records %s x %s, file %d', i.bytes,
                        i.records, i.record_size, s.size)
       END
  FROM sizes AS s LEFT JOIN store_info AS i USING (name)
 ORDER BY s.name;
