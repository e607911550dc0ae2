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

from grader.engine.lessons import DEFAULT_LESSON, project_lesson
from grader.report.i18n import status_word
from grader.report.lesson_tasks import Titles, causes_of, rank, task_order, task_titles, title_of
from grader.report.table_figure import figure_texts_of, figure_view

_EN = re.compile(r"^(?P<what>.*?)\s*\bexpected\s+(?P<exp>.+?);\s*found\s+(?P<found>.+?)"
                 r"(?:\.\s+(?P<rest>.*)|\.?)$", re.S)
# "X: after .to('meta'), forward should work; found Y": the same card without the word "expected"
_EN_SHOULD = re.compile(r"^(?:(?P<what>[^:;]*?):\s+)?(?P<exp>[^;]*?\bshould\b[^;]*?);"
                        r"\s*found\s+(?P<found>.+?)"
                        r"(?:\.\s+(?P<rest>.*)|\.?)$", re.S)
_PAREN = r"\((?:[^()]|\([^()]*\))*\)"  # one parenthetical, one level of nesting: (… .to('cuda') …)
_KO = re.compile(r"^(?:(?P<what>[^:]*?):\s+)?(?P<exp>.+?)\s*하는데"
                 r"\s*(?P<found>.+?니다(?:" + _PAREN + r")?)\.?"
                 r"(?:\s+(?P<rest>.*))?$", re.S)
_LEADING_PAREN = re.compile(r"^\s*(?P<note>" + _PAREN + r")\s*(?P<rest>.+)$", re.S)
# A warning the grader's own runtime (gk_*.py in the worker) raised, with its source line.
_RUNTIME_WARNING = re.compile(r"^[^\n]*\bgk_\w+\.py:\d+: \w*Warning: .*?(?:\n  [^\n]*)$", re.M | re.S)
_CAUSE = re.compile(r"(?:Likely cause|원인 추정):\s*(?P<cause>.*)$", re.S)
# A cause that goes on with the fix: "Likely cause: C. Fix: F" / "원인 추정: C. 고치는 방법: F".
_FIX = re.compile(r"(?:^|(?<=[.;:)])\s+)(?:Fix|고치는 방법):\s*(?P<fix>.*)$", re.S)


def _cause_and_fix(cause: str) -> tuple[str, str]:
    m = _FIX.search(cause)
    return (cause[:m.start()].strip(), m.group("fix").strip()) if m else (cause.strip(), "")


def split_message(text: str, lang: str) -> dict[str, str]:
    """A TA message -> what / expected / found / likely cause / fix (best effort).

    The suites write "X: expected A; found B. Likely cause: C. Fix: F" and the Korean
    "X: A이어야 하는데 B입니다. 원인 추정: C. 고치는 방법: F"; text after expected / found with no
    "Likely cause:" is the fix. Anything else stays whole in `message`.
    """
    out = {"what": "", "expected": "", "found": "", "cause": "", "fix": "", "message": text}
    m = _KO.match(text.strip()) if lang == "ko" else (_EN.match(text.strip())
                                                      or _EN_SHOULD.match(text.strip()))
    if not m:
        cause = _CAUSE.search(text)
        if cause:
            out["cause"], out["fix"] = _cause_and_fix(cause.group("cause"))
        return out
    rest = (m.group("rest") or "").strip()
    expected, found = m.group("exp").strip(), m.group("found").strip()
    if lang == "ko":
        expected += " 함"
        # "A이어야 하는데 (설명) B입니다": the explanation is about what was expected
        lead = _LEADING_PAREN.match(found)
        if lead:
            expected, found = f"{expected} {lead.group('note')}", lead.group("rest").strip()
    out.update(what=(m.group("what") or "").strip().rstrip(":").strip(), expected=expected, found=found,
               message="")
    # What follows expected / found is the likely cause only where the message says so; otherwise it is
    # what to do ("Use self.register_buffer(...)"), shown as the fix, never under "Likely cause".
    cause = _CAUSE.search(rest)
    if cause:
        out["cause"], out["fix"] = _cause_and_fix(cause.group("cause"))
    else:
        out["fix"] = _cause_and_fix(rest)[1] or rest
    return out


def same_structure(parts: dict[str, str], other_text: str, other_lang: str, text: str) -> dict[str, str]:
    """A card has the same shape in both languages: structured only when both messages split."""
    if parts["expected"] and other_text and not split_message(other_text, other_lang)["expected"]:
        cause = parts["cause"] if not parts["cause"] or parts["cause"] in text else ""
        return {"what": "", "expected": "", "found": "", "cause": cause, "fix": "", "message": text}
    return parts


def student_output(text: str) -> str:
    """What the student's code printed, without warnings the grader's own runtime raised."""
    return _RUNTIME_WARNING.sub("", text or "").strip("\n")


