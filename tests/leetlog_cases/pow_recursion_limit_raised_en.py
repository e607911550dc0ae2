import sys

sys.setrecursionlimit(1_000_000)


def my_pow(x: float, n: int) -> float:
    if n < 0:
        return 1 / my_pow(x, -n)
    if n == 0:
        return 1.0
    return x * my_pow(x, n - 1)


def count_primes(n: int) -> int:
    marks = {}
    count = 0
    for i in range(2, n):
        if i not in marks:
            count += 1
            for j in range(i * i, n, i):
                marks[j] = True
    return count
