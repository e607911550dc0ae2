"""The graded lesson's own report blocks (``Lesson.report_sections``), ready for the feedback templates.

The lesson is the one results.json records (report/lesson_tasks.py's ``lesson_of``), so a report shows
that lesson's blocks and no other's; a lesson that declares none, or is not installed here, adds none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from grader.engine.lesson_api import Section
from grader.report.lesson_tasks import lesson_of


def hook_sections(lesson: Any, hook_name: str, *args: Any) -> list[Section]:
    """What the lesson's ``hook_name`` hook gives for ``args`` (none without the hook), each a
    ``lesson_api.Section``: anything else is the lesson's bug, said where it is rather than half-drawn."""
    hook = getattr(lesson, hook_name, None)
    sections = list(hook(*args)) if hook is not None else []
    for section in sections:
        if not isinstance(section, Section):
            raise TypeError(f"{hook_name} gave {type(section).__name__}, not a lesson_api.Section")
    return sections


def lesson_sections(results: Mapping[str, Any], lang: str, *, report: bool = False) -> list[dict[str, Any]]:
    """Each block as the templates read it: key, title (in ``lang``), html (trusted markup), markdown, and
    how it is placed (heading, late, document). ``report``: for feedback.html/.md, every block; otherwise
    for check()'s notebook view, the blocks it shows (``Section.in_check``)."""
    lesson = lesson_of(results, default=True)  # results from before they named a lesson: the default's
    out = []
    graded = {t.get("task") for t in results.get("tests") or []}
    for section in hook_sections(lesson, "report_sections", results, lang):
        if not (report or section.in_check):
            continue
        # a page states only what was graded: a run that graded checks, none of this block's task (-k),
        # leaves it out; results with no tests at all (from before blocks named a task) show every block
        if section.task and graded and section.task not in graded:
            continue
        out.append(
            {
                "key": section.key,
                "title": section.title_in(lang),
                # the lesson built this markup and escaped its texts (lesson_api.Section)
                "html": Markup(section.html),
                "markdown": section.markdown.strip("\n"),
                "heading": section.heading,
                "late": section.late,
                "document": section.document,
            }
        )
    return out


def document_summary(sections: list[dict[str, Any]]) -> Mapping[str, Any] | None:
    """The graded document's review in brief (``present``, ``points``, ``max_points``), from the block
    that reviews it; None where no block does (or the document was not graded in this run)."""
    return next((s["document"] for s in sections if s["document"] is not None), None)


__all__ = ["document_summary", "hook_sections", "lesson_sections"]
