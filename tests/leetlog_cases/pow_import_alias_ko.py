from itertools import repeat
from math import prod as product


def my_pow(x: float, n: int) -> float:
    if n < 0:
        x, n = 1 / x, -n
    return product(repeat(x, n))


def count_primes(n: int) -> int:
    if n < 3:
        return 0
    flags = [True] * n
    flags[0] = flags[1] = False
    for p in range(2, int((n - 1) ** 0.5) + 1):
        if flags[p]:
            for q in range(p * p, n, p):
                flags[q] = False
    return sum(1 for i in range(n) if flags[i])
