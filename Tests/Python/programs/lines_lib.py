# The module trace-python --lines traces in lines_prog.py: every construct
# whose line events have rules of their own.
import asyncio
import threading
import time


def loops(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            total += i
        else:
            total -= 1
    k = n
    while k > 0: k -= 1
    while True:
        k += 1
        if k > 4:
            break
    return total + k


def comprehensions(n):
    squares = [i * i for i in range(n)]
    evens = {i for i in squares if i % 2 == 0}
    pairs = {i: j for i, j in zip(range(n), squares)}
    gen = sum(x for x in squares
              if x > 2)
    nested = [[a * b for a in range(3)] for b in range(n)]
    return len(squares) + len(evens) + len(pairs) + gen + len(nested)


def counter(n):
    i = 0
    while i < n:
        got = yield i
        if got:
            i += got
        i += 1
    return i


def delegate(n):
    r = yield from counter(n)
    yield r


def generators(n):
    out = list(counter(n))
    g = counter(10)
    next(g)
    out.append(g.send(2))
    try:
        g.throw(ValueError("x"))
    except ValueError:
        out.append(-1)
    out.extend(delegate(3))
    return out


class Boom(Exception):
    pass


def raiser(depth):
    if depth == 0:
        raise Boom("deep")
    return raiser(depth - 1)


def exceptions(n):
    caught = 0
    for i in range(n):
        try:
            raiser(i % 3)
        except Boom:
            caught += 1
        else:
            caught -= 100
        finally:
            caught += 0
    try:
        try:
            {}["missing"]
        except KeyError as e:
            raise RuntimeError("again") from e
    except RuntimeError:
        caught += 1
    return caught


class Ctx:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("in")
        return self

    def __exit__(self, *exc):
        self.log.append("out")
        return exc[0] is KeyError


def withs():
    log = []
    with Ctx(log) as c:
        log.append(len(c.log))
    with Ctx(log):
        raise KeyError("swallowed")
    with Ctx(log), Ctx(log):
        log.append("two")
    return log


def matches(values):
    out = []
    for v in values:
        match v:
            case 0:
                out.append("zero")
            case [x, y]:
                out.append(x + y)
            case {"k": k}:
                out.append(k)
            case str() as s if len(s) > 2:
                out.append(s)
            case _:
                out.append(None)
    return out


def work(results, i):
    s = 0
    for j in range(200):
        s += j * i
    results[i] = s


def threads(n):
    results = [0] * n
    ts = [threading.Thread(target=work, args=(results, i)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sum(results)


async def child(i):
    await asyncio.sleep(0)
    x = i * 2
    await asyncio.sleep(0)
    return x


async def parent(n):
    got = await asyncio.gather(*(child(i) for i in range(n)))
    total = 0
    async for v in agen(n):
        total += v
    return sum(got) + total


async def agen(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i


def run_async(n):
    return asyncio.run(parent(n))


def nap(seconds):
    time.sleep(seconds)


def timed():
    nap(0.05)
    time.sleep(0.05)
