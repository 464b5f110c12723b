-- tracestore_args() on random texts made of the characters its rules care
-- about (blanks, = : , brackets, quotes, backslash, NUL, digits), on
-- random bytes that are not UTF-8, and on long runs of openers: no crash
-- (the test also runs under ASan), no error, and rows that hold to the
-- rules: every key is a field name found in the text, int_value is set
-- exactly when value_type is 'int', display_value is in the text.
CREATE TEMP TABLE fuzz(i INTEGER PRIMARY KEY, txt TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
INSERT INTO fuzz
SELECT n.i, (SELECT group_concat(
               CASE abs(random()) % 22
                 WHEN 0 THEN 'k=' WHEN 1 THEN 'x:' WHEN 2 THEN ' '
                 WHEN 3 THEN '(' WHEN 4 THEN ')' WHEN 5 THEN '[' WHEN 6 THEN ']'
                 WHEN 7 THEN '{' WHEN 8 THEN '}' WHEN 9 THEN '"'
                 WHEN 10 THEN '''' WHEN 11 THEN '\' WHEN 12 THEN ','
                 WHEN 13 THEN '0x1f' WHEN 14 THEN '12' WHEN 15 THEN '-'
                 WHEN 16 THEN 'ab' WHEN 17 THEN char(9) WHEN 18 THEN char(0)
                 WHEN 19 THEN '=' WHEN 20 THEN ' _y=' ELSE ' ' END, '')
             FROM n AS m WHERE m.i <= (n.i * 7 + abs(random())) % 120)
FROM n;
SELECT count(*) > 1000,
       sum(a.key NOT GLOB '[A-Za-z_]*'),
       sum((a.int_value IS NOT NULL) != (a.value_type = 'int')),
       sum(instr(f.txt, a.key) = 0),
       sum(instr(f.txt, a.display_value) = 0)
FROM fuzz AS f, tracestore_args(f.txt) AS a;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
SELECT count(*) >= 0 FROM n, tracestore_args(CAST(randomblob(n.i % 300) AS TEXT));
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
SELECT count(tracestore_arg(CAST(randomblob(n.i % 300) AS TEXT), 'a')) >= 0 FROM n;
SELECT count(*) FROM tracestore_args(printf('%.*c', 60000, '('));
SELECT count(*) >= 0
FROM tracestore_args(replace(printf('%.*c', 30000, '#'), '#', 'a="( '));
SELECT count(*)
FROM tracestore_args(replace(printf('%.*c', 30000, '#'), '#', 'k=[x '));
