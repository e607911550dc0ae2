"""Failures in Korean and English, written like a TA would say them, each with its record.

A test that compares values fails with ``fail_check(check(what, expected, found, cause=..., fix=...))``
(``expect_check`` under a condition): the record (grader/core/finding.py) goes to results.json and the
reports, and the student's message is worded from it. ``fail(en, ko)`` / ``expect(cond, en, ko)`` fail
with a message shown whole. Problems of the student's process (an exception, a crash, a hang) get
messages and records here too, so every test reads the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, NoReturn

from grader.core.errors import (
    ImportFailed,
    MissingName,
    NotAttempted,
    StudentProblem,
    StudentRaised,
    WorkerCrashed,
    WorkerTimeout,
)
from grader.core.finding import Cause, Finding, FindingStatus, Said
from grader.core.lang import particle, place_ko
from grader.core.text import BINARY_KINDS

# A message in both languages: what a student reads (kept under its old name for the suites' imports).
Message = Said


class GradeFailure(AssertionError):
    """A test's verdict: its record (``finding``) and the words the student reads (``message``)."""

    def __init__(self, en: str, ko: str, finding: Finding | None = None) -> None:
        super().__init__(en)
        # not `.msg`: pytest reads an AssertionError's `.msg` as a string
        self.message = Message(en, ko)
        self.finding = finding if finding is not None else Finding()
        # What the report can draw (a lesson's picture: the student's table beside the right one), or None.
        self.figure: dict | None = None


def fail(en: str, ko: str, figure: dict | None = None, *, cause: Cause | None = None,
         fix: Said | None = None, status: FindingStatus = "failed", document: str | None = None,
         command: str | None = None, where: tuple[str, ...] = ()) -> NoReturn:
    """Fail the test with this message, shown whole (and, for the report to draw, a ``figure``: e.g. the
    lesson's table_figure, in its package). ``cause`` and ``fix``, where the message has
    them, are shown beside it; a failure that compares values is ``fail_check``'s."""
    exc = GradeFailure(en, ko, Finding(cause=cause, fix=fix, status=status,
                                       document=document, command=command, where=tuple(where)))
    exc.figure = figure
    raise exc


def expect(condition: bool, en: str, ko: str, **record: Any) -> None:
    if not condition:
        fail(en, ko, **record)


def fail_check(finding: Finding, wording: Said | None = None, figure: dict | None = None) -> NoReturn:
    """Fail the test with ``finding``, worded by ``wording`` (templates over the parts, see ``worded``)."""
    message = worded(finding, wording)
    exc = GradeFailure(message.en, message.ko, finding)
    exc.figure = figure
    raise exc


def expect_check(condition: bool, finding: Finding, wording: Said | None = None) -> None:
    if not condition:
        fail_check(finding, wording)


def check(what: Said | str | None, expected: Said, found: Said, *, cause: Cause | None = None,
          fix: Said | None = None, explained_by: str | None = None, command: str | None = None) -> Finding:
    """A comparison finding; a plain ``what`` (code, a call) reads the same in both languages."""
    if isinstance(what, str):
        what = Said(what, what)
    return Finding(what=what, expected=expected, found=found, cause=cause, fix=fix,
                   explained_by=explained_by, command=command)


# The TA grammar: "X: expected A; found B. Likely cause: C. Fix: F" and
# "X: A이어야 하는데 B입니다. 원인 추정: C. 고치는 방법: F" (Korean ``expected`` ends in "함" as shown).
_DEFAULT = Said("{lead}expected {expected}; found {found}.{tail}",
                "{lead}{expected_stem} 하는데 {found}.{tail}")
_CAUSE_LABEL = Said("Likely cause", "원인 추정")
_FIX_LABEL = Said("Fix", "고치는 방법")


