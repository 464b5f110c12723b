SELECT tracestore_attach('@WORK@/not-a-session');
