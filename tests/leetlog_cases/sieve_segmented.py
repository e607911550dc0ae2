import math


def count_primes(n: int) -> int:
    if n < 3:
        return 0
    limit = math.isqrt(n - 1)
    base = [True] * (limit + 1)
    primes = []
    for p in range(2, limit + 1):
        if base[p]:
            primes.append(p)
            for m in range(p * p, limit + 1, p):
                base[m] = False
    count = 0
    size = limit + 1
    for low in range(2, n, size):
        high = min(low + size, n)
        segment = [True] * (high - low)
        for p in primes:
            start = max(p * p, (low + p - 1) // p * p)
            for m in range(start, high, p):
                segment[m - low] = False
        count += sum(segment)
    return count
