"""The graded lesson's own report blocks (``ReportHooks.sections``), ready for the feedback templates.

The lesson is the one results.json records (report/lesson_tasks.py's ``lesson_of``), so a report shows
that lesson's blocks and no other's; a lesson that declares none, or is not installed here, adds none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from markupsafe import Markup

from grader.engine.lesson_api import Section
from grader.report.lesson_tasks import report_hooks


def checked(sections: Iterable[Any], hook: str) -> list[Section]:
    """What the lesson's hook (named ``hook`` in the error) gave, each a ``lesson_api.Section``: anything
    else is the lesson's bug, said where it is rather than half-drawn."""
    sections = list(sections)
    for section in sections:
        if not isinstance(section, Section):
            raise TypeError(f"{hook} gave {type(section).__name__}, not a lesson_api.Section")
    return sections


def lesson_sections(results: Mapping[str, Any], lang: str, *, report: bool = False) -> list[dict[str, Any]]:
    """Each block as the templates read it: key, title (in ``lang``), html (trusted markup), markdown, and
    how it is placed (heading, late, document). ``report``: for feedback.html/.md, every block; otherwise
    for check()'s notebook view, the blocks it shows (``Section.in_check``)."""
    hooks = report_hooks(results)  # results from before they named a lesson: the one chosen here
    out = []
    graded = {t.get("task") for t in results.get("tests") or []}
    for section in checked(hooks.sections(results, lang) if hooks.sections else (), "sections"):
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
                "task": section.task,
            }
        )
    return out


def document_summary(sections: list[dict[str, Any]]) -> Mapping[str, Any] | None:
    """The graded document's review in brief (``present``, ``points``, ``max_points``), from the block
    that reviews it; None where no block does (or the document was not graded in this run)."""
    return next((s["document"] for s in sections if s["document"] is not None), None)


__all__ = ["checked", "document_summary", "lesson_sections"]
