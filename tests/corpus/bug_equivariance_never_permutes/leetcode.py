"""Reference solutions for the LeetCode practice (50, 204, 202, 12)."""
from __future__ import annotations


def my_pow(x: float, n: int) -> float:
    """x**n by binary exponentiation, O(log |n|)."""
    if n < 0:
        # Python ints do not overflow, so -(-2**31) is safe here.
        x, n = 1.0 / x, -n
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
    """Digit-square sums reach 1; Floyd's cycle detection otherwise."""

    def step(k: int) -> int:
        return sum(int(d) ** 2 for d in str(k))

    slow, fast = n, step(n)
    while fast != 1 and slow != fast:
        slow, fast = step(slow), step(step(fast))
    return fast == 1


_ROMAN = (
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
)


def int_to_roman(num: int) -> str:
    """Greedy over values incl. the subtractive pairs; 1 <= num <= 3999."""
    if not 1 <= num <= 3999:
        raise ValueError(f"num must be in 1..3999, got {num}")
    out = []
    for value, sym in _ROMAN:
        count, num = divmod(num, value)
        out.append(sym * count)
    return "".join(out)
