"""The oracle of trace-python --lines: a pure-Python sys.settrace
line counter.

    PYTHON -c "$(cat settrace_lines_oracle.py)" OUT.json PREFIXES PROGRAM ARGS...

runs PROGRAM as `tracestore trace-python` does (from -c, as its bootstrap:
same sys.argv, sys.path[0] and __main__, compile + exec) with a trace
function that, at each 'call' event, looks at the module of the frame (the
__name__ of its globals): if it is one of PREFIXES (comma-separated) or
below one, the frame gets a local trace function that counts each 'line'
event by (co_filename, line).  Other frames get none, so they have no line
events.  New threads: threading.settrace, set before the program runs.
At exit (atexit, as the tracer stops) it writes OUT.json: a list of
[file, line, hits].
"""


def _oracle_main():
    import sys, os, io, threading, builtins
    out_path = sys.argv[1]
    prefixes = [p for p in sys.argv[2].split(',') if p]
    a = sys.argv[3:]
    hits = {}
    decided = {}

    def traced(frame):
        code = frame.f_code
        d = decided.get(code)
        if d is None and code.co_filename == '<string>':
            d = decided[code] = False       # this file's own functions
        if d is None:
            mod = frame.f_globals.get('__name__', '?')
            if not isinstance(mod, str):
                mod = '?'
            d = decided[code] = any(mod == p or mod.startswith(p + '.')
                                    for p in prefixes)
        return d

    def local(frame, event, arg):
        if event == 'line':
            key = (frame.f_code.co_filename, frame.f_lineno)
            hits[key] = hits.get(key, 0) + 1
        return local

    def glob(frame, event, arg):
        if event == 'call' and traced(frame):
            return local
        return None

    def dump():
        sys.settrace(None)
        threading.settrace(None)
        import json
        with open(out_path, 'w') as f:
            json.dump([[k[0], k[1], v] for k, v in hits.items()], f)

    main = sys.modules['__main__']
    d = main.__dict__
    d.clear()
    d.update(__name__='__main__', __doc__=None, __builtins__=builtins,
             __cached__=None, __loader__=None, __package__=None,
             __spec__=None)
    path = a[0]
    sys.argv = a
    sys.path[0] = os.path.dirname(os.path.realpath(path))
    with io.open_code(path) as f:
        code = compile(f.read(), path, 'exec', dont_inherit=True)
    d['__file__'] = path
    import atexit
    atexit.register(dump)
    threading.settrace(glob)
    sys.settrace(glob)
    try:
        exec(code, d)
    except SystemExit:
        raise
    except BaseException as x:
        x.__traceback__ = x.__traceback__.tb_next
        sys.excepthook(type(x), x, x.__traceback__)
        sys.exit(1)


_oracle_main()
