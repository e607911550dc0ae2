"""results.json -> what the reports show, in one language.

Every template (HTML, Markdown, Gradescope, terminal) reads this one view, so
they cannot disagree about what failed, why, or what to fix first.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grader.core.finding import Finding
from grader.core.lang import particle
from grader.engine.lesson_api import Causes, FailedCheck
from grader.engine.lessons import select
from grader.engine.results import ResultsView
from grader.engine.usage import UsageProblem
from grader.report.i18n import status_word, translate
from grader.report.lesson_tasks import Titles, rank, report_hooks, task_order, task_titles, title_of
from grader.report.records import read_record
from grader.report.table_figure import figure_view

# A warning the grader's own runtime (gk_*.py in the worker) raised, with its source line.
_RUNTIME_WARNING = re.compile(r"^[^\n]*\bgk_\w+\.py:\d+: \w*Warning: .*?(?:\n  [^\n]*)$", re.M | re.S)


def card_parts(record: Finding, lang: str, text: str) -> dict[str, str]:
    """A check's fields on its card, in ``lang``; ``message`` is the whole text where nothing compares."""
    return dict(record.parts(lang), message="" if record.compares else text)


# Where the sandbox placed the submission ("/submission/", a staging folder "/tmp/gk-sub-x1y2/"): a
# warning's "/submission/reversal.py:121" reads to the student as their own "reversal.py:121".
_STAGED_AT = re.compile(r"(?:/submission|/\S*?/gk-sub-[^/\s]+)/(?=[\w.-]+\.py\b)")


def student_output(text: str) -> str:
    """What the student's code printed, without warnings the grader's own runtime raised, and with
    their files named as they know them (no sandbox paths)."""
    return _STAGED_AT.sub("", _RUNTIME_WARNING.sub("", text or "")).strip("\n")


def lesson_flag(results: Mapping[str, Any] | None, path: str) -> str | None:
    """The lesson a printed command must name with ``--lesson``: the one ``results`` was graded against,
    unless `grade PATH` picks it anyway (engine/lessons.py's ``choose``: the project setting found from the
    submission, then the working folder, GK_LESSON, the files, the only lesson installed). With no
    ``path`` (a batch's pages) what `grade` picks in the working folder."""
    record = (results or {}).get("lesson")
    name = record.get("name") if isinstance(record, Mapping) else None
    if not isinstance(name, str) or not name:
        return None
    starts = (Path(path), Path.cwd()) if path else (Path.cwd(),)
    try:
        picked = select(None, *starts).name
    except (UsageProblem, OSError):  # nothing here picks one: the command names it
        return name
    return None if picked == name else name


def reproduce_command(test_id: str, path: str, seed: str | None = None, lesson: str | None = None, *,
                      task: str | None = None, instructor: bool = False) -> str:
    """`grade PATH -k EXPR` selecting this test (its parameters too when -k can spell them); with no
    ``path``, `grade -k EXPR` as the student runs it in their own copy (a batch's pages).

    A student cannot run the hidden suite: for a hidden test their command runs the public tests of its
    ``task``, the closest check they have. The instructor's (``instructor``) carries the submission seed
    and ``--hidden``, so it replays the same inputs anywhere; it belongs to the instructor's views only.
    ``lesson`` (``lesson_flag``) adds `--lesson NAME`, so the command grades the lesson the test is of.
    """
    name = test_id.split("::")[-1]
    func, _, param = name.partition("[")
    param = param.rstrip("]")
    where = f" {shlex.quote(path)}" if path else ""
    pick = f" --lesson {shlex.quote(lesson)}" if lesson else ""
    hidden = test_id.startswith("hidden/")
    if hidden and not instructor:
        return f"grade{where}{pick} -k {shlex.quote(task)}" if task else f"grade{where}{pick}"
    # -k can spell ids like "4-6" or "problem2-solved"; bare indices say nothing
    expr = f"{func} and {param}" if re.fullmatch(r"[\w.+-]*[A-Za-z-][\w.+-]*", param) else func
    replay = f"GK_GRADING_SEED={seed} " if hidden and seed and re.fullmatch(r"[0-9a-f]+", seed) else ""
    return f"{replay}grade{where}{pick}{' --hidden' if hidden else ''} -k {shlex.quote(expr)}"


