SELECT tracestore_attach(NULL);
