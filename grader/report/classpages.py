"""The class-level outputs of a batch: gradebook.csv and summary.html.

Both are rebuilt from the per-student folders alone (``DIR/<name>/batch.json``
and ``results.json``) plus ``DIR/batch-manifest.json`` for the roster, so a
merge of shard folders and an unsharded run give the same files.
"""

from __future__ import annotations

import csv
import io
import json
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.engine.rubric import TASK_TITLES, TASKS
from grader.paths import write_atomic
from grader.report import svg_chart
from grader.report.plots import COLOURS, colour, data_uri
from grader.report.render import environment
from grader.report.svg_chart import Dots

MANIFEST = "batch-manifest.json"
MARKER = "batch.json"
NOT_GRADED = ("unreadable", "timeout", "error", "missing")
SPREADSHEET_FORMULA = ("=", "+", "-", "@", "\t", "\r")


@dataclass
class ClassReport:
    gradebook: Path
    summary: Path
    rows: list[dict]


# -- rows ------------------------------------------------------------------------------


def load_manifest(out: Path) -> dict:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def load_rows(out: Path) -> list[dict]:
    """One row per finished submission, plus one per roster student who sent nothing."""
    manifest = load_manifest(out)
    roster: dict[str, str] = manifest.get("roster") or {}
    rows = []
    for d in sorted(p for p in out.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            marker = json.loads((d / MARKER).read_text(encoding="utf-8"))
            results = json.loads((d / "results.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # not a finished submission folder
        name = marker.get("name", d.name)
        rows.append({
            "name": name, "id": roster.get(name, marker.get("student_id") or name),
            "status": marker.get("status", "error"), "reason": marker.get("reason", ""),
            "duration": float(marker.get("duration") or 0.0), "results": results, "dir": d.name,
        })
    present = {r["name"] for r in rows}
    for name in manifest.get("roster_missing") or []:
        if name not in present:
            rows.append({"name": name, "id": roster.get(name, name), "status": "missing", "duration": 0.0,
                         "reason": "no submission found for this student / 이 학생의 제출물이 없습니다",
                         "results": {"score": 0.0, "max_score": 0.0, "tasks": {}, "tests": []}, "dir": ""})
    rows.sort(key=lambda r: (str(r["id"]), r["name"]))
    return rows


def class_max(rows: list[dict]) -> float:
    """The full marks of this run: the most common max_score of the graded rows."""
    maxes = [float(r["results"].get("max_score") or 0) for r in rows if r["status"] == "graded"]
    return Counter(maxes).most_common(1)[0][0] if maxes else 0.0


def task_columns(rows: list[dict]) -> list[str]:
    seen = {t for r in rows for t in (r["results"].get("tasks") or {})}
    return [t for t in TASKS if t in seen]


# -- gradebook.csv -----------------------------------------------------------------------


def _cell(value: Any) -> str:
    """Text a spreadsheet shows as text: a student-chosen name never becomes a formula."""
    text = str(value)
    return "'" + text if text.startswith(SPREADSHEET_FORMULA) else text


def _num(x: float) -> str:
    return f"{float(x):g}"


def gradebook_csv(rows: list[dict]) -> str:
    tasks = task_columns(rows)
    full = class_max(rows)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(["id", "submission", "total", "max", *tasks, "status", "isolation", "duration_s", "reason",
                "review"])
    for r in rows:
        res = r["results"]
        graded = r["status"] == "graded"
        per_task = res.get("tasks") or {}
        w.writerow([
            _cell(r["id"]), _cell(r["name"]), _num(res.get("score", 0.0) if graded else 0.0),
            _num(res.get("max_score") if graded and res.get("max_score") else full),
            *[_num(per_task[t]["score"]) if t in per_task else ("" if graded else "0") for t in tasks],
            r["status"], res.get("isolation", "") if r["status"] != "missing" else "",
            f"{r['duration']:.1f}", _cell(r["reason"]),
            # flagged by the tamper scan: its first reason, for the instructor to look at
            _cell("; ".join(x["en"] for x in (res.get("review") or {}).get("reasons", [])[:3])),
        ])
    return buf.getvalue()


# -- summary.html --------------------------------------------------------------------------


def score_stats(rows: list[dict]) -> dict[str, Any]:
    scores = [float(r["results"].get("score", 0.0)) if r["status"] == "graded" else 0.0 for r in rows]
    counts = Counter(r["status"] for r in rows)
    if not scores:
        return {"n": 0, "counts": dict(counts)}
    return {"n": len(scores), "mean": statistics.fmean(scores), "median": statistics.median(scores),
            "min": min(scores), "max": max(scores), "full": class_max(rows), "counts": dict(counts),
            "scores": scores}


def task_rates(rows: list[dict]) -> list[dict]:
    graded = [r for r in rows if r["status"] == "graded"]
    out = []
    for task in task_columns(rows):
        mine = [r["results"]["tasks"][task] for r in graded if task in (r["results"].get("tasks") or {})]
        if not mine:
            continue
        out.append({
            "task": task, "title_en": TASK_TITLES[task][0], "title_ko": TASK_TITLES[task][1],
            "mean": statistics.fmean(t["score"] for t in mine), "max": max(t["max_score"] for t in mine),
            "full_rate": sum(t["score"] >= t["max_score"] for t in mine) / len(mine),
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


def test_rates(rows: list[dict]) -> list[dict]:
    """Per test that someone failed: how many passed, and the failure the class hit most; most failed first."""  # noqa: E501
    stats: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r["status"] != "graded":
            continue
        for t in r["results"].get("tests") or []:
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
    return out


KNOWN_BOUND = {8: 0.317, 12: 0.266}  # bag-of-tokens bound, vocab 10 (docs/contract.md)


def _lengths(mapping: Any) -> dict[int, float]:
    out: dict[int, float] = {}
    for k, v in (mapping or {}).items() if isinstance(mapping, dict) else []:
        try:
            out[int(k)] = float(v)
        except (TypeError, ValueError):
            continue
    return out


def experiment_runs(art: Any) -> list[dict]:
    """The runs of one student's experiment artifact (grader/lesson/experiment.py's schema, or a plain list).

    The student's own experiment first; the grader's component runs when that is absent.
    """
    if isinstance(art, list):
        return [r for r in art if isinstance(r, dict)]
    if not isinstance(art, dict):
        return []
    for key in ("student", "component"):
        part = art.get(key)
        if isinstance(part, dict) and isinstance(part.get("runs"), list) and part["runs"]:
            return [r for r in part["runs"] if isinstance(r, dict)]
    for key in ("rows", "runs"):
        if isinstance(art.get(key), list):
            return [r for r in art[key] if isinstance(r, dict)]
    return []


def experiment_summary(rows: list[dict]) -> dict[str, Any] | None:
    """Each student's accuracy per mode and length (mean over seeds), summarised over the class."""
    per: dict[tuple[str, int], list[float]] = {}
    bound: dict[int, float] = dict(KNOWN_BOUND)
    students = 0
    for r in rows:
        art = (r["results"].get("artifacts") or {}).get("experiment")
        runs = experiment_runs(art)
        mine: dict[tuple[str, int], list[float]] = {}
        for run in runs:
            for length, acc in _lengths(run.get("acc_by_length")).items():
                mine.setdefault((str(run.get("mode", "?")), length), []).append(acc)
        if not mine:
            continue
        students += 1
        if isinstance(art, dict):
            bound.update(_lengths(art.get("bound")))
        for key, accs in mine.items():
            per.setdefault(key, []).append(statistics.fmean(accs))
    if not per:
        return None
    order = {m: i for i, m in enumerate(("none", "sin", "learned"))}
    table = [{"mode": m, "length": n, "n": len(v), "mean": statistics.fmean(v),
              "median": statistics.median(v), "min": min(v), "max": max(v), "bound": bound.get(n)}
             for (m, n), v in sorted(per.items(),
                                     key=lambda kv: (kv[0][1], order.get(kv[0][0], 9), kv[0][0]))]
    return {"students": students, "table": table, "values": per, "bound": bound}


def histogram(stats: dict[str, Any]) -> str | None:
    """The class's scores in up to 20 bins over the full marks; the mean dashed."""
    if not stats.get("n"):
        return None
    full = stats.get("full") or max(stats["scores"]) or 1.0
    return data_uri(svg_chart.histogram(
        stats["scores"], lo=0.0, hi=full, bins=min(20, max(5, int(full))), colour=COLOURS["sin"],
        marker=stats["mean"], marker_label=f"mean / 평균 {round(stats['mean'], 2):g}",
        x_title=f"score / 점수 (out of / 만점 {full:g})", y_title="students / 학생 수"))


def experiment_plot(exp: dict[str, Any] | None) -> str | None:
    """Every student as a dot, per mode and length; the bag-of-tokens bound dashed."""
    if not exp:
        return None
    keys = [(row["mode"], row["length"]) for row in exp["table"]]
    modes = list(dict.fromkeys(m for m, _ in keys))
    return data_uri(svg_chart.dot_chart(
        [f"{m}\nT={n}" for m, n in keys],
        [Dots(exp["values"][key], colour(key[0], modes)) for key in keys],
        refs=[exp["bound"].get(n) for _, n in keys], ref_label="bag-of-tokens bound / 토큰 주머니 한계",
        y_title="token accuracy / 토큰 정확도"))


# The status cards of summary.html, in both languages (the page is bilingual).
STATUS_LABELS = {"graded": "Graded / 채점됨", "missing": "Missing / 미제출",
                 "unreadable": "Unreadable / 읽을 수 없음",
                 "timeout": "Timed out / 시간 초과", "error": "Error / 오류"}


def summary_context(rows: list[dict], out: Path) -> dict[str, Any]:
    stats = score_stats(rows)
    exp = experiment_summary(rows)
    failed = [r for r in rows if r["status"] in NOT_GRADED]
    slow = sorted((r for r in rows if r["status"] != "missing"), key=lambda r: -r["duration"])[:10]
    return {
        "title": out.resolve().name, "stats": stats, "rows": rows,
        "tasks": task_rates(rows), "tests": test_rates(rows), "exp": exp,
        "images": {"hist": histogram(stats), "exp": experiment_plot(exp)},
        "slowest": slow, "failed": failed, "manifest": load_manifest(out),
        "similarity": (out / "similarity.html").is_file(),  # written by `grade similarity` (instructor)
        "status_label": lambda status: STATUS_LABELS.get(status, status),
    }


def render_summary(rows: list[dict], out: Path) -> str:
    return environment().get_template("summary.html.j2").render(summary_context(rows, out))


def write_class_report(out: Path) -> ClassReport:
    """gradebook.csv (UTF-8 with BOM, for Excel) and summary.html in ``out``."""
    rows = load_rows(out)
    gradebook, summary = out / "gradebook.csv", out / "summary.html"
    write_atomic(gradebook, gradebook_csv(rows), encoding="utf-8-sig")
    write_atomic(summary, render_summary(rows, out))
    return ClassReport(gradebook, summary, rows)
