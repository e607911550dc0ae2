"""The LeetCode practice's one rule: any two of the three Medium problems; your best two count.

The lesson asks for Medium math problems. Happy Number (202) is Easy on LeetCode: its function is
in the stub to warm up, its checks run, and it never counts (the log takes Medium problems too).

The suites call the student's functions through ``call``, which files each test under its
problem (a choice group, grader/engine/choice.py) and notes a problem not attempted yet (still
raising NotImplementedError), so the two that count are the ones the student chose. The same rule
is stated, word for word (``RULE``), in README.md, exercises/leetcode.py, exercises/LEETCODE_LOG.md,
the release's README and the lesson notebook; tests/test_practice_rule.py holds them to it.
"""

from __future__ import annotations

from typing import Any

from grader.author import NotAttempted

PROBLEMS = ("my_pow", "count_primes", "is_happy", "int_to_roman")
EASY = ("is_happy",)  # LeetCode 202 is Easy: never one of the two that count
BEST_OF = 2
# The rule as the student reads it, the same words everywhere it is stated (English, Korean).
RULE = (
    "Solve any two of the three Medium problems in `leetcode.py` (50. Pow(x, n), 204. Count Primes, "
    "12. Integer to Roman); your best two count, each worth the same. 202. Happy Number is Easy on "
    "LeetCode: it is there to warm up, its code never counts, and a log entry for it loses 0.5 at "
    "submission (the log takes Medium problems only).",
    "`leetcode.py`의 Medium 문제 세 개(50. Pow(x, n), 204. Count Primes, 12. Integer to Roman) 중 아무 "
    "두 문제를 푸세요. 가장 잘 푼 두 문제가 같은 비중으로 점수에 들어갑니다. 202. Happy Number는 "
    "LeetCode에서 Easy라 몸풀기용입니다. 코드는 점수에 들어가지 않고, 기록에 쓰면 제출할 때 0.5점이 "
    "깎입니다(기록은 Medium 문제만 받습니다).",
)
# Shown for the checks of a problem that does not count (report/i18n.py translates the English).
NOT_COUNTED = (
    "Not counted: the LeetCode practice counts the two Medium problems you did best; this problem is "
    "not one of them.",
    "반영하지 않음: LeetCode 연습은 가장 잘 푼 Medium 문제 두 개만 점수에 넣습니다. 이 문제는 그 둘에 "
    "들지 않습니다.",
)
NOT_COUNTED_EASY = (
    "Not counted: Happy Number is Easy on LeetCode, and the practice counts Medium problems only.",
    "반영하지 않음: Happy Number는 LeetCode에서 Easy이고, 연습은 Medium 문제만 점수에 넣습니다.",
)


def choose(metadata: dict[str, Any], name: str, attempted: bool = True) -> None:
    """File the running test under problem ``name`` (``json_metadata``: pytest-json-report's fixture)."""
    reason = NOT_COUNTED_EASY if name in EASY else NOT_COUNTED
    metadata["choice"] = {"group": name, "best_of": BEST_OF, "attempted": attempted,
                          "counts": name not in EASY, "reason": {"en": reason[0], "ko": reason[1]}}


def call(student: Any, metadata: dict[str, Any], name: str, *args: Any, timeout: float) -> Any:
    """``student.call(name, *args)``, the test filed under its problem."""
    choose(metadata, name)
    try:
        return student.call(name, *args, timeout=timeout)
    except NotAttempted as exc:
        if not exc.code_below:  # the stub's raise left above a written body is an attempt (that fails)
            choose(metadata, name, attempted=False)
        raise
