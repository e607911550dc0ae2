def count_primes(n: int) -> int:
    primes = []
    for k in range(2, n):
        for p in primes:
            if p * p > k:
                primes.append(k)
                break
            if k % p == 0:
                break
        else:
            primes.append(k)
    return len(primes)


def my_pow(x: float, n: int) -> float:
    if n == 0:
        return 1.0
    if n < 0:
        return 1.0 / my_pow(x, -n)
    half = my_pow(x, n // 2)
    return half * half * (x if n % 2 else 1.0)
