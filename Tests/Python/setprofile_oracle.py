"""The oracle of the Python tracer's tests: a pure-Python sys.setprofile
recorder.

    PYTHON -c "$(cat setprofile_oracle.py)" OUT.json PROGRAM ARGS...

runs PROGRAM as `tracestore trace-python` does (from -c, as its bootstrap:
3.13 imports linecache for -c code; the same imports first, same
sys.argv, sys.path[0] and __main__, compile + exec) with a profile
function that keeps, per thread, each call's (name, depth, index of its
parent in the thread's list, the code's file).  name is "module.qualname", module being the
__name__ of the function's globals at the code's first call (importlib
renames _frozen_importlib to importlib._bootstrap when it is imported: a
function keeps the name it was first called under, as in the tracer).  A return with nothing open on its
thread is ignored.  New threads: on 3.11 threading.setprofile (where the
tracer installs its hook too); on 3.12+ from the thread's first frame,
Thread._bootstrap (sys.monitoring sees every frame), by a wrapper whose
own frame the recorder never sees open.  At exit (atexit, as the tracer
stops) it writes OUT.json: a list of per-thread lists.  With
ORACLE_C_CALLS=1 in the environment, C functions' c_call .. c_return or
c_exception are calls too, named "owner.name" from the c_call argument
(the bound object's type, else the function's module), as --c-calls names
them.
"""


def _oracle_main():
    import sys, os, io, threading, builtins
    out_path = sys.argv[1]
    a = sys.argv[2:]
    threads = {}
    names = {}
    c_calls = os.environ.get('ORACLE_C_CALLS') == '1'
    module_type = type(sys)

    def tp_name(t):
        # module.name, or name for builtins
        if t.__module__ == 'builtins':
            return t.__name__
        return t.__module__ + '.' + t.__name__

    def c_name(f):
        name = getattr(f, '__name__', None)
        if not isinstance(name, str):
            return tp_name(type(f))
        owner = getattr(f, '__self__', None)
        if owner is not None and not isinstance(owner, module_type):
            return tp_name(owner if isinstance(owner, type)
                           else type(owner)) + '.' + name
        mod = getattr(f, '__module__', None)
        return mod + '.' + name if isinstance(mod, str) else name
    get_id = threading.get_native_id

    def record(frame, event, arg):
        if event == 'call':
            code = frame.f_code
            if code is dump.__code__ or code is boot.__code__:
                return
            tid = get_id()
            t = threads.get(tid)
            if t is None:
                t = threads[tid] = ([], [])
            calls, stack = t
            name = names.get(code)
            if name is None:
                mod = frame.f_globals.get('__name__', '?')
                if not isinstance(mod, str):
                    mod = '?'
                name = names[code] = mod + '.' + code.co_qualname
            calls.append((name, len(stack), stack[-1] if stack else -1,
                          code.co_filename))
            stack.append(len(calls) - 1)
        elif event == 'return' or (c_calls and event in ('c_return',
                                                             'c_exception')):
            t = threads.get(get_id())
            if t is not None and t[1]:
                t[1].pop()
        elif c_calls and event == 'c_call' and arg is not stop_profile:
            tid = get_id()
            t = threads.get(tid)
            if t is None:
                t = threads[tid] = ([], [])
            calls, stack = t
            calls.append((c_name(arg), len(stack), stack[-1] if stack else -1,
                          ''))
            stack.append(len(calls) - 1)

    def dump():
        sys.setprofile(None)
        threading.setprofile(None)
        import json
        with open(out_path, 'w') as f:
            json.dump([c for c, s in threads.values()], f)

    stop_profile = sys.setprofile
    original_bootstrap = threading.Thread._bootstrap

    def boot(self):
        sys.setprofile(record)
        original_bootstrap(self)

    main = sys.modules['__main__']
    d = main.__dict__
    keep = dict(d)
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
    if sys.version_info >= (3, 12):
        threading.Thread._bootstrap = boot
    else:
        threading.setprofile(record)
    sys.setprofile(record)
    try:
        exec(code, d)
    except SystemExit:
        raise
    except BaseException as x:
        x.__traceback__ = x.__traceback__.tb_next
        sys.excepthook(type(x), x, x.__traceback__)
        sys.exit(1)


_oracle_main()
