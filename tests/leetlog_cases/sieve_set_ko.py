def count_primes(n: int) -> int:
    seen = set()
    primes = 0
    for i in range(2, n):
        if i in seen:
            continue
        primes += 1
        for j in range(2 * i, n, i):
            seen.add(j)
    return primes


def my_pow(x: float, n: int) -> float:
    if n < 0:
        x, n = 1 / x, -n
    result = 1.0
    while n:
        if n & 1:
            result *= x
        x *= x
        n >>= 1
    return result