def worded(finding: Finding, wording: Said | None = None) -> Said:
    """The finding in words, in both languages.

    ``wording`` holds ``str.format`` templates over the parts: ``{what}``, ``{expected}``,
    ``{expected_stem}`` (the Korean clause without its final "함"), ``{found}``, ``{cause}``, ``{fix}``,
    and ``{lead}`` ("WHAT: " or nothing) and ``{tail}`` (" Likely cause: C. Fix: F", " F" or nothing).
    Without it, the TA grammar above. A check whose sentence has another order words it itself, so
    the message students read stays a sentence while the record stays its parts.
    """
    def one(lang: str) -> str:
        get = lambda value: value.get(lang) if value is not None else ""  # noqa: E731
        what, cause, fix = get(finding.what), get(finding.cause), get(finding.fix)
        tail = ""
        if cause:
            tail = f" {_CAUSE_LABEL.get(lang)}: {cause}" + (f" {_FIX_LABEL.get(lang)}: {fix}" if fix else "")
        elif fix:
            tail = f" {fix}"
        expected = get(finding.expected)
        template = (wording or _DEFAULT).get(lang)
        return template.format(what=what, expected=expected, expected_stem=expected.removesuffix(" 함"),
                               found=get(finding.found), cause=cause, fix=fix,
                               lead=f"{what}: " if what else "", tail=tail)

    return Said(one("en"), one("ko"))


def with_cause(exc: GradeFailure, cause: Cause) -> None:
    """Give a failure the likely cause it lacked (a picture's diagnosis): in its record, and said after
    its words."""
    if exc.finding.cause is not None:
        return
    exc.finding = replace(exc.finding, cause=cause)
    exc.message = Message(f"{exc.message.en} {_CAUSE_LABEL.en}: {cause.en}",
                          f"{exc.message.ko} {_CAUSE_LABEL.ko}: {cause.ko}")
    exc.args = (exc.message.en,)


def _at(where: dict | None) -> tuple[str, str]:
    if not where:
        return "", ""
    loc = f"{where.get('file')}:{where.get('line')}"
    code = str(where.get("code") or "").strip()
    tail = f" `{code[:120]}`" if code else ""
    return f" (at {loc}{tail})", f" ({place_ko(loc)}{tail})"


_MISSING = re.compile(r"(\S+\.py) does not define `([^`]+)`$")


