import itertools
import math

multiply_all = math.prod


def my_pow(x: float, n: int) -> float:
    if n < 0:
        x, n = 1 / x, -n
    copies = itertools.repeat
    return multiply_all(copies(x, n))


def count_primes(n: int) -> int:
    if n < 3:
        return 0
    sieve = [True] * n
    sieve[0] = sieve[1] = False
    for i, is_p in enumerate(sieve):
        if i * i >= n:
            break
        if is_p:
            sieve[i * i::i] = [False] * len(sieve[i * i::i])
    return sum(1 for flag in sieve if flag)
