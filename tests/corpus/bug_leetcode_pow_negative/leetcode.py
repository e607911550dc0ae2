"""Reference solutions for the LeetCode practice (50, 204, 202, 12)."""
from __future__ import annotations


def my_pow(x: float, n: int) -> float:
    """x**n by binary exponentiation, O(log |n|)."""
    if n < 0:
        # Python ints do not overflow, so -(-2**31) is safe here.
        n = -n
    result = 1.0
    while n:
        if n & 1:
            result *= x
        x *= x
        n >>= 1
    return result


def count_primes(n: int) -> int:
    """Number of primes strictly below n (sieve of Eratosthenes)."""
    if n < 3:
        return 0
    is_prime = bytearray([1]) * n
    is_prime[0] = is_prime[1] = 0
    p = 2
    while p * p < n:
        if is_prime[p]:
            # Smaller multiples were already crossed out by smaller primes.
            is_prime[p * p :: p] = bytes(len(range(p * p, n, p)))
        p += 1
    return sum(is_prime)


def is_happy(n: int) -> bool:
    raise NotImplementedError("leetcode_practice: is_happy")  # not chosen: two of the four are enough


def int_to_roman(num: int) -> str:
    raise NotImplementedError("leetcode_practice: int_to_roman")  # not chosen
