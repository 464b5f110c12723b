SELECT tracestore_attach('@WORK@/s');
