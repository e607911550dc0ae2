def my_pow(x: float, n: int) -> float:
    if n < 0:
        x, n = 1 / x, -n
    memo = [0.0] * (n + 1)
    memo[0] = 1.0

    def go(k: int) -> float:
        if k == 0 or memo[k]:
            return memo[k]
        half = go(k // 2)
        memo[k] = half * half * (x if k % 2 else 1.0)
        return memo[k]

    return go(n)


def count_primes(n: int) -> int:
    if n < 3:
        return 0
    sieve = bytearray([1]) * n
    sieve[0] = sieve[1] = 0
    for i in range(2, int(n ** 0.5) + 1):
        if sieve[i]:
            sieve[i * i::i] = bytearray(len(range(i * i, n, i)))
    return sum(sieve)
