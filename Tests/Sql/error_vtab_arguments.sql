CREATE VIRTUAL TABLE temp.x USING tracestore;