def lesson_flag(results: Mapping[str, Any] | None, path: str) -> str | None:
    """The lesson a printed command must name with ``--lesson``: the one ``results`` was graded against,
    unless `grade PATH` picks it anyway, as the default or by the project setting (``[tool.grade]``, found
    from the submission, then the working folder: engine/lessons.py's ``select``). With no ``path`` (a
    batch's pages, run in the student's own copy) no setting is known, so any other lesson is named."""
    record = (results or {}).get("lesson")
    name = record.get("name") if isinstance(record, Mapping) else None
    if not isinstance(name, str) or not name or name == DEFAULT_LESSON:
        return None
    starts = (Path(path), Path.cwd()) if path else ()
    picked = next((found for start in starts if (found := project_lesson(start))), DEFAULT_LESSON)
    return None if picked == name else name


def reproduce_command(test_id: str, path: str, seed: str | None = None, lesson: str | None = None) -> str:
    """`grade PATH -k EXPR` selecting this test (its parameters too when -k can spell them); with no
    ``path``, `grade -k EXPR` as the student runs it in their own copy (a batch's pages).

    A hidden test's command carries the submission seed, so it replays the same inputs anywhere;
    ``lesson`` (``lesson_flag``) adds `--lesson NAME`, so the command grades the lesson the test is of.
    """
    name = test_id.split("::")[-1]
    func, _, param = name.partition("[")
    param = param.rstrip("]")
    # -k can spell ids like "4-6" or "problem2-solved"; bare indices say nothing
    expr = f"{func} and {param}" if re.fullmatch(r"[\w.+-]*[A-Za-z-][\w.+-]*", param) else func
    hidden = " --hidden" if test_id.startswith("hidden/") else ""
    replay = f"GK_GRADING_SEED={seed} " if hidden and seed and re.fullmatch(r"[0-9a-f]+", seed) else ""
    where = f" {shlex.quote(path)}" if path else ""
    pick = f" --lesson {shlex.quote(lesson)}" if lesson else ""
    return f"{replay}grade{where}{pick}{hidden} -k {shlex.quote(expr)}"


def task_title(task: str | None, lang: str, titles: Titles | None = None) -> str:
    """A task's title: from ``titles`` (a result's lesson, report/lesson_tasks.py), else this lesson's."""
    return title_of(task_titles(None) if titles is None else titles, task, lang)


def task_rows(results: dict, lang: str) -> list[dict[str, Any]]:
    rows = []
    order, titles = task_order(results), task_titles(results)
    for task in [*order, *sorted(set(results.get("tasks") or {}) - set(order))]:
        tot = results.get("tasks", {}).get(task)
        if not tot:
            continue
        frac = tot["score"] / tot["max_score"] if tot["max_score"] else 1.0
        rows.append({
            "task": task, "title": task_title(task, lang, titles), "score": tot["score"],
            "max_score": tot["max_score"],
            "passed": tot["passed"], "total": tot["total"], "percent": round(100 * frac),
            "level": "good" if frac >= 0.999 else ("mid" if frac >= 0.5 else "bad"),
        })
    return rows


def failure_rows(results: dict, lang: str, path: str) -> list[dict[str, Any]]:
    rows = []
    seed = (results.get("replay") or {}).get("seed")
    order, titles = task_order(results), task_titles(results)
    causes = causes_of(results)
    texts_of = figure_texts_of(results)  # the lesson's words for a check's picture (none: no picture)
    lesson = lesson_flag(results, path)
    for t in results.get("tests", []):
        if t["status"] == "passed":
            continue
        messages = t.get("messages") or {}
        text = messages.get(lang) or t.get("message", "")
        other = "en" if lang == "ko" else "ko"
        parts = same_structure(split_message(text, lang), messages.get(other, ""), other, text)
        rows.append({
            "id": t["id"], "task": t.get("task"), "task_title": task_title(t.get("task"), lang, titles),
            "task_rank": rank(order, t.get("task")),  # the lesson's order, for the cards (report/cards.py)
            "status": t["status"], "status_word": status_word(t["status"], lang),
            "points": t["max_score"], "text": text, "parts": parts,
            "hidden": t["id"].startswith("hidden/"),
            "reproduce": reproduce_command(t["id"], path, seed, lesson),
            # grouping reads the English text (one card per cause, report/cards.py) and the figure
            "en_text": messages.get("en") or t.get("message", ""), "figure_data": t.get("figure"),
            "figure": figure_view(t.get("figure"), lang, texts_of),
            # a task that already earns points is not "not started", whatever else still raises
            "task_scored": float(((results.get("tasks") or {}).get(t.get("task")) or {}).get("score", 0)) > 0,
        })
        if causes is not None:  # the lesson's word on causes across checks, for the cards
            row = rows[-1]
            row["cause_named"] = causes.cause_of(row)
            row["explained_by"] = None if row["cause_named"] else causes.explained_by(row)
            row["link"] = causes.link_text(row["explained_by"], lang) if row["explained_by"] else None
    # by task in rubric order, the public (reproducible) failures of a task first
    rows.sort(key=lambda r: (r["task_rank"], r["hidden"]))
    return rows


__all__ = ["failure_rows", "lesson_flag", "reproduce_command", "split_message", "student_output", "task_rows"]
