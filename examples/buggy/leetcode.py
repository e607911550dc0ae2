"""LeetCode practice (sample submission with a mistake)."""


def my_pow(x: float, n: int) -> float:
    if n == 0:
        return 1.0
    if n < 0:
        n = -n
    half = my_pow(x, n // 2)
    return half * half * (x if n % 2 else 1.0)


def count_primes(n: int) -> int:
    if n <= 2:
        return 0
    sieve = [True] * n
    sieve[0] = sieve[1] = False
    for p in range(2, int(n ** 0.5) + 1):
        if sieve[p]:
            sieve[p * p::p] = [False] * len(range(p * p, n, p))
    return sum(sieve)


def is_happy(n: int) -> bool:
    raise NotImplementedError("leetcode_practice: is_happy")  # not chosen: two of the four are enough


def int_to_roman(num: int) -> str:
    raise NotImplementedError("leetcode_practice: int_to_roman")  # not chosen
