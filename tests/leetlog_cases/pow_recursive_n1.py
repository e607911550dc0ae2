def my_pow(x: float, n: int) -> float:
    if n == 0:
        return 1.0
    if n < 0:
        return 1 / my_pow(x, -n)
    return x * my_pow(x, n - 1)
