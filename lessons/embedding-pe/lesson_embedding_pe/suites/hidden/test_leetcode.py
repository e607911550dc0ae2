"""Hidden edge cases of the LeetCode practice: five per problem; the two problems that count are scored.

Solve any two of the four; your best two count (practice.py). A problem not
attempted yet scores 0 without an error.
"""

import pytest

from grader.author import Said, check, expect_check, particle
from lesson_embedding_pe import practice, reference

# Every function at a mid-size prime n (997): an odd n past the small cases, a prime count_primes must not
# count, and a call a function that hangs past small inputs times out on (each call is time-bound).
MID_PRIME = ("a mid-size prime n (997): past the small cases, and count_primes counts primes strictly below "
             "it", "중간 크기의 소수 n(997): 작은 경우를 넘어서며, count_primes는 이보다 작은 소수만 셉니다")
EDGE = [
    ("my_pow", (2.0, -2147483648), ("minimum 32-bit exponent: negate n only after converting, or use -(n+1)",
                                    "32비트 최소 지수: 부호를 바꾸기 전에 변환하거나 -(n+1)을 쓰세요")),
    ("my_pow", (-2.0, 3), ("negative base with an odd exponent", "음수 밑과 홀수 지수")),
    ("my_pow", (1.0000001, 2**31 - 1), ("huge exponent: needs fast exponentiation (halving n), not a loop",
                                        "매우 큰 지수: 반복문이 아니라 빠른 "
                                        "거듭제곱(n을 절반씩)이 필요합니다")),
    ("my_pow", (0.5, -3), ("negative exponent: 1 / x^|n|", "음수 지수: 1 / x^|n|")),
    ("my_pow", (1.001, 997), MID_PRIME),
    ("count_primes", (1,), ("n = 1: no primes below 1", "n = 1: 1보다 작은 소수는 없습니다")),
    ("count_primes", (2,), ("n = 2: primes strictly below n, so 2 itself is not counted",
                            "n = 2: n보다 작은 소수만 세므로 2는 세지 않습니다")),
    ("count_primes", (3,), ("n = 3: only 2", "n = 3: 2 하나뿐")),
    ("count_primes", (997,), MID_PRIME),
    ("count_primes", (5000000,), ("large n: a sieve (O(n log log n)), not trial division",
                                  "큰 n: 나눗셈 시도가 아니라 체(O(n log log n))가 필요합니다")),
    ("is_happy", (1,), ("1 is happy", "1은 happy number입니다")),
    ("is_happy", (4,), ("4 enters the unhappy cycle 4 → 16 → 37 → ... → 4: detect the cycle",
                        "4는 4 → 16 → 37 → ... → 4 순환에 빠집니다: 순환을 감지하세요")),
    ("is_happy", (7,), ("7 is happy", "7은 happy number입니다")),
    ("is_happy", (2147483647,), ("large input", "큰 입력")),
    ("is_happy", (997,), MID_PRIME),
    ("int_to_roman", (3999,), ("the maximum, MMMCMXCIX", "최댓값 MMMCMXCIX")),
    ("int_to_roman", (4,), ("subtractive form IV", "빼기 표기 IV")),
    ("int_to_roman", (944,), ("CM, XL and IV together", "CM, XL, IV가 함께 나옴")),
    ("int_to_roman", (1,), ("the minimum, I", "최솟값 I")),
    ("int_to_roman", (997,), MID_PRIME),
]


@pytest.mark.task("leetcode_practice", points=0.4)  # five cases a problem: 2 points, as before
@pytest.mark.parametrize("name,args,why", EDGE, ids=[f"{e[0]}{e[1]}" for e in EDGE])
def test_edge_cases(student, json_metadata, name, args, why):
    expected = getattr(reference.load().leetcode, name)(*args)
    found = practice.call(student, json_metadata, name, *args, timeout=10)
    call = f"{name}({', '.join(map(repr, args))})"
    if isinstance(expected, float):
        number = isinstance(found, (int, float)) and not isinstance(found, bool)
        ok = number and abs(found - expected) <= 1e-6 * max(1.0, abs(expected))
    else:
        ok = found == expected and type(found) is type(expected)
    # the edge case is told where a fix goes: after the comparison ("...; found X. Edge case: ...")
    expect_check(ok, check(call, Said(f"{expected!r}", f"{particle(repr(expected), '이어야')} 함"),
                           Said(f"{found!r}", f"{found!r}입니다"),
                           fix=Said(f"Edge case: {why[0]}.", f"경계 사례: {why[1]}.")))
