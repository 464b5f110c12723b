# Threads: workers doing their own call trees, one of them started from
# another thread; each thread's calls are in its own order.
import gc
gc.disable()
import threading


def work(k, depth):
    return k if depth == 0 else work(k, depth - 1) + 1


def worker(k, out):
    out[k] = sum(work(k, d) for d in range(5))


def spawner(out):
    t = threading.Thread(target=worker, args=(9, out))
    t.start()
    t.join()


out = {}
threads = [threading.Thread(target=worker, args=(k, out)) for k in range(3)]
threads.append(threading.Thread(target=spawner, args=(out,)))
for t in threads:
    t.start()
for t in threads:
    t.join()
worker(7, out)
assert out == {k: 5 * k + 10 for k in (0, 1, 2, 7, 9)}, out
print("threads ok")
