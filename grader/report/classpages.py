"""The class-level outputs of a batch: gradebook.csv and summary.html, rendered from the class model.

The model (grader/engine/classmodel.py) is read once from the per-student folders
(``DIR/<name>/batch.json`` and ``results.json``), ``DIR/batch-manifest.json`` and the term's files;
every number here is its rows' (``row.total`` is the one final total), so a merge of shard folders and
an unsharded run give the same files.
"""

from __future__ import annotations

import csv
import io
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.engine.classmodel import (
    MANIFEST,
    NOT_GRADED,
    ClassModel,
    Row,
    final_tasks,
    load_graded,
    load_manifest,
    span,
)
from grader.paths import write_atomic
from grader.report import svg_chart
from grader.report.class_sections import class_sections
from grader.report.lesson_tasks import class_results, task_order, task_titles
from grader.report.plots import data_uri
from grader.report.render import environment
from grader.report.view import replay_commands

MARKER = "batch.json"
SIMILARITY_PAGE = "similarity.html"  # written by `grade similarity` beside the summary, when it runs
SPREADSHEET_FORMULA = ("=", "+", "-", "@", "\t", "\r")
BAR_COLOUR = "#1f77b4"  # the histogram's, as the task table's bars (.bar in summary.html.j2)
__all__ = ["MANIFEST", "NOT_GRADED", "ClassReport", "gradebook_csv", "load_manifest", "write_class_report"]


@dataclass
class ClassReport:
    gradebook: Path
    summary: Path
    rows: list[Row]


def task_columns(rows: list[Row]) -> list[str]:
    seen = {t for r in rows for t in r.tasks}
    order = task_order(class_results(r.results for r in rows))
    return [t for t in order if t in seen] + sorted(seen - set(order))


# -- gradebook.csv -----------------------------------------------------------------------


def _cell(value: Any) -> str:
    """Text a spreadsheet shows as text: a student-chosen name never becomes a formula."""
    text = str(value)
    return "'" + text if text.startswith(SPREADSHEET_FORMULA) else text


def _num(x: float) -> str:
    return f"{float(x):g}"


def _late_by(row: Row) -> str:
    if row.late_by is None:
        return "unknown" if any(s.kind == "unknown_time" for s in row.steps) else ""
    if row.late_by <= 0:
        return ""
    return span(row.late_by)[0]


def _total(row: Row) -> str:
    return "EX" if row.excused else _num(row.total)  # Canvas's mark for an excused student


def gradebook_csv(model: ClassModel) -> str:
    """The gradebook: ``total`` is the final total, ``auto`` the grader's, and the steps between them,
    signed, so that total = auto + late_penalty + adjustment + capped on every row:

    * ``late_penalty``: the late policy's deduction and what the close date took;
    * ``adjustment``: adjustments, bonuses, an accepted review, a score the instructor set;
    * ``capped``: what keeping the total within 0..max (max plus any bonus) changed.

    An excused student's total reads ``EX``.  ``note`` holds the instructor's private notes."""
    rows = model.rows
    tasks = task_columns(rows)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(["id", "submission", "total", "max", "auto", "late_penalty", "adjustment", "capped",
                "submitted_at", "late_by", "steps", "note", *tasks, "status", "isolation", "duration_s",
                "reason", "review"])
    for r in rows:
        done = final_tasks(r)  # each task after the decisions that concern it (a TA's, an accepted review)
        w.writerow([
            _cell(r.id), _cell(r.name), _total(r), _num(r.max), _num(r.auto),
            _num(r.points_of("late") + r.points_of("closed")),
            _num(sum(r.points_of(k) for k in ("adjustment", "bonus", "review", "set", "check"))),
            _num(r.points_of("clamp")),
            r.submitted_at or ("unknown" if _late_by(r) == "unknown" else ""), _late_by(r),
            _cell("; ".join(s.en for s in r.steps)), _cell("; ".join(r.notes)),
            *[_num(done[t]) if t in done else ("" if r.graded else "0") for t in tasks],
            r.status, r.isolation if r.status != "missing" else "",
            f"{r.duration:.1f}", _cell(r.reason),
            # flagged by the tamper scan: its first reasons, for the instructor to look at
            _cell("; ".join(x["en"] for x in r.review.reasons[:3])),
        ])
    return buf.getvalue()


# -- summary.html --------------------------------------------------------------------------


def score_stats(model: ClassModel) -> dict[str, Any]:
    """The class's final totals (ungraded and missing count as 0; an excused student does not count)."""
    scores = [r.total for r in model.rows if not r.excused]
    counts = Counter(r.status for r in model.rows)
    if not scores:
        return {"n": 0, "counts": dict(counts)}
    return {"n": len(scores), "mean": statistics.fmean(scores), "median": statistics.median(scores),
            "min": min(scores), "max": max(scores), "full": model.full, "counts": dict(counts),
            "scores": scores}


def task_rates(rows: list[Row]) -> list[dict]:
    graded = [r for r in rows if r.graded]
    out = []
    titles = task_titles(class_results(r.results for r in rows))
    for task in task_columns(rows):
        mine = [r.results["tasks"][task] for r in graded if task in (r.results.get("tasks") or {})]
        if not mine:
            continue
        # the points after the decisions (a TA's, an accepted review), as the gradebook's columns
        final = [final_tasks(r)[task] for r in graded if task in (r.results.get("tasks") or {})]
        title = titles.get(task, (task, task))
        out.append({
            "task": task, "title_en": title[0], "title_ko": title[1],
            "mean": statistics.fmean(final), "max": max(t["max_score"] for t in mine),
            "full_rate": sum(f >= t["max_score"] for f, t in zip(final, mine, strict=True)) / len(mine),
            "test_rate": sum(t["passed"] for t in mine) / max(1, sum(t["total"] for t in mine)),
            "n": len(mine),
        })
    return out


