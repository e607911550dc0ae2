class Power:
    """LeetCode's class, made callable: my_pow = Power()."""

    def __call__(self, x: float, n: int) -> float:
        if n < 0:
            return 1 / self(x, -n)
        if n == 0:
            return 1.0
        half = self(x, n // 2)
        return half * half * (x if n & 1 else 1.0)


my_pow = Power()


def count_primes(n: int) -> int:
    if n < 3:
        return 0
    flags = [True] * n
    flags[0] = flags[1] = False
    for p in range(2, int(n ** 0.5) + 1):
        if flags[p]:
            for m in range(p * p, n, p):
                flags[m] = False
    return sum(flags)
