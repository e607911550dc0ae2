"""The graded lesson's own blocks of a batch's class page (``ReportHooks.class_sections``), for summary.html.

The lesson is the one the class's results record (report/lesson_tasks.py: the first that records one;
results from before that record, the lesson chosen here, as the task columns read them), so an attention
batch shows none of another lesson's blocks; a lesson that declares none, or is not installed here, adds
none. The hook gets the kit's charts (``KitCharts``) as a parameter: the page's palette and chart style
reach the lesson through a typed interface (``lesson_api.ClassCharts``), not the kit's report internals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from grader.engine.lesson_api import Section
from grader.report import svg_chart
from grader.report.lesson_sections import checked
from grader.report.lesson_tasks import class_results, report_hooks
from grader.report.plots import colour, data_uri


class KitCharts:
    """``lesson_api.ClassCharts``: the kit's SVG charts as data URIs, in its palette (report/plots.py)."""

    def dots(self, groups: Sequence[str], values: Sequence[Sequence[float]], series: Sequence[str], *,
             refs: Sequence[float | None] = (), ref_label: str = "", y_title: str = "",
             colours: Mapping[str, str] | None = None) -> str | None:
        names = list(dict.fromkeys(series))  # a series the lesson gives no colour takes the next spare one
        dots = [svg_chart.Dots(v, colour(s, names, colours)) for v, s in zip(values, series, strict=True)]
        return data_uri(svg_chart.dot_chart(list(groups), dots, refs=list(refs), ref_label=ref_label,
                                            y_title=y_title))


CHARTS = KitCharts()


def heading(section: Section) -> str:
    """The bilingual page's heading: "English / 한국어", one title where the lesson gives one."""
    en, ko = section.title_en, section.title_ko
    return f"{en} / {ko}" if ko and ko != en else en or ko


def class_sections(results: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each block as summary.html reads it: key, title (both languages), html (trusted markup)."""
    hook = report_hooks(class_results(results)).class_sections
    if hook is None:
        return []
    # the lesson built this markup and escaped its texts (ReportHooks.class_sections)
    return [{"key": section.key, "title": heading(section), "html": Markup(section.html.strip("\n"))}
            for section in checked(hook(results, CHARTS), "class_sections")]


__all__ = ["CHARTS", "KitCharts", "class_sections", "heading"]
