-- tracestore_attach() returns the number of tables it creates: one per
-- store except the string stores, plus store_info.  Attaching again
-- replaces them (the same number again); the trailing slash names the same
-- session.
SELECT tracestore_attach('@SESSION@');
SELECT tracestore_attach('@SESSION@/');
SELECT name FROM temp.sqlite_master WHERE type = 'table' ORDER BY name;