def describe_problem(exc: BaseException) -> tuple[Message, str]:
    """A message and a status (failed/error/timeout) for any test exception."""
    if isinstance(exc, GradeFailure):
        return exc.message, "failed"
    if isinstance(exc, NotAttempted) and exc.code_below:
        en_at, ko_at = _at(exc.where)
        return Message(
            f"Your code never runs: the stub's `raise NotImplementedError` is still above it{en_at}, so "
            "every call stops there. Delete that line.",
            f"작성한 코드가 실행되지 않습니다: 스텁의 `raise NotImplementedError`가 코드 위에 남아 있어"
            f"{ko_at} 모든 호출이 거기서 멈춥니다. 그 줄을 지우세요.",
        ), "failed"
    if isinstance(exc, NotAttempted):
        en_at, ko_at = _at(exc.where)
        return Message(
            # no verb for where it is read (a shell's grade, a kernel's check()): the reports add it
            f"Not attempted yet: this still raises NotImplementedError{en_at}. Write your code in place "
            "of the raise.",
            f"아직 구현하지 않았습니다: 여전히 NotImplementedError가 발생합니다{ko_at}. raise 자리에 코드를 "
            "작성하세요.",
        ), "failed"
    if isinstance(exc, MissingName):
        missing = _MISSING.match(exc.message)  # runtime/server.py's words
        ko = (f"{missing[1]}에 {particle(f'`{missing[2]}`', '이')} 없습니다" if missing else exc.message)
        return Message(
            f"Expected a definition the lesson asks for; found none: {exc.message}. Check the spelling and "
            "that it is at module level.",
            f"실습에서 요구하는 정의가 있어야 하는데 찾지 못했습니다: {ko}. 철자와, 모듈 최상위에 "
            "정의했는지 확인하세요.",
        ), "failed"
    if isinstance(exc, ImportFailed):
        en_at, ko_at = _at(exc.where)
        if exc.kind == "missing" and exc.near:
            return Message(
                f"Expected {exc.module}.py in the submission; it is not there, but {exc.near} is: rename it "
                f"to {exc.module}.py (the grader imports it by that name).",
                f"제출물에 {exc.module}.py가 있어야 하는데 없고, 대신 {particle(exc.near, '이')} 있습니다: "
                f"{exc.module}.py로 이름을 바꾸세요(채점기는 이 이름으로 import합니다).",
            ), "failed"
        if exc.kind == "missing":
            return Message(
                f"Expected {exc.module}.py in the submission; it is not there.",
                f"제출물에 {exc.module}.py가 있어야 하는데 없습니다.",
            ), "failed"
        if exc.kind == "timeout":
            return Message(
                f"Importing {exc.module}.py never finished: code at module level runs forever (an infinite "
                "loop, or a long training run outside a function?). Put experiments under "
                "`if __name__ == \"__main__\":`.",
                f"{exc.module}.py를 import하는 것이 끝나지 않았습니다: 모듈 최상위 코드가 끝나지 "
                "않습니다(무한 루프나 함수 밖의 긴 학습?). 실험 코드는 `if __name__ == \"__main__\":` 아래에 "
                "두세요.",
            ), "timeout"
        if exc.kind == "NotATextFile":  # the staged stub of a binary file (engine/submission.py)
            en, ko = BINARY_KINDS.get(exc.message.strip("'\""), BINARY_KINDS["binary"])
            return Message(
                f"{exc.module}.py is not a text file: it looks like {en}. Submit the Python source itself "
                f"(open it in an editor: you should see your code).",
                f"{exc.module}.py는 텍스트 파일이 아닙니다: {ko}로 보입니다. 파이썬 소스 파일 자체를 "
                "제출하세요(편집기로 열었을 때 코드가 보여야 합니다).",
            ), "failed"
        if exc.kind == "crash":
            return Message(
                f"Importing {exc.module}.py ended the process ({exc.message}): module-level code called exit "
                "or crashed.",
                f"{exc.module}.py를 import하는 중 프로세스가 끝났습니다({exc.message}): 모듈 최상위 코드가 "
                "exit를 호출했거나 비정상 종료했습니다.",
            ), "error"
        return Message(
            f"{exc.module}.py could not be imported: {exc.kind}: {exc.message}{en_at}. Every test of this "
            f"file fails until it imports; run `python -c \"import {exc.module}\"` to see the error.",
            f"{exc.module}.py를 import할 수 없습니다: {exc.kind}: {exc.message}{ko_at}. import가 될 때까지 "
            f"이 파일의 모든 테스트가 실패합니다. `python -c \"import {exc.module}\"`로 오류를 확인하세요.",
        ), "failed"
    if isinstance(exc, WorkerTimeout) and exc.whole:
        return Message(
            f"The whole submission's time ({exc.seconds:g} s) ran out before this check: earlier calls used "
            "it up (an infinite loop, or far more work than needed, in one of them).",
            f"제출물 전체에 주어진 시간({exc.seconds:g}초)이 이 검사 전에 다 떨어졌습니다: 앞선 호출이 다 "
            "썼습니다(그중 하나의 무한 루프나 필요 이상으로 많은 계산).",
        ), "timeout"
    if isinstance(exc, WorkerTimeout):
        what_en = f"`{exc.what}`" if exc.what else "Your code"
        what_ko = f"`{exc.what}`" if exc.what else "코드"
        return Message(
            f"{what_en} gave no answer within {exc.seconds:g} s and was stopped: an infinite loop, or far "
            "more work than needed?",
            f"{particle(what_ko, '이')} {exc.seconds:g}초 안에 답하지 않아 중단했습니다: 무한 루프이거나 "
            "필요 이상으로 많은 계산을 하고 있지 않나요?",
        ), "timeout"
    if isinstance(exc, WorkerCrashed) and "over the disk budget" in str(exc):  # grader/sandbox/budget.py
        return Message(
            f"The process running your code was stopped: it wrote more to disk than allowed ({exc}). "
            "Write less, or delete temporary files as you go.",
            f"코드를 실행하던 프로세스를 중단했습니다: 허용된 것보다 많이 디스크에 썼습니다({exc}). "
            "덜 쓰거나 임시 파일을 그때그때 지우세요.",
        ), "error"
    if isinstance(exc, WorkerCrashed) and exc.never_started:
        return Message(  # the worker never ran the student's code: gk_init or the zygote could not start it
            "The grader could not start the process that runs your code (a busy machine?). This is not "
            "your code's doing: run it again.",
            "채점기가 코드를 실행할 프로세스를 시작하지 못했습니다(컴퓨터가 바쁜 경우 등). 코드의 문제가 "
            "아니니 다시 실행하세요.",
        ), "error"
    if isinstance(exc, WorkerCrashed):
        return Message(
            f"The process running your code died ({exc}): os._exit, a crash in native code, or the memory "
            "limit.",
            f"코드를 실행하던 프로세스가 죽었습니다({exc}): os._exit, 네이티브 코드 충돌, 또는 메모리 한도 "
            "초과일 수 있습니다.",
        ), "error"
    if isinstance(exc, StudentRaised):
        en_at, ko_at = _at(exc.where)
        return Message(
            f"Your code raised {exc.type_name}: {exc.message}{en_at}. The test expected a result here.",
            f"코드에서 {exc.type_name}: {exc.message} 예외가 발생했습니다{ko_at}. 이 테스트는 결과값을 "
            "기대했습니다.",
        ), "failed"
    if isinstance(exc, StudentProblem):
        return Message(str(exc), str(exc)), getattr(exc, "status", "failed")
    text = f"{type(exc).__name__}: {exc}"[:500]
    return Message(
        f"The grader could not finish this test ({text}). This is likely a grader problem, not yours: tell "
        "the instructor.",
        f"채점기가 이 테스트를 끝내지 못했습니다({text}). 학생 코드가 아니라 채점기 문제일 가능성이 큽니다: "
        "강사에게 알려 주세요.",
    ), "error"


