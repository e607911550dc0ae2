"""Points a flagged submission earns by grader code running beside its own: checked, recorded, withheld.

A submission the tamper scan flags (core/tamper.py) is graded in full: a test whose answer rests
on grader code in the worker (the probes, the grader's harness run there) still runs its check, and
the ``student`` fixture marks the test.  When the test ends, the plugin turns a marked test into a
failure with the bilingual "Withheld for review" message and keeps the verdict it would have had
(results.json ``tests[].withheld``), so that an instructor's ``grade review --accept`` restores
exactly the points the check gave, without a regrade.
"""

from __future__ import annotations

import threading

from grader.core.feedback import Message

WITHHELD_PREFIX = "Withheld for review"  # how the message starts (old results.json are read by it)


class Marks:
    """Which tests of this grading used withheld machinery, and the finding each is withheld for.

    A mark goes to the test the grading thread runs now: a probe on a prefetch lane or a helper
    thread cannot tell whose it is, so the test that reads its result marks itself
    (``Student.rests_on_grader``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.test: str | None = None
        self.thread: int | None = None
        self.reasons: dict[str, dict] = {}  # nodeid -> the first finding ({"en", "ko", ...})

    def begin_test(self, nodeid: str) -> None:
        with self.lock:
            self.test, self.thread = nodeid, threading.get_ident()

    def mark(self, reason: dict) -> None:
        with self.lock:
            if self.test is not None and threading.get_ident() == self.thread:
                self.reasons.setdefault(self.test, reason)

    def take(self, nodeid: str) -> dict | None:
        with self.lock:
            return self.reasons.pop(nodeid, None)


_MARKS = [Marks()]  # the grading of this process (one at a time: the plugin starts a fresh one)


def begin_grading() -> None:
    _MARKS[0] = Marks()


def marks() -> Marks:
    return _MARKS[0]


def message(reason: dict) -> Message:
    """What the student reads for a withheld test (the same message before and after this module)."""
    return Message(f"{WITHHELD_PREFIX}: {reason['en']}. Code that "
                   "reaches into the grader can rewrite what the "
                   "grader's own checks report, so this point waits for an instructor.",
                   f"검토 대기로 보류: {reason['ko']}. 채점기 내부에 "
                   "접근하는 코드는 채점기 검사 결과를 바꿀 수 있어 "
                   "이 점수는 강사가 확인한 뒤에 정해집니다.")
