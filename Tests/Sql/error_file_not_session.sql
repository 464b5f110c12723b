SELECT tracestore_attach('@FTRACE@');
