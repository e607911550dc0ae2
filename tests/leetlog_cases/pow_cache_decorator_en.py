from functools import cache


@cache
def _half(x: float, k: int) -> float:
    if k == 0:
        return 1.0
    h = _half(x, k // 2)
    return h * h * x if k % 2 else h * h


def my_pow(x: float, n: int) -> float:
    return _half(x, n) if n >= 0 else 1 / _half(x, -n)


def count_primes(n: int) -> int:
    if n < 3:
        return 0
    is_prime = [True] * n
    is_prime[0] = is_prime[1] = False
    i = 2
    while i * i < n:
        if is_prime[i]:
            is_prime[i * i:n:i] = [False] * len(range(i * i, n, i))
        i += 1
    return sum(is_prime)
