"""Student A: LeetCode 50, 204, 202, 12."""


def my_pow(x, n):
    if n == 0:
        return 1.0
    if n < 0:
        return 1.0 / my_pow(x, -n)
    half = my_pow(x, n // 2)
    return half * half * (x if n % 2 else 1.0)


def count_primes(n):
    if n <= 2:
        return 0
    composite = [False] * n
    total = 0
    for k in range(2, n):
        if composite[k]:
            continue
        total += 1
        for multiple in range(k * k, n, k):
            composite[multiple] = True
    return total


def is_happy(n):
    seen = set()
    while n != 1 and n not in seen:
        seen.add(n)
        total = 0
        while n:
            n, digit = divmod(n, 10)
            total += digit * digit
        n = total
    return n == 1


def int_to_roman(num):
    thousands = ["", "M", "MM", "MMM"]
    hundreds = ["", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"]
    tens = ["", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"]
    ones = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"]
    return thousands[num // 1000] + hundreds[num // 100 % 10] + tens[num // 10 % 10] + ones[num % 10]
