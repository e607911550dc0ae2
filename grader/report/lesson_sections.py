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


def lesson_sections(results: Mapping[str, Any], lang: str) -> list[dict[str, Any]]:
    """Each block as the templates read it: key, title (in ``lang``), html (trusted markup), markdown."""
    lesson = lesson_of(results)
    hook = getattr(lesson, "report_sections", None)
    if hook is None:
        return []
    out = []
    for section in hook(results, lang):
        if not isinstance(section, Section):  # a lesson's bug, said where it is rather than half-drawn
            raise TypeError(f"report_sections gave {type(section).__name__}, not a lesson_api.Section")
        out.append(
            {
                "key": section.key,
                "title": section.title_in(lang),
                # the lesson built this markup and escaped its texts (lesson_api.Section)
                "html": Markup(section.html),
                "markdown": section.markdown.strip("\n"),
            }
        )
    return out


__all__ = ["lesson_sections"]
