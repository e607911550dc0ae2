class Solution:
    def myPow(self, x: float, n: int) -> float:
        if n < 0:
            x, n = 1 / x, -n
        result = 1.0
        while n:
            if n & 1:
                result *= x
            x *= x
            n >>= 1
        return result


my_pow = Solution().myPow


def count_primes(n: int) -> int:
    if n < 3:
        return 0
    flags = [True] * n
    flags[0] = flags[1] = False
    i = 2
    while i * i < n:
        if flags[i]:
            flags[i * i:n:i] = [False] * len(range(i * i, n, i))
        i += 1
    return sum(flags)


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
