"""`grade lessons`: the installed lessons (grader/engine/lessons.py), as a table or as JSON.

Each row is what a person needs to pick one (the name `--lesson` takes, its title) and to find its files
(the exercises and solutions folders its package declares), and which one `grade` would grade here
with no --lesson, and why (grader/engine/lessons.py ``choose``). A lesson whose module fails to import is
listed with the reason rather than hiding the others.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from grader.engine.lessons import Choice, LessonRef, choose, installed
from grader.engine.options import UsageProblem


def describe(ref: LessonRef, chosen: Choice | None = None) -> dict:
    """One lesson as `grade lessons --json` gives it: ``chosen`` (and ``why``, in English and Korean)
    where it is the lesson `grade` grades here with no --lesson."""
    row: dict = {"name": ref.name, "module": ref.module,
                 "chosen": chosen is not None and chosen.ref.name == ref.name}
    if chosen is not None and row["chosen"]:
        row["why"] = {"en": chosen.why("en"), "ko": chosen.why("ko")}
    try:
        lesson = ref.load()
    except Exception as exc:  # a broken lesson package: say so, list the rest
        return {
            **row,
            "title": None,
            "title_ko": None,
            "version": None,
            "exercises": None,
            "solutions": None,
            "suites": None,
            "error": str(exc) if isinstance(exc, UsageProblem) else f"{type(exc).__name__}: {exc}",
        }
    # JSON has no Path; a folder the package declares but this copy lacks (a student's release has no
    # solutions/) is None, never a path that does not exist
    folder = lambda p: None if p is None or not Path(p).is_dir() else str(p)  # noqa: E731
    return {
        **row,
        "title": lesson.title,
        "title_ko": lesson.title_ko or None,
        "version": lesson.version,
        "tasks": list(lesson.task_names),
        "exercises": folder(lesson.exercises),
        "solutions": folder(lesson.solutions),
        "suites": folder(lesson.suites),
    }


def table(rows: list[dict], unchosen: str = "") -> str:
    """The rows for a terminal: one block per lesson, its fields aligned, the chosen one marked with why;
    ``unchosen``: why none is, as a last line."""
    blocks = []
    for row in rows:
        why = row.get("why")
        head = row["name"] + (f" (graded here / 여기서 채점: {why['en']} / {why['ko']})" if why else "")
        if "error" in row:
            blocks.append(f"{head}\n  cannot load / 불러올 수 없음: {row['error']}")
            continue
        title = row["title"] + (f" / {row['title_ko']}" if row["title_ko"] else "")
        lines = [
            head,
            f"  title / 제목:         {title} (version {row['version']})",
            f"  exercises / 실습:     {row['exercises'] or '-'}",
            f"  solutions / 풀이:     {row['solutions'] or '- (not in this copy / 이 사본에는 없음)'}",
        ]
        blocks.append("\n".join(lines))
    if unchosen:
        blocks.append(f"none graded here without --lesson / --lesson 없이는 채점할 레슨 없음: {unchosen}")
    return "\n\n".join(blocks)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="grade lessons",
        description="List the installed lessons (`grade --lesson NAME` picks one) / 설치된 레슨 목록",
    )
    p.add_argument("--json", action="store_true", help="a JSON list of objects instead of the table")
    args = p.parse_args(argv)
    try:
        chosen: Choice | None = choose(None, Path.cwd())
        unchosen = ""
    except UsageProblem as exc:  # several installed and nothing here names one: the listing says so
        chosen, unchosen = None, str(exc)
    rows = [describe(ref, chosen) for ref in installed().values()]
    print(json.dumps(rows, ensure_ascii=False, indent=2) if args.json else table(rows, unchosen))
    return 1 if any("error" in row for row in rows) else 0
