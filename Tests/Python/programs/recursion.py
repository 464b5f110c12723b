# Recursion: plain, mutual, and deep enough to need a grown stack.
import gc
gc.disable()


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


def down(n):
    return 0 if n == 0 else 1 + down(n - 1)


class Tree:
    def __init__(self, depth):
        self.kids = [Tree(depth - 1) for _ in range(2)] if depth else []

    def size(self):
        return 1 + sum(k.size() for k in self.kids)


assert fib(12) == 144
assert is_even(30) and is_odd(17)
assert down(300) == 300
assert Tree(4).size() == 31
print("recursion ok")
