# Student B -- math practice.
import math


def my_pow(x: float, n: int) -> float:
    power = abs(n)
    acc, base = 1.0, x
    for bit in reversed(bin(power)[2:]):
        if bit == "1":
            acc *= base
        base *= base
    return acc if n >= 0 else 1.0 / acc


def count_primes(n: int) -> int:
    if n < 3:
        return 0
    sieve = [True] * n
    sieve[0] = sieve[1] = False
    for p in range(2, math.isqrt(n - 1) + 1):
        if sieve[p]:
            sieve[p * p::p] = [False] * len(range(p * p, n, p))
    return sieve.count(True)


def is_happy(n: int) -> bool:
    # every unhappy number falls into the cycle through 4
    while n not in (1, 4):
        n = sum(int(c) ** 2 for c in str(n))
    return n == 1


NUMERALS = {1000: "M", 900: "CM", 500: "D", 400: "CD", 100: "C", 90: "XC", 50: "L", 40: "XL",
            10: "X", 9: "IX", 5: "V", 4: "IV", 1: "I"}


def int_to_roman(num: int) -> str:
    text = ""
    for value in sorted(NUMERALS, reverse=True):
        while num >= value:
            text += NUMERALS[value]
            num -= value
    return text
