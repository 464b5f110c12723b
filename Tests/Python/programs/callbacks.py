# C code calling back into Python: sorted(key=), min(key=),
# functools.reduce, map, functools.cmp_to_key, a C-level __lt__ caller.
import gc
gc.disable()
import functools


def key(x):
    return -x


def add(a, b):
    return a + b


def double(x):
    return 2 * x


def compare(a, b):
    return (a > b) - (a < b)


class Box:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return self.v < other.v


data = [5, 3, 8, 1, 9, 2]
assert sorted(data, key=key) == [9, 8, 5, 3, 2, 1]
assert min(data, key=key) == 9
assert functools.reduce(add, data) == 28
assert list(map(double, data[:3])) == [10, 6, 16]
assert sorted(data, key=functools.cmp_to_key(compare))[0] == 1
assert [b.v for b in sorted(Box(v) for v in data)] == sorted(data)
print("callbacks ok")
