"""The tasks a report shows, in order and with their titles, read from the results it renders.

results.json records the lesson it was graded against (``lesson.tasks``: names and titles in report
order, grader/engine/lessons.py), so a report of another lesson titles and orders that lesson's tasks.
Results written before that field (and a class of them) fall back to the list of the lesson chosen where
the report is written (engine/lessons.py ``choose``), loaded through the engine's loader (the reports
import no lesson).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from grader.engine.lesson_api import ReportHooks
from grader.engine.lessons import load_lesson
from grader.engine.usage import UsageProblem

Titles = dict[str, tuple[str, str]]  # task → (English title, Korean title)


def recorded_tasks(results: Mapping[str, Any] | None) -> list[dict[str, str]] | None:
    """The tasks ``results`` records, or None where it records none (or not as a list of named tasks)."""
    lesson = (results or {}).get("lesson")
    tasks = lesson.get("tasks") if isinstance(lesson, Mapping) else None
    if not isinstance(tasks, list) or not all(isinstance(t, Mapping) and t.get("name") for t in tasks):
        return None
    return [
        {"name": str(t["name"]), "en": str(t.get("en") or t["name"]), "ko": str(t.get("ko") or t["name"])}
        for t in tasks
    ]


def default_tasks() -> list[dict[str, str]]:
    """The tasks of the lesson chosen here (engine/lessons.py ``choose``), for results that record none;
    none where nothing here chooses one."""
    try:
        lesson = load_lesson()
    except (ImportError, TypeError, UsageProblem):
        return []
    return [{"name": t.name, "en": t.en, "ko": t.ko} for t in lesson.tasks]


def _tasks(results: Mapping[str, Any] | None) -> list[dict[str, str]]:
    tasks = recorded_tasks(results)
    return default_tasks() if tasks is None else tasks


def task_titles(results: Mapping[str, Any] | None) -> Titles:
    return {t["name"]: (t["en"], t["ko"]) for t in _tasks(results)}


def task_order(results: Mapping[str, Any] | None) -> tuple[str, ...]:
    return tuple(t["name"] for t in _tasks(results))


def title_of(titles: Titles, task: str | None, lang: str) -> str:
    """A task's title in ``lang``; its name where the lesson gives none."""
    en, ko = titles.get(task or "", (task or "?", task or "?"))
    return ko if lang == "ko" else en


def rank(order: tuple[str, ...], task: str | None) -> int:
    """A task's place in the lesson's order (unknown tasks after all of them)."""
    return order.index(task) if task in order else len(order)


def lesson_of(results: Mapping[str, Any] | None, default: bool = False) -> Any | None:
    """The ``Lesson`` ``results`` was graded against (its module, through the engine's loader: the
    reports import no lesson); with ``default``, the lesson chosen here for results that record none.
    None where it is not installed here, or nothing here chooses one."""
    lesson = (results or {}).get("lesson")
    module = lesson.get("module") if isinstance(lesson, Mapping) else None
    try:
        if isinstance(module, str) and module:
            return load_lesson(module)
        return load_lesson() if default else None
    except (ImportError, TypeError, UsageProblem):  # graded elsewhere, with a lesson this machine lacks
        return None


def templates_of(results: Mapping[str, Any] | None) -> Path | None:
    """The templates folder of the lesson ``results`` was graded against (``Lesson.templates``), searched
    before the kit's; None where it declares none or is not installed here."""
    lesson = lesson_of(results)
    folder = lesson.templates if lesson is not None else None
    return folder if folder is not None and folder.is_dir() else None


def report_hooks(results: Mapping[str, Any] | None) -> ReportHooks:
    """The report hooks of the lesson ``results`` was graded against (results that record no lesson: the
    one chosen here's); a lesson not installed here adds nothing (no hooks)."""
    lesson = lesson_of(results, default=True)
    return lesson.report if lesson is not None else ReportHooks()


def class_results(results: Iterable[Mapping[str, Any] | None]) -> Mapping[str, Any] | None:
    """The results a class page takes its tasks from: the first that records its lesson."""
    return next((r for r in results if recorded_tasks(r) is not None), None)
