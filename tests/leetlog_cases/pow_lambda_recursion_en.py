def my_pow(x: float, n: int) -> float:
    if n < 0:
        x, n = 1 / x, -n
    f = lambda k: 1.0 if k == 0 else x * f(k - 1)  # noqa: E731
    return f(n)


def count_primes(n: int) -> int:
    if n < 3:
        return 0
    sieve = bytearray([1]) * n
    sieve[0] = sieve[1] = 0
    for i in range(2, int(n ** 0.5) + 1):
        if sieve[i]:
            sieve[i * i::i] = bytearray(len(range(i * i, n, i)))
    return sum(sieve)
