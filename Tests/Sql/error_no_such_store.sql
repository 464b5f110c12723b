CREATE VIRTUAL TABLE temp.x USING tracestore('@SESSION@', 'no_such_store');
