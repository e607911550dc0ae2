"""The words of this lesson's table picture (``ReportHooks.figure_texts``).

A failed check of a sinusoidal table keeps the student's table and the formula's as its ``figure`` (kind
"pe-diff", pe_checks.py ``table_figure``: of sinusoidal_pe's return value, or of the rows
forward added); the kit draws the two side by side, the wrong cells outlined (grader/report/table_figure.py),
with these titles, axes and captions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from grader.author import FigureTexts
from lesson_embedding_pe.report.texts import t

KIND = "pe-diff"  # pe_checks.table_figure's records (and results.json files stored before this module)


def figure_texts(figure: Mapping[str, Any], lang: str) -> FigureTexts | None:
    """The picture's words in ``lang``; None for a record of another kind."""
    if figure.get("kind") != KIND:
        return None
    forward = figure.get("subject") == "forward"
    fshape, eshape = figure.get("found_shape") or [0, 0], figure.get("expected_shape") or [0, 0]
    wrong_total = int(figure.get("wrong_total", len(figure.get("wrong") or [])))
    cause = figure.get("cause") or {}
    return FigureTexts(
        label=t("fig_title", lang),
        found_title=t("fig_found_forward" if forward else "fig_found", lang, shape=_shape(fshape)),
        expected_title=t("fig_expected_forward" if forward else "fig_expected", lang, shape=_shape(eshape)),
        row_title=t("fig_rows", lang),
        col_title=t("fig_cols", lang),
        # no wrong cell (a float64 table): the caption says what did fail
        count=(t("fig_count_forward" if forward else "fig_count", lang, n=wrong_total,
                 total=int(figure.get("cells_total", 0)))
               if wrong_total else str(cause.get(lang) or cause.get("en") or "")),
        grid_title=t("fig_grid", lang),
        crop=_crop(figure, fshape, eshape, lang),
    )


def _crop(figure: Mapping[str, Any], fshape: list[int], eshape: list[int], lang: str) -> str:
    """Which rows and columns are shown, where the first table drawn is cut (pe_checks keeps 16 × 16)."""
    for shape, shown in ((fshape, figure.get("found") or []), (eshape, figure.get("expected") or [])):
        rows, cols = len(shown), max((len(r) for r in shown), default=0)
        if rows < shape[0] or cols < shape[1]:
            return t("fig_crop", lang, rows=_span(rows), n_rows=shape[0], cols=_span(cols), n_cols=shape[1])
    return ""


def _span(shown: int) -> str:
    return f"0–{shown - 1}" if shown > 1 else "0"


def _shape(shape: list[int]) -> str:
    return "(" + ", ".join(str(int(n)) for n in shape) + ")"


__all__ = ["KIND", "figure_texts"]
