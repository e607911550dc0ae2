def int_to_roman(num: int) -> str:
    pairs = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
             (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    res = ""
    for v, s in pairs:
        while num >= v:
            res += s
            num -= v
    return res


def my_pow(x: float, n: int) -> float:
    if n < 0:
        x, n = 1 / x, -n
    ans = 1.0
    while n:
        if n % 2:
            ans *= x
        x *= x
        n //= 2
    return ans
