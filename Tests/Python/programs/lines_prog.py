# trace-python --lines: the program of python.lines.* (lines_lib.py has
# the constructs; lines_other.py is not traced and calls back into it).
import gc
import sys

import lines_lib
import lines_other


def square(i):
    return i * i


def main():
    gc.disable()
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    print("loops", lines_lib.loops(n))
    print("comprehensions", lines_lib.comprehensions(n))
    print("generators", lines_lib.generators(n))
    print("exceptions", lines_lib.exceptions(n))
    print("withs", lines_lib.withs())
    print("matches", lines_lib.matches([0, [1, 2], {"k": 3}, "long", "x"]))
    print("threads", lines_lib.threads(4))
    print("async", lines_lib.run_async(5))
    print("other", lines_other.helper(square, n))
    lines_lib.timed()
    return 3


if __name__ == "__main__":
    sys.exit(main())
