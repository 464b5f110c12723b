# asyncio: coroutines awaiting each other, tasks gathered, sleep(0).
import gc
gc.disable()
import asyncio


async def leaf(i):
    await asyncio.sleep(0)
    return i * 2


async def middle(i):
    a = await leaf(i)
    b = await leaf(i + 1)
    return a + b


async def main():
    results = await asyncio.gather(*(middle(i) for i in range(4)))
    return sum(results)


assert asyncio.run(main()) == 32
print("asyncio ok")
