import numpy as np


def my_pow(x: float, n: int) -> float:
    def helper(base: float, k: int) -> float:
        if k == 0:
            return 1.0
        half = helper(base, k // 2)
        if k % 2 == 0:
            return half * half
        return half * half * base

    if n < 0:
        return 1 / helper(x, -n)
    return helper(x, n)


def count_primes(n: int) -> int:
    if n < 3:
        return 0
    sieve = np.ones(n, dtype=bool)
    sieve[:2] = False
    for i in range(2, int(n ** 0.5) + 1):
        if sieve[i]:
            sieve[i * i::i] = False
    return int(sieve.sum())
