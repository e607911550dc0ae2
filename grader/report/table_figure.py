"""A failed check's two tables drawn side by side (its ``figure`` record), for any lesson.

The record holds the tables (``found``, the student's, and ``expected``, each a list of rows, cut to
what is shown), the shown cells that are ``wrong`` ([row, column] pairs) and their counts; the graded
lesson says what the tables are (``ReportHooks.figure_texts``: titles, axes, captions, in the report's
language), the kit draws them: two heatmaps as inline SVG (the wrong cells outlined, each with
``data-wrong``) for feedback.html and check(), and a text grid of the wrong cells for feedback.md, where
GitHub draws no SVG.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from markupsafe import Markup

from grader.engine.lesson_api import FigureTexts
from grader.report import svg_chart
from grader.report.i18n import translate

# A failed check's ``figure`` record and a language -> the words of its picture (``ReportHooks.figure_texts``)
TextsOf = Callable[[Mapping[str, Any], str], FigureTexts | None]


def figure_view(figure: Any, lang: str, texts_of: TextsOf | None) -> dict[str, Any] | None:
    """What the templates need for one failed check's picture, in ``lang``: the lesson's words for it
    (``texts_of``, the lesson's ``ReportHooks.figure_texts``), drawn; None where the check kept no picture
    or the lesson draws none of its kind (no ``texts_of`` at all: none)."""
    if not isinstance(figure, Mapping) or texts_of is None:
        return None
    texts = texts_of(figure, lang)
    return two_tables(figure, texts, lang) if texts is not None else None


def two_tables(figure: Mapping[str, Any], texts: FigureTexts, lang: str) -> dict[str, Any] | None:
    """The record's two tables with ``texts`` (a lesson may call this for a block of its own); None
    where either table has no cell."""
    found, expected = figure.get("found") or [], figure.get("expected") or []
    wrong = [(int(r), int(c)) for r, c in figure.get("wrong") or []]
    words = dict(texts.cell_words)
    svg_found = svg_chart.heatmap(found, title=texts.found_title, wrong=wrong, row_title=texts.row_title,
                                  col_title=texts.col_title, words=words)
    svg_expected = svg_chart.heatmap(expected, title=texts.expected_title, row_title=texts.row_title,
                                     col_title=texts.col_title, words=words)
    if svg_found is None or svg_expected is None:
        return None
    cause = figure.get("cause") or {}
    return {
        "kind": str(figure.get("kind", "")),  # the page's data-figure (this course's: "pe-diff", contract.md)
        "label": texts.label,
        "what": str(figure.get("what", "")),
        "found": Markup(svg_found), "expected": Markup(svg_expected),
        "wrong": len(wrong), "wrong_total": int(figure.get("wrong_total", len(wrong))),
        "cells_total": int(figure.get("cells_total", 0)),
        "count": texts.count,
        "crop": texts.crop,
        "scale": texts.scale or translate("fig_scale", lang),  # the kit's heatmap: diverging around 0
        "cause": str(cause.get(lang) or cause.get("en") or ""),
        "cause_key": str(cause.get("key") or ""),
        "grid_title": texts.grid_title,
        "grid": text_grid(found, wrong),
    }


def text_grid(found: list[list[Any]], wrong: list[tuple[int, int]]) -> str:
    """The student's shown cells as characters: ■ wrong, · right."""
    bad = set(wrong)
    n_cols = max((len(r) for r in found), default=0)
    width = max(2, len(str(max(len(found), n_cols) - 1)) + 1)
    lines = [" " * 4 + "".join(f"{c:>{width}}" for c in range(n_cols))]
    for r, row in enumerate(found):
        cells = "".join(f"{'■' if (r, c) in bad else '·':>{width}}" for c in range(len(row)))
        lines.append(f"{r:>3} {cells}")
    return "\n".join(lines)


__all__ = ["figure_view", "text_grid", "two_tables"]
