# Generators: yield, yield from, send, throw, close, generator expressions.
import gc
gc.disable()


def count(n):
    for i in range(n):
        yield i


def chain(*gens):
    for g in gens:
        yield from g


def echo():
    total = 0
    while True:
        try:
            got = yield total
        except ValueError:
            total = -1
            continue
        total += got


def squares(n):
    return sum(x * x for x in count(n))


assert list(chain(count(3), count(2))) == [0, 1, 2, 0, 1]
e = echo()
next(e)
assert e.send(5) == 5
assert e.send(7) == 12
assert e.throw(ValueError) == -1
e.close()
assert squares(10) == 285
print("generators ok")
