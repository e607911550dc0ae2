import math


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


def count_primes(n: int) -> int:
    nums = list(range(2, n))
    for p in range(2, math.isqrt(max(n - 1, 0)) + 1):
        for m in range(p * p, n, p):
            try:
                nums.remove(m)
            except ValueError:
                pass
    return len(nums)


def is_happy(n: int) -> bool:
    seen = set()
    while n != 1 and n not in seen:
        seen.add(n)
        n = sum(int(d) ** 2 for d in str(n))
    return n == 1


def int_to_roman(num: int) -> str:
    pairs = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
             (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    out = []
    for value, sym in pairs:
        while num >= value:
            out.append(sym)
            num -= value
    return "".join(out)
