"""LeetCode 수학 연습: Medium 세 문제 중 두 문제 / LeetCode math practice: two of the three Medium problems.

[한국어]
`leetcode.py`의 Medium 문제 세 개(50. Pow(x, n), 204. Count
Primes, 12. Integer to Roman) 중 아무 두 문제를 푸세요. 가장 잘 푼 두
문제가 같은 비중으로 점수에 들어갑니다. 202. Happy Number는 LeetCode에서
Easy라 몸풀기용입니다. 코드는 점수에 들어가지 않고, 기록에 쓰면 제출할 때 0.5점이
깎입니다(기록은 Medium 문제만 받습니다).
고르지 않은 함수는 NotImplementedError를 그대로 두면 됩니다: "시도하지 않음"이며 틀린 것이 아닙니다.
고른 두 문제의 풀이 과정은 LEETCODE_LOG.md에 적으세요.
채점: 저장소 루트에서 `grade`를 실행하면 ./exercises를 공개 테스트로 채점합니다.
숨은 테스트는 제출할 때 실행됩니다.

[English]
Solve any two of the three Medium problems in `leetcode.py` (50. Pow(x, n), 204. Count Primes, 12.
Integer to Roman); your best two count, each worth the same. 202. Happy Number is Easy on LeetCode:
it is there to warm up, its code never counts, and a log entry for it loses 0.5 at submission (the
log takes Medium problems only).
Leave the others raising NotImplementedError: that is "not attempted", not "wrong". Keep your notes
on the two in LEETCODE_LOG.md. Grading: `grade` from the repository root (public tests on
./exercises); the hidden tests run when you submit.
"""
from __future__ import annotations


def my_pow(x: float, n: int) -> float:
    """LeetCode 50. Pow(x, n).

    [한국어] x의 n제곱. n은 음수일 수 있고 -2**31도 들어옵니다. 반복 제곱으로
    O(log |n|)에 푸세요. x ** n이나 math.pow 한 줄은 연습이 되지 않습니다.
    [English] x to the power n; n may be negative, down to -2**31. Use
    exponentiation by squaring, O(log |n|).
    """
    if n < 0:
        # Python ints do not overflow, so -(-2**31) is safe here.
        x, n = 1.0 / x, -n
    result = 1.0
    while n:
        if n & 1:
            result *= x
        x *= x
        n >>= 1
    return result


def count_primes(n: int) -> int:
    """LeetCode 204. Count Primes.

    [한국어] n보다 작은(n은 제외) 소수의 개수. n = 0, 1, 2이면 0. 에라토스테네스의 체.
    [English] Number of primes strictly less than n (0 for n = 0, 1, 2). Sieve.
    """
    raise NotImplementedError("leetcode_practice: count_primes")


def is_happy(n: int) -> bool:
    """LeetCode 202. Happy Number (Easy: 몸풀기용, 점수에 들어가지 않음 / warm-up, never counts).

    [한국어] 각 자리 숫자의 제곱합을 반복해 1이 되면 True, 순환하면 False.
    [English] True when repeatedly summing the squares of the digits reaches 1,
    False when it loops forever.
    """
    raise NotImplementedError("leetcode_practice: is_happy")


def int_to_roman(num: int) -> str:
    """LeetCode 12. Integer to Roman.

    [한국어] 1 <= num <= 3999를 로마 숫자 문자열로(예: 1994 -> "MCMXCIV").
    [English] Roman numeral for 1 <= num <= 3999 (e.g. 1994 -> "MCMXCIV").
    """
    raise NotImplementedError("leetcode_practice: int_to_roman")


# quick check (forgot k += 1: never ends)
k = 0
checks = []
while k < 5:
    checks.append(my_pow(2.0, k))
    checks = checks[-5:]
