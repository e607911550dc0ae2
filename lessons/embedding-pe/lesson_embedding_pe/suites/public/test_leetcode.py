"""Public checks of the LeetCode practice: solve any two of the four problems; your best two count.

Each problem is worth the same (2 points here); the checks of the two problems that count are
scored, the others are listed as not counted (practice.py, grader/engine/choice.py).
"""

import pytest

from grader.author import Said, check, expect_check, particle
from lesson_embedding_pe import practice, structure

CASES = [
    ("my_pow", (2.0, 10), 1024.0),
    ("my_pow", (2.0, -2), 0.25),
    ("count_primes", (13,), 5),  # primes strictly below a prime n: 13 itself is not counted
    ("count_primes", (0,), 0),
    ("is_happy", (19,), True),
    ("is_happy", (2,), False),
    ("int_to_roman", (58,), "LVIII"),
    ("int_to_roman", (1994,), "MCMXCIV"),
]


@pytest.mark.task("leetcode_practice", points=1.0)
@pytest.mark.parametrize("name,args,expected", CASES, ids=[f"{c[0]}{c[1]}" for c in CASES])
def test_examples(student, json_metadata, name, args, expected):
    found = practice.call(student, json_metadata, name, *args, timeout=5)
    if isinstance(expected, float) and isinstance(found, (int, float)):
        ok = abs(found - expected) <= 1e-9 * max(1.0, abs(expected))
    else:
        ok = found == expected and type(found) is type(expected)
    call = f"{name}({', '.join(map(repr, args))})"
    expect_check(ok, check(call, Said(f"{expected!r}", f"{particle(repr(expected), '이어야')} 함"),
                           Said(f"{found!r}", f"{found!r}입니다")))
    if name == "my_pow":  # the stub's rule: the power computed by hand, not x ** n or math.pow
        student.source_shows(structure.powers_by_hand(student.sources), call)
