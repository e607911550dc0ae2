"""Points a public run already knows the hidden checks will take when the student submits.

A lesson whose public run can see that a hidden check will fail (the embedding lesson's LeetCode log
names an Easy problem: its hidden task-fit check takes 0.5) records each such deduction once, where it
decides it, in ``results["artifacts"]["at_submission"]``: a list of ``{"task", "points", "en", "ko"}``
(``points``: what the hidden check is worth, the number the hidden suite will take). Every place a
student reads a score shows them from here, with their amount: the terminal and summary.txt
(report/terminal.py), feedback.html and feedback.md (report/render.py), check() (grader/jupyter).

A run with the hidden suite took them already (its score counts them): nothing is pending there. A
filtered run (-k) shows only the deductions of the tasks it graded.
"""

from __future__ import annotations

from typing import Any

from grader.engine.results import ResultsView
from grader.report.i18n import translate
from grader.report.lesson_tasks import task_titles, title_of


def _amount(points: float) -> str:
    return f"{round(points, 3):g}"


def pending(results: ResultsView, lang: str) -> dict[str, Any] | None:
    """{"points", "head", "items": [{"task", "task_title", "points", "text", "line"}]} or None."""
    if "hidden" in (results.get("suites") or []):
        return None
    graded = set(results.get("tasks") or {})
    titles = task_titles(results)
    items = []
    for entry in (results.get("artifacts") or {}).get("at_submission") or []:
        if not isinstance(entry, dict) or entry.get("task") not in graded:
            continue
        points = float(entry.get("points") or 0.0)
        if points <= 0:
            continue
        title = title_of(titles, str(entry["task"]), lang)
        text = str(entry.get(lang) or entry.get("en") or "")
        items.append({"task": entry["task"], "task_title": title, "points": points, "text": text,
                      "line": translate("at_submit_item", lang, title=title, points=_amount(points),
                                        text=text)})
    if not items:
        return None
    total = sum(i["points"] for i in items)
    return {"points": total, "items": items,
            "head": translate("at_submit_head", lang, points=_amount(total))}


__all__ = ["pending"]
