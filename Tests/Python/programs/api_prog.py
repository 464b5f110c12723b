# tracestore.start()/stop() inside a program: a thread already running at
# start(), --exclude and --max-depth as keywords, a fork child that must
# not be recorded.  Prints its pid, what stop() returned, and
# time.monotonic_ns() before and after calling marker().
import json
import os
import sys
import threading
import time

import tracestore

go = threading.Event()


def before_helper():
    return 1


def before_thread():
    go.wait()
    before_helper()


def deep(n):
    return 0 if n == 0 else deep(n - 1) + 1


def marker():
    time.sleep(0.01)


def child_work():
    return sum(range(10))


t = threading.Thread(target=before_thread)
t.start()
tracestore.start(sys.argv[1], exclude=["json"], max_depth=3)
go.set()
t.join()
assert deep(10) == 10
assert json.dumps({"a": [1, 2]}) == '{"a": [1, 2]}'
pid = os.fork()
if pid == 0:
    child_work()
    os._exit(7)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 7
before = time.monotonic_ns()
marker()
after = time.monotonic_ns()
print(os.getpid(), tracestore.stop(), before, after)