def replay_commands(results: ResultsView, path: str) -> list[tuple[str, str]]:
    """The instructor's command replaying each failed hidden test (its seed and --hidden), by test id:
    for the instructor's views (the class summary), never a student's page."""
    seed = (results.get("replay") or {}).get("seed")
    lesson = lesson_flag(results, path)
    return [(str(t["id"]), reproduce_command(str(t["id"]), path, seed, lesson, instructor=True))
            for t in results.get("tests", []) if t.get("status") != "passed"
            and str(t.get("id", "")).startswith("hidden/")]


_NOTEBOOK_STATEMENT = re.compile(r" cell \d+(?: line \d+)?: `")


# a file read with a conversion (core/text.py's notes): graded, so never "ignored"
_CONVERTED = re.compile(r"^(?P<file>[^:\n]+): (?:saved in the Korean Windows encoding \(cp949\)|"
                        r"(?P<utf16>saved as UTF-16))")


def converted_files(results: ResultsView, lang: str) -> list[str]:
    """Each file the grader read by converting its encoding, in ``lang``: it was graded, but a .py file so
    saved is one Python itself refuses to run, which the student must hear (it never reads as "ignored")."""
    out = []
    for d in results.get("dropped") or []:
        m = _CONVERTED.match(str(d))
        if not m:
            continue
        name = m["file"]
        enc_en, enc_ko = (("UTF-16", "UTF-16") if m["utf16"] else
                          ("the Korean Windows encoding (CP949)", "한국어 Windows 인코딩(CP949)"))
        error = "source code cannot contain null bytes" if m["utf16"] else "Non-UTF-8 code ..."
        if name.endswith(".py"):
            out.append(
                f"{particle(name, '은')} 저장 인코딩이 UTF-8이 아니라 {enc_ko}입니다: 채점기는 변환해서 "
                f"채점했지만 파이썬은 이 파일을 실행하지 못합니다(SyntaxError: {error}). UTF-8로 "
                "저장하세요(VS Code: 아래 상태 표시줄의 인코딩 → '인코딩하여 저장' → UTF-8)."
                if lang == "ko" else
                f"{name} is saved in {enc_en}, not UTF-8: the grader converted it and graded it, but Python "
                f"itself refuses to run it (SyntaxError: {error}). Save it as UTF-8 (VS Code: the encoding "
                "in the status bar, then 'Save with Encoding', UTF-8).")
        else:
            out.append(f"{particle(name, '은')} 저장 인코딩이 {enc_ko}이라 UTF-8로 변환해 읽었습니다."
                       if lang == "ko" else f"{name} is saved in {enc_en}: read by converting it to UTF-8.")
    return out


def ignored_files(results: ResultsView) -> list[str]:
    """What results.json's ``dropped`` lists, less a notebook's statements that were not run: those are
    the notebook's notes (``artifacts.notebook``), which the pages give in the reader's language; less
    a file read by converting it (``converted_files``: it was graded)."""
    dropped = [str(d) for d in results.get("dropped") or [] if not _CONVERTED.match(str(d))]
    if not (results.get("artifacts") or {}).get("notebook"):
        return dropped
    return [d for d in dropped if not _NOTEBOOK_STATEMENT.search(d)]


def task_title(task: str | None, lang: str, titles: Titles | None = None) -> str:
    """A task's title: from ``titles`` (a result's lesson, report/lesson_tasks.py), else this lesson's."""
    return title_of(task_titles(None) if titles is None else titles, task, lang)


def final_score(results: ResultsView) -> tuple[float | str, float]:
    """What a page leads with: the term's final total over its maximum where the instructor's term
    gave one (results.json ``final``), ``EX`` for an excused student; else the grader's score."""
    final = results.get("final") or {}
    top = float(final.get("max") or results.get("max_score") or 0.0)
    if final.get("excused"):
        return "EX", top
    return float(final.get("total", results.get("score")) or 0.0), top


def task_score(results: ResultsView, task: str) -> float:
    """A task's points as the pages show them: after the instructor's and TAs' decisions (``final``)."""
    final = (results.get("final") or {}).get("tasks") or {}
    graded = ((results.get("tasks") or {}).get(task) or {}).get("score", 0.0)
    return float(final.get(task, graded) or 0.0)


