"""The contract's results.json as types (docs/contract.md), from scoring to every report.

TypedDicts rather than dataclasses: results.json is read back from disk by batch, merge and the
class pages, and a TypedDict is exactly the JSON object with its keys checked by a type checker.
Fields marked NotRequired are absent on some results (an unreadable submission has no versions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol, TypedDict

from typing_extensions import NotRequired

from grader.core.finding import CauseRecord, FindingStatus, SaidRecord

Status = Literal["passed", "failed", "error", "timeout"]
Visibility = Literal["visible", "hidden", "after_due_date", "after_published"]


class Location(TypedDict):
    file: str
    line: int


class WithheldVerdict(TypedDict):
    """A withheld test's recorded verdict (engine/withheld.py): ``passed`` with the score it earned, or
    how it failed with the check's own message (``failed``/``error``/``timeout``)."""

    verdict: Status
    score: NotRequired[float]
    message: NotRequired[SaidRecord]


class Feedback(TypedDict):
    """A failed check's record (grader/core/finding.py's Finding.as_dict): what the reports render."""

    status: FindingStatus
    what: NotRequired[SaidRecord]
    expected: NotRequired[SaidRecord]
    found: NotRequired[SaidRecord]
    cause: NotRequired[CauseRecord]
    fix: NotRequired[SaidRecord]
    command: NotRequired[str]
    explained_by: NotRequired[str]
    where: NotRequired[list[str]]
    document: NotRequired[str]


class TestResult(TypedDict):
    id: str
    task: str | None
    status: Status
    score: float
    max_score: float
    visibility: Visibility
    message: str
    messages: SaidRecord
    duration: float
    location: NotRequired[Location]
    withheld: NotRequired[WithheldVerdict]  # a flagged submission: the verdict held for review
    figure: NotRequired[dict]  # a failed table check's two tables, for the report's figure (lesson/pe_checks)
    feedback: NotRequired[Feedback]  # every test that did not pass: its record
    reused: NotRequired[bool]  # a warm re-grade took it from the last run: what it read is unchanged


class SkippedTest(TypedDict):
    id: str
    task: str | None
    reason: str
    messages: NotRequired[SaidRecord]  # the reason in both languages, where the lesson gave one
    not_counted: NotRequired[dict]  # a practice problem outside the best two: {"group", "tests"}


class TaskTotal(TypedDict):
    score: float
    max_score: float
    passed: int
    total: int


class TaskPoints(TypedDict):
    score: float
    max_score: float


class Previous(TypedDict):
    """The last comparable run in the same output folder (engine/history.py)."""

    score: float
    max_score: float
    tasks: dict[str, TaskPoints]
    when: str  # ISO 8601, UTC
    failed: list[str]  # ids of the tests that did not pass


class Filter(TypedDict):
    """A run limited by `grade -k` (engine/history.py)."""

    keyword: str
    full: NotRequired[dict]  # the full run kept beside it: score, max_score, report
    report: NotRequired[str]  # where this run's feedback.html went (beside the full run's)


class TaskTitle(TypedDict):
    name: str
    en: str
    ko: str


class LessonRecord(TypedDict):
    """The lesson a result was graded against (engine/lessons.py: lesson_record)."""

    name: str  # its registered name (`--lesson`), or its module where it is not registered
    module: str
    version: str
    title: dict[str, str]  # "en", "ko"
    tasks: list[TaskTitle]  # in report order


class Results(TypedDict):
    schema: int
    submission: str
    score: float
    max_score: float
    suites: list[str]
    isolation: str
    tests: list[TestResult]
    tasks: dict[str, TaskTotal]
    skipped: list[SkippedTest]
    lang: str
    versions: NotRequired[dict[str, str]]
    kind: NotRequired[str]
    files: NotRequired[list[str]]
    dropped: NotRequired[list[dict]]
    artifacts: NotRequired[dict]
    worker: NotRequired[dict]
    duration: NotRequired[float]
    error: NotRequired[str]  # the submission could not be read (score 0)
    status: NotRequired[str]  # batch placeholders: unreadable | timeout | error
    review: NotRequired[dict]  # the tamper scan: {"flagged": bool, "reasons": [...]} (core/tamper.py)
    replay: NotRequired[dict]  # the seed and what it was made from (core/seeds.py)
    final: NotRequired[dict]  # the term's total and its steps (engine/classmodel.py: final_section)
    previous: NotRequired[Previous]  # the last comparable run of the same output folder
    filter: NotRequired[Filter]  # a `grade -k` run: only some tests ran
    lesson: NotRequired[LessonRecord]  # absent from results written before lessons were recorded
    ta_checks: NotRequired[list[dict]]  # checks passed provisionally, for a TA (engine/tachecks.py)
    # the submission is another lesson's (engine/other_lesson.py): {"name", "title", "project", "files"}
    other_lesson: NotRequired[dict]


# What the reports read: a Results, or a view of one made for a reader (report/gradescope.py's
# visible_view and page_view leave some tests out and count them in ``withheld``).
ResultsView = Mapping[str, Any]


class Progress(Protocol):
    """What the plugin reports a run's progress to (report/terminal.py draws it)."""

    def start(self, total: int) -> None: ...

    def advance(self, nodeid: str) -> None: ...

    def close(self) -> None: ...
