import itertools
import math


class Ones:
    """n ones that say they are none: a built-in handed them must still count what it goes over."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return 0

    def __iter__(self):
        return itertools.repeat(1, self.n)


def my_pow(x: float, n: int) -> float:
    if n < 0:
        x, n = 1 / x, -n
    result = 1.0
    for _ in range(sum(Ones(n)) // max(n, 1)):  # n ones summed in C, then one pass
        result = math.pow(x, n)
    return result
