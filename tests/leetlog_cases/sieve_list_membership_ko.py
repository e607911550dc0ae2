def count_primes(n: int) -> int:
    composites = []
    count = 0
    for i in range(2, n):
        if i in composites:
            continue
        count += 1
        for j in range(i * i, n, i):
            composites.append(j)
    return count


def my_pow(x: float, n: int) -> float:
    if n < 0:
        x = 1 / x
        n = -n
    ans = 1.0
    while n > 0:
        n, bit = divmod(n, 2)
        if bit:
            ans *= x
        x *= x
    return ans
