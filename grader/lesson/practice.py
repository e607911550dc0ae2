"""The LeetCode practice's one rule: solve any two of the four problems; your best two count.

The suites call the student's functions through ``call``, which files each test under its
problem (a choice group, grader/engine/choice.py) and notes a problem not attempted yet (still
raising NotImplementedError), so the two that count are the ones the student chose. The same rule
is stated in README.md, exercises/leetcode.py, docs/contract.md and the lesson notebook.
"""

from __future__ import annotations

from typing import Any

from grader.core.errors import NotAttempted

PROBLEMS = ("my_pow", "count_primes", "is_happy", "int_to_roman")
BEST_OF = 2
# Shown for the checks of a problem that does not count (report/i18n.py translates the English).
NOT_COUNTED = (
    "Not counted: the LeetCode practice counts the two problems you did best (solve any two of the four); "
    "this problem is not one of them.",
    "반영하지 않음: LeetCode 연습은 네 문제 중 가장 잘 푼 두 문제만 점수에 넣습니다(아무 두 문제나 "
    "푸세요). 이 문제는 그 둘에 들지 않습니다.",
)


def choose(metadata: dict[str, Any], name: str, attempted: bool = True) -> None:
    """File the running test under problem ``name`` (``json_metadata``: pytest-json-report's fixture)."""
    metadata["choice"] = {"group": name, "best_of": BEST_OF, "attempted": attempted,
                          "reason": {"en": NOT_COUNTED[0], "ko": NOT_COUNTED[1]}}


def call(student: Any, metadata: dict[str, Any], name: str, *args: Any, timeout: float) -> Any:
    """``student.call(name, *args)``, the test filed under its problem."""
    choose(metadata, name)
    try:
        return student.call(name, *args, timeout=timeout)
    except NotAttempted:
        choose(metadata, name, attempted=False)
        raise
