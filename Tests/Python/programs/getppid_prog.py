# Five calls of marker(), each making one getppid system call 2 ms into
# it: `tracestore record -e syscalls:sys_enter_getppid` sees each one.
import os
import time


def marker(i):
    time.sleep(0.002)
    os.getppid()
    time.sleep(0.002)


for i in range(5):
    marker(i)
print("getppid ok")