def finding_of(exc: BaseException) -> Finding:
    """The record of any test exception (its words: ``describe_problem``): a check's own, "not
    started" for a function still raising NotImplementedError, else a message shown whole, with the
    place in the student's code it names and the command that shows the error."""
    if isinstance(exc, GradeFailure):
        return exc.finding
    if isinstance(exc, NotAttempted):  # the stub's raise left above written code: an attempt that fails
        return Finding(status="failed" if exc.code_below else "not_started", where=_place(exc.where))
    # a file that does not import, or lacks a name, fails every check that needs it, in any task: one
    # cause (report/cards.py's SHARED_CAUSES), told once
    if isinstance(exc, ImportFailed):
        # reversal.py fails to import because embedding.py it imports has the error: embedding.py's cause
        broken = str((exc.where or {}).get("file") or f"{exc.module}.py")
        absent = re.fullmatch(r"No module named '(\w+)'", exc.message.strip())
        if exc.kind == "ModuleNotFoundError" and absent:  # reversal.py imports embedding.py, not there:
            broken = f"{absent[1]}.py"  # that missing file's cause, one card with its own checks
        shared = Cause("", "", f"import:{broken.rsplit('/', 1)[-1].removesuffix('.py')}")
        if exc.kind not in ("missing", "timeout", "NotATextFile", "crash"):
            return Finding(command=f'python -c "import {exc.module}"', where=_place(exc.where), cause=shared)
        return Finding(cause=shared)
    if isinstance(exc, MissingName):
        return Finding(cause=Cause("", "", f"missing:{exc.message}"))
    if isinstance(exc, StudentRaised):
        return Finding(where=_place(exc.where))
    return Finding()


def _place(where: dict | None) -> tuple[str, ...]:
    """"file:line" of a place the worker reported (the same as ``_at`` says), or none."""
    return (f"{where.get('file')}:{where.get('line')}",) if where else ()


@dataclass(frozen=True)
class Evidence:
    """What the trusted side read in the student's source (a lesson's structure checks):
    ``ok``, or why not."""

    ok: bool
    en: str = ""
    ko: str = ""
