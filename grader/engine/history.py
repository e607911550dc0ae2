"""What a grade remembers of the run before it in the same output folder, and where a filtered run goes.

``previous`` (docs/contract.md): the last comparable run's score, per-task points and when, so the
reports can say what changed. Comparable: the same submission, suites and filter. A filtered run
(``grade -k``) never replaces a full run's results: when the folder holds one, the filtered run is
written to ``filtered/`` beside it, and ``filter`` says so (with the full run's score) on every page.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from grader.engine.results import Filter, Previous, Results

FILTERED = "filtered"  # the sub-folder of a filtered run when the folder holds a full one


def summarize(results: dict[str, Any], when: float) -> Previous:
    """The part of a run the next one compares itself with."""
    return {
        "score": float(results.get("score", 0.0)), "max_score": float(results.get("max_score", 0.0)),
        "tasks": {task: {"score": float(t["score"]), "max_score": float(t["max_score"])}
                  for task, t in (results.get("tasks") or {}).items()},
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when)),
        "failed": [t["id"] for t in results.get("tests", []) if t.get("status") != "passed"],
    }


def comparable(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Runs of the same lesson, submission, suites and filter (an unreadable run compares with nothing)."""
    if old.get("error") or new.get("error") or not old.get("tests"):
        return False
    return (old.get("submission") == new.get("submission") and old.get("suites") == new.get("suites")
            and _keyword(old) == _keyword(new) and _lesson(old) in (None, _lesson(new)))


def _lesson(results: dict[str, Any]) -> str | None:
    """The lesson a run graded (None: results from before runs recorded it)."""
    lesson = results.get("lesson")
    return str(lesson.get("name")) if isinstance(lesson, dict) and lesson.get("name") else None


def _keyword(results: dict[str, Any]) -> str | None:
    return (results.get("filter") or {}).get("keyword")


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def prepare(results: Results, out: Path, keyword: str | None) -> Path:
    """Mark a filtered run, attach ``previous``; the folder to write this run's results and reports to."""
    target = out
    held = _read(out / "results.json")
    mine = _lesson(dict(results))
    if held is not None and mine and _lesson(held) not in (None, mine):
        # the folder holds another lesson's run (`grade --lesson B` where A is graded): kept, this one
        # goes beside it, in a sub-folder named after its lesson
        target = out = out / mine
    if keyword:
        mark: Filter = {"keyword": keyword}
        full = _read(out / "results.json")
        if full is not None and not full.get("filter") and not full.get("error"):
            target = out / FILTERED
            mark["full"] = {"score": full.get("score", 0.0), "max_score": full.get("max_score", 0.0),
                            "report": (out / "feedback.html").as_posix()}
        if target != out:
            mark["report"] = (target / "feedback.html").as_posix()
        results["filter"] = mark
    old_path = target / "results.json"
    old = _read(old_path)
    if old is not None and comparable(old, dict(results)):
        results["previous"] = summarize(old, old_path.stat().st_mtime)
    target.mkdir(parents=True, exist_ok=True)
    return target


__all__ = ["FILTERED", "Filter", "Previous", "comparable", "prepare", "summarize"]
