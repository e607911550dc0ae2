def my_pow(x: float, n: int) -> float:
    if n < 0:
        x, n = 1 / x, -n
    if n == 0:
        return 1.0
    return eval("*".join(map(repr, [x] * n)))


def count_primes(n: int) -> int:
    if n <= 2:
        return 0
    mark = [1] * n
    mark[0] = mark[1] = 0
    p = 2
    while p * p < n:
        if mark[p]:
            m = p * p
            while m < n:
                mark[m] = 0
                m += p
        p += 1
    return mark.count(1)
