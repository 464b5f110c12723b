-- Mappings without a path, and with blanks in it; a line that is not a
-- mapping stops the import with the file and offset.
.output /dev/null
SELECT tracestore_attach('@WORK@/s.trace');
.output
.nullvalue NULL
SELECT printf('%x', start), printf('%x', "end"), offset, path, perms, build_id
FROM module WHERE id >= 13 ORDER BY id;
SELECT CAST(readfile('@WORK@/err.txt') AS TEXT);
