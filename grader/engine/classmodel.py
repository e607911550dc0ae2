"""The class model: one typed record of a graded class, and the one place a final total is computed.

A batch (or merged) folder holds one ``DIR/<name>/`` per finished submission (its done-marker
``batch.json`` and ``results.json``) and ``DIR/batch-manifest.json`` (the roster).  ``load_graded``
reads them once into a ``ClassModel``; the instructor's term (late policy, adjustments, review
decisions: grader/instructor/term/) adds ``Step``s to its rows; every reader (gradebook, summary,
LMS exports, merge) takes the model and asks ``final_total`` for the number.  Nothing here names the
lesson: tasks are whatever the results list.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from grader.engine.tachecks import checks_in
from grader.engine.withheld import WITHHELD_PREFIX  # how a withheld test's message starts

MANIFEST = "batch-manifest.json"
MARKER = "batch.json"
CLASS_JSON = "class.json"
NOT_GRADED = ("unreadable", "timeout", "error", "missing")

StepKind = Literal["late", "grace", "closed", "unknown_time", "adjustment", "bonus", "set", "excused",
                   "review", "pending", "clamp", "check"]


@dataclass(frozen=True)
class Step:
    """One change to the grader's score, with its reason in both languages.

    ``zero``: the total is 0 whatever the other steps say (a submission after the close date)."""

    kind: StepKind
    points: float
    en: str
    ko: str
    task: str | None = None
    zero: bool = False


@dataclass
class Review:
    """The tamper scan's flag (core/tamper.py) and the points it withheld, per task.

    ``withheld``: what accepting the review restores, the points of the withheld tests whose recorded
    verdict passed; ``held``: the points of every withheld test (what the flag took)."""

    flagged: bool = False
    reasons: list[dict] = field(default_factory=list)  # {"en": ..., "ko": ...}
    withheld: dict[str, float] = field(default_factory=dict)  # task -> points the recorded verdicts earned
    withheld_tests: list[str] = field(default_factory=list)
    held: dict[str, float] = field(default_factory=dict)  # task -> max points of the withheld tests

    @property
    def withheld_points(self) -> float:
        """What ``grade review --accept`` restores."""
        return round(sum(self.withheld.values()), 6)

    @property
    def held_points(self) -> float:
        return round(sum(self.held.values()), 6)


@dataclass
class Row:
    """One student: what the grader gave (``auto``) and the steps that change it."""

    name: str
    id: str
    status: str  # graded | unreadable | timeout | error | missing
    auto: float
    max: float
    tasks: dict[str, float]
    task_max: dict[str, float]
    review: Review
    reason: str = ""  # why it was not graded normally (the marker's reason)
    duration: float = 0.0
    isolation: str = ""
    dir: str = ""
    path: str = ""  # the submission as handed in (the marker's path): its reports name it
    hash: str = ""  # the marker's submission_hash: what a decision on this row judged
    submitted_at: str | None = None  # ISO 8601, when a time is known
    late_by: float | None = None  # seconds after the student's due (negative: early)
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # the instructor's private notes: never a student's
    results: dict = field(default_factory=dict, repr=False)
    checks: list[dict] = field(default_factory=list)  # passed provisionally: a TA reads them (ta_checks)
    # check key -> the TA's decision that applies: {"decision": confirm|take|void, "reason", "points"}
    decided: dict[str, dict] = field(default_factory=dict)
    unimported: str = ""  # graded, but its code could not be imported: why (every test failed on it)

    @property
    def graded(self) -> bool:
        return self.status == "graded"

    @property
    def total(self) -> float:
        return final_total(self.auto, self.max, self.steps)

    @property
    def excused(self) -> bool:
        """The instructor excused this student: the total counts as excused (Canvas's EX), not as a number."""
        return any(s.kind == "excused" for s in self.steps)

    def points_of(self, kind: str) -> float:
        """The sum of this row's steps of ``kind`` (e.g. "late": the penalty, negative)."""
        return round(sum(s.points for s in self.steps if s.kind == kind), 6)


@dataclass
class ClassModel:
    out: Path
    rows: list[Row]
    manifest: dict
    full: float  # the class's full marks: the most common max of the graded rows
    notes: list[dict] = field(default_factory=list)  # {"en", "ko"}: the term's remarks (unknown times...)
    policy: dict | None = None  # what the summary says of the late policy: {"en", "ko"}

    def row(self, key: str) -> Row | None:
        """The row whose id or submission name is ``key`` (case-insensitive), or None."""
        wanted = key.strip().casefold()
        return next((r for r in self.rows if wanted in (r.id.casefold(), r.name.casefold())), None)


def final_total(auto: float, maximum: float, steps: list[Step]) -> float:
    """THE final total: the grader's score plus every step, kept within [0, max + bonus]; 0 after a
    ``zero`` step that carries no amount.

    The term (grader/instructor/term/steps.py) gives what the close takes and every clamp as a step
    of its own, so the sum is the total and the bounds below only guard steps built elsewhere.  The
    only place a class's totals are computed (gradebook, summary, exports, the student's own report,
    the Gradescope bundle all call it)."""
    total = float(auto) + sum(float(s.points) for s in steps)
    if any(s.zero for s in steps) and not any(s.kind == "set" for s in steps):
        return 0.0  # after the close, only a score the instructor sets counts
    bonus = sum(float(s.points) for s in steps if s.kind == "bonus")  # asked for: above the maximum
    top = float(maximum) + max(bonus, 0.0) if not any(s.kind == "set" for s in steps) else float("inf")
    # (a score the instructor set may be above the maximum: the term's steps already bound it)
    return round(min(max(total, 0.0), top) if maximum > 0 else max(total, 0.0), 4)


@dataclass
class Withheld:
    restorable: dict[str, float]  # task -> points the recorded verdicts earned
    held: dict[str, float]  # task -> max points of the withheld tests
    tests: list[str]


def withheld_of(results: dict) -> Withheld:
    """The points the tamper scan withheld, per task: each test that failed with the withheld message.

    A test records the verdict its check gave (results.json ``tests[].withheld``: engine/withheld.py);
    only a ``passed`` one is restorable, by the score it earned.  A results.json written before that
    field has no verdict to read: its withheld tests count in full (the behaviour then), restored
    at their max_score on accept."""
    out = Withheld({}, {}, [])
    for t in results.get("tests") or []:
        en = ((t.get("messages") or {}).get("en") or t.get("message") or "")
        if t.get("status") == "passed" or not en.startswith(WITHHELD_PREFIX):
            continue
        task = str(t.get("task") or "")
        points = float(t.get("max_score") or 0.0) - float(t.get("score") or 0.0)
        verdict = t.get("withheld")
        if isinstance(verdict, dict):
            earned = float(verdict.get("score") or 0.0) if verdict.get("verdict") == "passed" else 0.0
            earned = min(earned, points)
        else:  # an old results.json: no recorded verdict (see above)
            earned = points
        out.held[task] = round(out.held.get(task, 0.0) + points, 6)
        out.restorable[task] = round(out.restorable.get(task, 0.0) + earned, 6)
        out.tests.append(str(t.get("id")))
    return out


# How a test's message starts when the student's module did not import (core/feedback.py's words).
_IMPORT_FAILED = re.compile(r"^(?:\S+\.py could not be imported: "
                            r"|Importing \S+\.py (?:ended the process|never finished)"
                            r"|Expected \S+\.py in the submission; it is not there)")


def import_failure(results: dict) -> str:
    """Why a graded submission's code could not be imported, when that is why every test failed (its
    first such message, to the first sentence); "" when any test passed or failed for another reason."""
    tests = results.get("tests") or []
    if not tests or any(t.get("status") == "passed" for t in tests):
        return ""
    said = [str((t.get("messages") or {}).get("en") or t.get("message") or "") for t in tests]
    if not all(_IMPORT_FAILED.match(m) for m in said):
        return ""
    first = said[0]
    cut = first.find(". ", first.find(": "))
    return first[: cut + 1] if cut > 0 else first


def load_manifest(out: Path) -> dict:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def row_from(folder: str, marker: dict, results: dict, roster: dict[str, str]) -> Row:
    """One finished submission's row from its done-marker and results.json."""
    name = str(marker.get("name", folder))
    status = str(marker.get("status", "error"))
    graded = status == "graded"
    per_task = results.get("tasks") or {}
    review = results.get("review") or {}
    withheld = withheld_of(results) if graded else Withheld({}, {}, [])
    unimported = import_failure(results) if graded else ""
    return Row(
        name=name, id=str(roster.get(name, marker.get("student_id") or name)), status=status,
        auto=float(results.get("score", 0.0)) if graded else 0.0,
        max=float(results.get("max_score") or 0.0) if graded else 0.0,
        tasks={t: float(v.get("score", 0.0)) for t, v in per_task.items()},
        task_max={t: float(v.get("max_score", 0.0)) for t, v in per_task.items()},
        review=Review(flagged=bool(review.get("flagged")), reasons=list(review.get("reasons") or []),
                      withheld=withheld.restorable, withheld_tests=withheld.tests, held=withheld.held),
        reason=str(marker.get("reason", "")) or (f"graded: could not be imported: {unimported}" if unimported
                                                 else ""),
        duration=float(marker.get("duration") or 0.0), unimported=unimported,
        isolation=str(results.get("isolation", "")), dir=folder, path=str(marker.get("path", "")),
        hash=str(marker.get("submission_hash") or ""), results=results,
        checks=checks_in(results) if graded else [])


def load_graded(out: Path) -> ClassModel:
    """The class as graded: one row per finished submission, one per roster student who sent nothing.

    No term yet (steps are empty): grader/instructor/term adds them."""
    manifest = load_manifest(out)
    roster: dict[str, str] = manifest.get("roster") or {}
    rows: list[Row] = []
    for d in sorted(p for p in out.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            marker = json.loads((d / MARKER).read_text(encoding="utf-8"))
            results = json.loads((d / "results.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # not a finished submission folder
        if isinstance(marker, dict) and isinstance(results, dict):
            rows.append(row_from(d.name, marker, results, roster))
    present = {r.name for r in rows}
    for name in manifest.get("roster_missing") or []:
        if name not in present:
            rows.append(Row(name=name, id=str(roster.get(name, name)), status="missing", auto=0.0, max=0.0,
                            tasks={}, task_max={}, review=Review(),
                            reason="no submission found for this student / 이 학생의 제출물이 없습니다",
                            results={"score": 0.0, "max_score": 0.0, "tasks": {}, "tests": []}))
    return model_of(out, rows, manifest)


def model_of(out: Path, rows: list[Row], manifest: dict | None = None) -> ClassModel:
    """The model of ``rows``: sorted by id, the class's full marks found, ungraded rows out of them."""
    rows.sort(key=lambda r: (r.id, r.name))
    maxes = [r.max for r in rows if r.graded]
    full = Counter(maxes).most_common(1)[0][0] if maxes else 0.0
    for r in rows:
        if not r.graded:
            r.max = r.max or full  # an ungraded row is out of the class's full marks
    return ClassModel(out=out, rows=rows, manifest=manifest or {}, full=full)


def span(seconds: float) -> tuple[str, str]:
    """A duration in at most two units: "1 day 10 h", "3 h 5 min", "12 min" (and Korean)."""
    s = int(max(0.0, seconds))
    days, rest = divmod(s, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        en = f"{days} day{'s' if days > 1 else ''}" + (f" {hours} h" if hours else "")
        ko = f"{days}일" + (f" {hours}시간" if hours else "")
    elif hours:
        en, ko = f"{hours} h" + (f" {minutes} min" if minutes else ""), f"{hours}시간" + (
            f" {minutes}분" if minutes else "")
    elif minutes:
        en, ko = f"{minutes} min", f"{minutes}분"
    else:
        en, ko = f"{secs} s", f"{secs}초"
    return en, ko


TASK_STEPS = ("adjustment", "bonus", "check")  # the steps that may name a task (``Step.task``)


def final_tasks(row: Row) -> dict[str, float]:
    """Each task's points after the steps that concern it: an accepted review gives each task back what
    it withheld there, a TA's decision on a check and an adjustment given with ``--task`` change theirs;
    within 0..the task's maximum (a bonus may go above it).  Steps of the whole submission (the late
    policy, a set score, a clamp) name no task: they change the total only.  The gradebook's task
    columns, the class's task means and the student's task table all read this."""
    out = dict(row.tasks)
    bonus: dict[str, float] = {}
    for s in row.steps:
        if s.kind == "review" and s.points:
            for task, points in row.review.withheld.items():
                out[task] = out.get(task, 0.0) + points
        elif s.task and s.kind in TASK_STEPS and s.task in out:
            out[s.task] += s.points
            if s.kind == "bonus":
                bonus[s.task] = bonus.get(s.task, 0.0) + s.points
    top = {t: row.task_max.get(t, 0.0) + max(bonus.get(t, 0.0), 0.0) for t in out}
    return {t: round(min(max(v, 0.0), top[t]) if top[t] > 0 else max(v, 0.0), 4) for t, v in out.items()}


def shown_total(row: Row) -> float | str:
    """The total as every page and file writes it: ``EX`` for an excused student (Canvas's mark)."""
    return "EX" if row.excused else row.total


def final_section(row: Row) -> dict[str, Any]:
    """What a student's results.json carries as ``final`` (its report renders it): the total (``EX`` when
    excused), each task's points after the decisions, and every step with its reason."""
    tasks = final_tasks(row)
    return {"auto": row.auto, "total": shown_total(row), "max": row.max, "submitted_at": row.submitted_at,
            "late_by": row.late_by, "steps": [asdict(s) for s in row.steps],
            **({"excused": True} if row.excused else {}),
            **({"tasks": tasks} if tasks != row.tasks else {}),
            **({"checks": row.decided} if row.decided else {})}


def to_json(model: ClassModel) -> str:
    """``DIR/class.json``: the model as written once per render (for other tools; never read back)."""
    rows = [{"id": r.id, "submission": r.name, "status": r.status, "auto": r.auto, "total": shown_total(r),
             "excused": r.excused, "max": r.max, "tasks": final_tasks(r), "auto_tasks": r.tasks,
             "submitted_at": r.submitted_at, "late_by": r.late_by,
             "review": {"flagged": r.review.flagged, "reasons": r.review.reasons,
                        "withheld": r.review.withheld, "held": r.review.held},
             "reason": r.reason, "steps": [asdict(s) for s in r.steps], "ta_checks": r.checks}
            for r in model.rows]
    return json.dumps({"schema": 1, "full": model.full, "policy": model.policy, "notes": model.notes,
                       "rows": rows}, ensure_ascii=False, indent=2) + "\n"
