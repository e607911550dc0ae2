import bisect

_LIMIT = 5_000_000
_flags = bytearray([1]) * _LIMIT
_flags[0] = _flags[1] = 0
for _i in range(2, int(_LIMIT ** 0.5) + 1):
    if _flags[_i]:
        _flags[_i * _i::_i] = bytes(len(range(_i * _i, _LIMIT, _i)))
_PRIMES = [i for i in range(_LIMIT) if _flags[i]]


def count_primes(n: int) -> int:
    return bisect.bisect_left(_PRIMES, n)


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
