"""What changed since the previous run (results["previous"]), and the banner of a filtered run.

"+14 since the last run (14:05): Sinusoidal positional encoding now passes", in the report's
language, for the terminal, feedback.html/md, summary.txt and check(). Tasks go by their titles, the
time is the student's local time, and a task that still fails is named only when its failing checks
changed (worked on, not fixed yet): an unrelated change does not repeat it. A first run says nothing.
"""

from __future__ import annotations

import calendar
import time
from typing import Any

from grader.engine.results import ResultsView
from grader.report.i18n import translate
from grader.report.lesson_tasks import task_order, task_titles
from grader.report.pending import pending
from grader.report.view import task_title

EPS = 1e-9
STILL_SHOWN = 3  # tasks named as still failing; the rest are counted


def _when(stamp: str, now: float | None = None) -> str:
    """The previous run's time as the student reads it, in the local time zone: 14:05 today, else the
    date too (results.json keeps UTC)."""
    try:
        then = time.localtime(calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")))
    except (TypeError, ValueError, OverflowError):
        return str(stamp or "")
    today = time.strftime("%Y-%m-%d", time.localtime(now))
    day = time.strftime("%Y-%m-%d", then)
    clock = time.strftime("%H:%M", then)
    return clock if day == today else f"{day} {clock}"


def _failed_ids(results: ResultsView) -> dict[str, set[str]]:
    """task -> the ids of its checks that did not pass in this run."""
    out: dict[str, set[str]] = {}
    for t in results.get("tests") or []:
        if t.get("status") != "passed":
            out.setdefault(str(t.get("task")), set()).add(t["id"])
    return out


def _worked_on(results: ResultsView, task: str) -> bool:
    """Whether the failing checks of ``task`` changed since ``previous`` (unknown then: assume so)."""
    before = (results.get("previous") or {}).get("failed")
    if before is None:
        return True
    ids = {t["id"] for t in results.get("tests") or [] if t.get("task") == task}
    return set(before) & ids != _failed_ids(results).get(task, set())


def _signed(x: float) -> str:
    value = round(x, 2)
    return f"+{value:g}" if value > 0 else (f"−{abs(value):g}" if value < 0 else "±0")


def task_changes(results: ResultsView) -> list[dict[str, Any]]:
    """Per task in rubric order: how its points moved since ``previous`` (full then and now: left out)."""
    prev = (results.get("previous") or {}).get("tasks") or {}
    out = []
    order = task_order(results)
    for task in [*order, *sorted(set(results.get("tasks") or {}) - set(order))]:
        now = (results.get("tasks") or {}).get(task)
        before = prev.get(task)
        if not now:
            continue
        full = now["score"] >= now["max_score"] - EPS
        if before is None:
            kind = "new"
        else:
            was_full = before["score"] >= before["max_score"] - EPS
            delta = now["score"] - before["score"]
            if full and not was_full:
                kind = "now_passes"
            elif full:
                continue  # passed then, passes now
            elif was_full:
                kind = "now_fails"
            elif delta > EPS:
                kind = "better"
            elif delta < -EPS:
                kind = "worse"
            else:
                kind = "still_fails"
        out.append({"task": task, "kind": kind, "score": now["score"], "max_score": now["max_score"],
                    "delta": now["score"] - (before or {"score": 0.0})["score"]})
    return out


def change_view(results: ResultsView, lang: str) -> dict[str, Any] | None:
    """The sentence of what changed, its parts and the score delta; None on a first run."""
    prev = results.get("previous")
    if not prev:
        return None
    delta = float(results.get("score", 0.0)) - float(prev.get("score", 0.0))
    items: list[str] = []
    still: list[str] = []
    titles = task_titles(results)  # the graded lesson's titles, never another lesson's
    for c in task_changes(results):
        if c["kind"] == "new" or (c["kind"] == "still_fails" and c["score"] <= EPS):
            continue  # a task with nothing yet, then and now, is not news
        if c["kind"] == "still_fails" and not _worked_on(results, c["task"]):
            continue  # the same checks fail as before: the change was elsewhere
        text = translate(f"change_{c['kind']}", lang, task=task_title(c["task"], lang, titles),
                         delta=_signed(c["delta"]))
        (still if c["kind"] == "still_fails" else items).append(text)
    items += still[:STILL_SHOWN]
    if len(still) > STILL_SHOWN:
        items.append(translate("change_more_still", lang, n=len(still) - STILL_SHOWN))
    when = _when(prev.get("when", ""))
    head = (translate("change_head", lang, delta=_signed(delta), when=when) if abs(delta) > EPS or items
            else translate("change_none", lang, when=when))
    text = head + (": " + "; ".join(items) if items else "") + "."
    return {"delta": round(delta, 3), "signed": _signed(delta), "when": when, "items": items, "text": text,
            "head": head, "rest": "; ".join(items) + "." if items else "",
            "level": "good" if delta > EPS else ("bad" if delta < -EPS else "mid"),
            "previous_score": prev.get("score"), "previous_max": prev.get("max_score")}


def filter_view(results: ResultsView, lang: str) -> dict[str, Any] | None:
    """The banner of a `grade -k` run: what ran, and where the full run's score is; None for a full run."""
    mark = results.get("filter")
    if not mark:
        return None
    n = len(results.get("tests") or [])
    text = translate("filter_banner", lang, keyword=mark.get("keyword", ""), n=n)
    full = mark.get("full")
    if full:
        text += " " + translate("filter_full", lang, score=f"{float(full.get('score', 0)):g}",
                                max_score=f"{float(full.get('max_score', 0)):g}",
                                report=full.get("report", ""))
        if mark.get("report"):
            text += " " + translate("filter_here", lang, report=mark["report"])
    else:
        text += " " + translate("filter_no_full", lang)
    return {"keyword": mark.get("keyword", ""), "text": text}


def lesson_banner(results: ResultsView, lang: str) -> str | None:
    """What a run of another lesson's folder says first (engine/other_lesson.py): whose folder it is and
    how to grade it as that; None for a folder of the lesson graded."""
    other = results.get("other_lesson")
    if not isinstance(other, dict) or not other.get("name"):
        return None
    name = str(other["name"])
    title = (other.get("title") or {}).get(lang) or (other.get("title") or {}).get("en") or name
    graded = ((results.get("lesson") or {}).get("title") or {}).get(lang) or \
        (results.get("lesson") or {}).get("name") or "?"
    why = (translate("other_lesson_project", lang, name=name) if other.get("project") else
           translate("other_lesson_files", lang, files=", ".join(other.get("files") or [])))
    return translate("other_lesson", lang, title=title, why=why, graded=graded, name=name,
                     kept=translate("other_lesson_kept", lang))


def nothing_to_fix(results: ResultsView, lang: str) -> str:
    """What a run without a failure says: "every test passed" only of a full run. A `-k` run speaks of
    the checks it ran, and of the full run's points still to fix where it knows them."""
    hidden = "" if "hidden" in results.get("suites", []) else " " + translate("hidden_at_submit", lang)
    mark = results.get("filter")
    taken = taken_parts(results, lang)
    if taken:  # a TA took a part's points: every check passing is not "nothing to fix"
        parts = ", ".join(name for name, _ in taken)
        points = f"{round(sum(p for _, p in taken), 4):g}"
        return translate("nothing_failed_taken", lang, parts=parts, points=points) + hidden
    if pending(results, lang):  # a deduction already known for submission is something to fix
        return translate("nothing_failed_pending", lang) + hidden
    if not mark:
        return translate("nothing_to_fix", lang) + hidden
    text = translate("nothing_to_fix_filtered", lang, keyword=mark.get("keyword", ""),
                     n=len(results.get("tests") or []))
    full = mark.get("full") or {}
    lost = float(full.get("max_score", 0) or 0) - float(full.get("score", 0) or 0)
    if full and lost > 0:
        text += " " + translate("filtered_full_lost", lang, lost=f"{lost:g}")
    return text + hidden


def taken_parts(results: ResultsView, lang: str) -> list[tuple[str, float]]:
    """Each provisional check a TA took points from (results.json ``final.checks``), as (the part in
    ``lang``, the points taken), in the order of ``ta_checks``."""
    decided = (results.get("final") or {}).get("checks") or {}
    out = []
    for check in results.get("ta_checks") or []:
        d = decided.get(str(check.get("key"))) if isinstance(check, dict) else None
        if isinstance(d, dict) and d.get("decision") == "take" and float(d.get("points") or 0) < 0:
            part = check.get("part_ko" if lang == "ko" else "part_en") or check.get("key")
            out.append((f"{check.get('document') or ''}, {part}".strip(", "), -float(d["points"])))
    return out


__all__ = ["change_view", "filter_view", "lesson_banner", "nothing_to_fix", "taken_parts", "task_changes"]