def clip_words(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters at a word boundary, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + " …"


def test_rates(rows: list[Row]) -> list[dict]:
    """Per test that someone failed: how many passed, and the failure the class hit most; most failed first."""  # noqa: E501
    stats: dict[str, dict[str, Any]] = {}
    unimported = [r for r in rows if r.graded and r.unimported]
    for r in rows:
        if not r.graded or r.unimported:  # its every test failed on the import: one row below, not each
            continue
        for t in r.results.get("tests") or []:
            s = stats.setdefault(t["id"], {"id": t["id"], "task": t.get("task"), "passed": 0, "n": 0,
                                           "messages": Counter()})
            s["n"] += 1
            if t.get("status") == "passed":
                s["passed"] += 1
            else:
                s["messages"][clip_words((t.get("message") or "").strip(), 300)] += 1
    out = []
    for s in stats.values():
        if s["passed"] == s["n"]:
            continue  # a table of failures: a test everyone passed has nothing to teach here
        common = s["messages"].most_common(1)
        out.append({"id": s["id"], "task": s["task"], "passed": s["passed"], "n": s["n"],
                    "rate": s["passed"] / s["n"], "failed": s["n"] - s["passed"],
                    "message": common[0][0] if common else "",
                    "message_count": common[0][1] if common else 0})
    out.sort(key=lambda s: (s["rate"], s["id"]))
    if unimported:  # one row for the submissions that never imported, with their most common reason
        reason, count = Counter(r.unimported for r in unimported).most_common(1)[0]
        out.insert(0, {"id": "could not be imported / import 실패",
                       "task": ", ".join(r.id for r in unimported), "passed": 0, "n": len(unimported),
                       "rate": 0.0, "failed": len(unimported),
                       "message": clip_words(reason, 300), "message_count": count})
    return out


def histogram(stats: dict[str, Any]) -> str | None:
    """The class's scores in up to 20 bins over the full marks; the mean dashed."""
    if not stats.get("n"):
        return None
    full = stats.get("full") or max(stats["scores"]) or 1.0
    return data_uri(svg_chart.histogram(
        stats["scores"], lo=0.0, hi=full, bins=min(20, max(5, int(full))), colour=BAR_COLOUR,
        marker=stats["mean"], marker_label=f"mean / 평균 {round(stats['mean'], 2):g}",
        x_title=f"score / 점수 (out of / 만점 {full:g})", y_title="students / 학생 수"))


# The status cards of summary.html, in both languages (the page is bilingual).
STATUS_LABELS = {"graded": "Graded / 채점됨", "missing": "Missing / 미제출",
                 "unreadable": "Unreadable / 읽을 수 없음",
                 "timeout": "Timed out / 시간 초과", "error": "Error / 오류"}


def summary_context(model: ClassModel) -> dict[str, Any]:
    rows, out = model.rows, model.out
    stats = score_stats(model)
    failed = [r for r in rows if r.status in NOT_GRADED or r.unimported]  # graded as 0, said why
    slow = sorted((r for r in rows if r.status != "missing"), key=lambda r: -r.duration)[:10]
    return {
        "title": out.resolve().name, "stats": stats, "rows": rows,
        "tasks": task_rates(rows), "tests": test_rates(rows),
        # the graded lesson's blocks (ReportHooks.class_sections): another lesson's batch shows none of them
        "lesson_sections": class_sections([r.results for r in rows]),
        "images": {"hist": histogram(stats)},
        "slowest": slow, "failed": failed, "manifest": model.manifest,
        "status_label": lambda status: STATUS_LABELS.get(status, status),
        "policy": model.policy, "notes": model.notes,
        "stepped": [r for r in rows if r.steps],
        "flagged": [r for r in rows if r.review.flagged],
        # what each flagged row's review stands at, from its steps: the decision, or pending (again)
        "decided": {r.id: next((s for s in r.steps if s.kind in ("review", "pending")), None) for r in rows
                    if r.review.flagged},
        "pending_review": [r.id for r in rows if r.review.flagged
                           and not any(s.kind == "review" for s in r.steps)],
        "similarity": SIMILARITY_PAGE if (out / SIMILARITY_PAGE).exists() else None,
        # the instructor's replay of each failed hidden test (seed, --hidden): here, never a student's page
        "replays": [(r.id, cmds) for r in rows if (cmds := replay_commands(r.results, r.path or r.name))],
    }


def render_summary(model: ClassModel) -> str:
    return environment().get_template("summary.html.j2").render(summary_context(model))


def write_class_report(out: Path, model: ClassModel | None = None) -> ClassReport:
    """gradebook.csv (UTF-8 with BOM, for Excel) and summary.html in ``out``, from ``model``.

    The instructor's term (grader/instructor/term/model.py: render_class) passes the model with its
    steps; without one, the class as graded."""
    model = model if model is not None else load_graded(out)
    gradebook, summary = out / "gradebook.csv", out / "summary.html"
    write_atomic(gradebook, gradebook_csv(model), encoding="utf-8-sig")
    write_atomic(summary, render_summary(model))
    return ClassReport(gradebook, summary, model.rows)
