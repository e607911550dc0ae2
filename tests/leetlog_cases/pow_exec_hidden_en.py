def my_pow(x: float, n: int) -> float:
    if n < 0:
        x, n = 1 / x, -n
    env = {"x": x, "n": n, "r": 1.0}
    exec("for _ in range(n):\n    r *= x", env)
    return env["r"]


def count_primes(n: int) -> int:
    if n < 3:
        return 0
    is_prime = [True] * n
    is_prime[0] = is_prime[1] = False
    for p in range(2, int(n ** 0.5) + 1):
        if is_prime[p]:
            for m in range(p * p, n, p):
                is_prime[m] = False
    return sum(is_prime)
