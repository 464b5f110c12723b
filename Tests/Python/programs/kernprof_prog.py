# python.kernprof: functions line_profiler is told to profile (@profile,
# kernprof -l), with the constructs whose line events have rules.  Under
# trace-python there is no `profile`: the decorator is then the identity.
import asyncio
import sys

try:
    profile
except NameError:
    def profile(f):
        return f


@profile
def loops(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            total += i
        else:
            total -= 1
    k = n
    while k > 0: k -= 1
    squares = [i * i for i in range(n)]
    return total + k + len(squares)


@profile
def counter(n):
    i = 0
    while i < n:
        got = yield i
        if got:
            i += got
        i += 1


class Boom(Exception):
    pass


@profile
def exceptions(n):
    caught = 0
    for i in range(n):
        try:
            if i % 2:
                raise Boom(i)
            caught -= 1
        except Boom:
            caught += 1
        finally:
            caught += 0
    return caught


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


@profile
def withs(n):
    hits = 0
    for i in range(n):
        with Ctx():
            hits += 1
            if i % 4 == 0:
                raise KeyError(i)
            hits += 1
    return hits


@profile
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
            case _:
                out.append(None)
    return out


@profile
async def coro(n):
    total = 0
    for i in range(n):
        await asyncio.sleep(0)
        total += i
    return total


def main():
    n = 50
    print(loops(n))
    print(sum(counter(n)))
    print(exceptions(n))
    print(withs(n))
    print(matches([0, [1, 2], {"k": 3}, "x"] * 5))
    print(asyncio.run(coro(10)))


main()
