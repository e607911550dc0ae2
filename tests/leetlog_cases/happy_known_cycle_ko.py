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


def is_happy(n: int) -> bool:
    cycle = {4, 16, 37, 58, 89, 145, 42, 20}
    while n != 1 and n not in cycle:
        n = sum(int(c) * int(c) for c in str(n))
    return n == 1
