"""A small class of already-graded results written as a batch writes them, for the term's fast tests.

Each student's folder holds the done-marker ``batch.json`` (with ``submission_hash``) and a
``results.json`` with tests, as `grade batch` leaves them; a flagged student's withheld tests carry the
verdict their check recorded.  "Resubmitting" rewrites the folder with a new hash (and, when asked,
other findings), as `grade batch --force` does after the student changed their code.  No grading runs,
so a property test can take many steps in seconds; tests/test_decisions.py also checks each item on
a real batch.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

WITHHELD = "Withheld for review: this check rests on the grader's own code in the worker"
FINDING_SIGNAL = {"en": "imports `signal` (a timer)", "ko": "`signal`(타이머)을 가져옵니다"}
FINDING_FRAMES = {"en": "reads `inspect.currentframe().f_back.f_globals`", "ko": "호출자 프레임을 읽습니다"}


@dataclass
class Student:
    name: str
    auto: float = 8.0  # of MAX
    flagged: bool = False
    findings: tuple[dict, ...] = ()
    version: int = 1


MAX = 10.0
HELD = 2.0  # the withheld test's points (its recorded verdict: passed)


def results_of(s: Student) -> dict:
    """results.json of one graded submission: a passing test worth ``auto``, a failed one for the rest;
    a flagged one has ``HELD`` of its points withheld (verdict passed)."""
    earned = s.auto - (HELD if s.flagged else 0.0)
    tests = [{"id": "public/test_pe.py::test_a", "task": "pe", "status": "passed", "score": earned,
              "max_score": earned, "visibility": "visible", "message": "", "messages": {"en": "", "ko": ""}}]
    if s.flagged:
        tests.append({"id": "public/test_pe.py::test_probe", "task": "pe", "status": "failed", "score": 0.0,
                      "max_score": HELD, "visibility": "visible", "message": WITHHELD,
                      "messages": {"en": WITHHELD, "ko": "검토를 위해 보류"},
                      "withheld": {"verdict": "passed", "score": HELD}})
    if s.auto < MAX:
        tests.append({"id": "public/test_pe.py::test_b", "task": "pe", "status": "failed", "score": 0.0,
                      "max_score": MAX - s.auto, "visibility": "visible", "message": "wrong",
                      "messages": {"en": "wrong", "ko": "틀림"}})
    score = sum(t["score"] for t in tests)
    return {"schema": 1, "submission": s.name, "score": score, "max_score": MAX, "lang": "en",
            "isolation": "none", "tests": tests,
            "tasks": {"pe": {"score": score, "max_score": MAX, "passed": 1, "total": len(tests)}},
            "review": {"flagged": s.flagged, "reasons": list(s.findings)}}


def write_student(out: Path, s: Student) -> None:
    d = out / s.name
    d.mkdir(parents=True, exist_ok=True)
    (d / "results.json").write_text(json.dumps(results_of(s)), encoding="utf-8")
    marker = {"name": s.name, "student_id": s.name, "path": f"/home/prof/subs/{s.name}", "status": "graded",
              "reason": "", "duration": 1.0, "submission_hash": f"{s.name}-v{s.version}",
              "finished_at": f"2026-03-11T00:00:0{s.version % 10}+0000"}
    (d / "batch.json").write_text(json.dumps(marker), encoding="utf-8")


def write_class(out: Path, students: list[Student], shard: str = "1/1") -> Path:
    out.mkdir(parents=True, exist_ok=True)
    for s in students:
        write_student(out, s)
    (out / "batch-manifest.json").write_text(json.dumps(
        {"shard": shard, "names": sorted(s.name for s in students), "roster": {}, "roster_missing": []}))
    return out