def task_rows(results: ResultsView, lang: str) -> list[dict[str, Any]]:
    rows = []
    order, titles = task_order(results), task_titles(results)
    for task in [*order, *sorted(set(results.get("tasks") or {}) - set(order))]:
        tot = results.get("tasks", {}).get(task)
        if not tot:
            continue
        score = task_score(results, task)
        frac = score / tot["max_score"] if tot["max_score"] else 1.0
        rows.append({
            "task": task, "title": task_title(task, lang, titles), "score": score,
            "max_score": tot["max_score"],
            "passed": tot["passed"], "total": tot["total"], "percent": round(100 * frac),
            "level": "good" if frac >= 0.999 else ("mid" if frac >= 0.5 else "bad"),
        })
    return rows


def failure_rows(results: ResultsView, lang: str, path: str) -> list[dict[str, Any]]:
    rows = []
    seed = (results.get("replay") or {}).get("seed")
    order, titles = task_order(results), task_titles(results)
    hooks = report_hooks(results)  # the lesson's words for a check's picture, its causes across checks
    lesson = lesson_flag(results, path)
    for t in results.get("tests", []):
        if t["status"] == "passed":
            continue
        messages = t.get("messages") or {}
        text = messages.get(lang) or t.get("message", "")
        record, legacy = read_record(t)  # what the check found (grader/core/finding.py)
        parts = card_parts(record, lang, text)
        rows.append({
            "id": t["id"], "task": t.get("task"), "task_title": task_title(t.get("task"), lang, titles),
            "task_rank": rank(order, t.get("task")),  # the lesson's order, for the cards (report/cards.py)
            "status": t["status"], "status_word": status_word(t["status"], lang),
            "points": t["max_score"], "text": text, "parts": parts, "record": record,
            "hidden": t["id"].startswith("hidden/"),
            "reproduce": reproduce_command(t["id"], path, seed, lesson, task=t.get("task")),
            # grouping reads the record's cause and the figure's diagnosis (one card per cause: cards.py)
            "figure_data": t.get("figure"),
            # a results.json from before records: its words, for a lesson's own reading of them (Causes)
            "legacy": legacy, "messages": messages,
            "figure": figure_view(t.get("figure"), lang, hooks.figure_texts),
            # a task that already earns points is not "not started", whatever else still raises
            "task_scored": float(((results.get("tasks") or {}).get(t.get("task")) or {}).get("score", 0)) > 0,
        })
        _causes(rows[-1], hooks.causes, lang)
    # by task in rubric order, the public (reproducible) failures of a task first
    rows.sort(key=lambda r: (r["task_rank"], r["hidden"]))
    _given_back(results, rows, lang)
    return rows


def _causes(row: dict[str, Any], causes: Causes | None, lang: str) -> None:
    """The lesson's word on ``row``'s cause across checks, for the cards (report/cards.py): the cause it
    names, else the one that explains it and that link's words; None each where the lesson has none."""
    row["cause_named"] = row["explained_by"] = row["link"] = None
    if causes is None:
        return
    failed = FailedCheck(id=row["id"], task=row["task"], status=row["status"], record=row["record"],
                         figure=row["figure_data"] if isinstance(row["figure_data"], Mapping) else None,
                         messages=row["messages"], text=row["text"], legacy=bool(row["legacy"]))
    row["cause_named"] = causes.cause_of(failed)
    if row["cause_named"] is None and causes.explained_by is not None and causes.link_text is not None:
        row["explained_by"] = causes.explained_by(failed)
        row["link"] = causes.link_text(row["explained_by"], lang) if row["explained_by"] else None


def _given_back(results: ResultsView, rows: list[dict[str, Any]], lang: str) -> None:
    """What an instructor's adjustment gave back to a task (its final score above what its checks
    earned) comes off the points its failed checks show lost, first check first, each saying so: the
    cards never show a loss the total no longer holds."""
    for task, tot in (results.get("tasks") or {}).items():
        back = round(task_score(results, task) - float(tot.get("score") or 0.0), 4)
        for row in (r for r in rows if r.get("task") == task):
            if back <= 0:
                break
            part = min(float(row["points"] or 0.0), back)
            if part <= 0:
                continue
            back = round(back - part, 4)
            row["points"] = round(float(row["points"]) - part, 4)
            row["text"] = f"{row['text']} {translate('given_back_note', lang, n=f'{part:g}')}"


__all__ = ["failure_rows", "lesson_flag", "replay_commands", "reproduce_command", "student_output",
           "task_rows"]
