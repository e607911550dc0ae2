def my_pow(x: float, n: int) -> float:
    if n < 0:
        x = 1 / x
        n = -n
    ans = 1.0
    while n > 0:
        if n % 2 == 1:
            ans *= x
        x *= x
        n //= 2
    return ans


def _is_prime(m: int) -> bool:
    if m < 4:
        return m > 1
    if m % 2 == 0 or m % 3 == 0:
        return False
    k = 5
    while k * k <= m:
        if m % k == 0 or m % (k + 2) == 0:
            return False
        k += 6
    return True


def count_primes(n: int) -> int:
    return sum(1 for m in range(2, n) if _is_prime(m))
