# A module trace-python --lines leaves out: its calls are rows of span,
# its lines are not rows of line; it calls back into a traced function.
def helper(f, n):
    total = 0
    for i in range(n):
        total += f(i)
    return total
