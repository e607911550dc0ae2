"""My solution: LeetCode 50, 204, 202, 12."""


# fast exponentiation, O(log n)
def my_pow(x, n):
    if n == 0:
        return 1.0
    if n < 0:
        return 1.0 / my_pow(x, -n)
    h = my_pow(x, n // 2)
    return h * h * (x if n % 2 else 1.0)


def count_primes(n):
    if n <= 2:
        return 0
    crossed = [False] * n
    count = 0
    for k in range(2, n):
        if crossed[k]:
            continue
        count += 1
        for j in range(k * k, n, k):
            crossed[j] = True
    return count


# detect the loop with a set
def is_happy(n):
    visited = set()
    while n != 1 and n not in visited:
        visited.add(n)
        count = 0
        while n:
            n, d = divmod(n, 10)
            count += d * d
        n = count
    return n == 1


def int_to_roman(num):
    M_ = ["", "M", "MM", "MMM"]
    C_ = ["", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"]
    X_ = ["", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"]
    I_ = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"]
    return M_[num // 1000] + C_[num // 100 % 10] + X_[num // 10 % 10] + I_[num % 10]
