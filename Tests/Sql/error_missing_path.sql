SELECT tracestore_attach('@WORK@/no-such.trace');
