SELECT tracestore_attach('@SESSION@', 'nowhere');
