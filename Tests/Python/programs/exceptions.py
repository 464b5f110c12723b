# Exceptions raised through several frames and caught further up, in a
# finally, in a generator, and one that ends the program (exit code 3).
import gc
gc.disable()
import sys


class Oops(Exception):
    pass


def level3(n):
    if n % 2:
        raise Oops(n)
    return n


def level2(n):
    try:
        return level3(n)
    finally:
        cleanup(n)


def cleanup(n):
    return n


def level1(n):
    return level2(n) + 1


def catcher(n):
    try:
        return level1(n)
    except Oops as x:
        return -x.args[0]


def gen_raises():
    yield 1
    raise Oops(9)


def drain():
    got = []
    try:
        for x in gen_raises():
            got.append(x)
    except Oops:
        got.append("caught")
    return got


assert [catcher(i) for i in range(5)] == [1, -1, 3, -3, 5]
assert drain() == [1, "caught"]
print("exceptions ok")
sys.exit(3)
