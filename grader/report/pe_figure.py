"""The student's sinusoidal table drawn beside the formula's (a failed test's ``figure``, lesson/pe_checks).

Two heatmaps as inline SVG (the wrong cells outlined, each with ``data-wrong``) for feedback.html and
check(), and a text grid of the wrong cells for feedback.md, where GitHub draws no SVG.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from grader.report import svg_chart
from grader.report.i18n import translate


def _span(shown: int, total: int) -> str:
    return f"0–{shown - 1}" if shown > 1 else "0"


def figure_view(figure: dict[str, Any] | None, lang: str) -> dict[str, Any] | None:
    """What the templates need for one picture, in ``lang``; None when the test kept no tables."""
    if not isinstance(figure, dict) or figure.get("kind") != "pe-diff":
        return None
    t = lambda key, **fmt: translate(key, lang, **fmt)  # noqa: E731
    forward = figure.get("subject") == "forward"
    found, expected = figure.get("found") or [], figure.get("expected") or []
    wrong = [tuple(c) for c in figure.get("wrong") or []]
    fshape, eshape = figure.get("found_shape") or [0, 0], figure.get("expected_shape") or [0, 0]
    axes = {"row_title": t("fig_rows"), "col_title": t("fig_cols")}
    title_found = t("fig_found_forward" if forward else "fig_found", shape=_shape(fshape))
    title_expected = t("fig_expected_forward" if forward else "fig_expected", shape=_shape(eshape))
    svg_found = svg_chart.heatmap(found, title=title_found, wrong=wrong, **axes)
    svg_expected = svg_chart.heatmap(expected, title=title_expected, **axes)
    if svg_found is None or svg_expected is None:
        return None
    crop = []
    for shape, shown in ((fshape, found), (eshape, expected)):
        rows, cols = len(shown), max((len(r) for r in shown), default=0)
        if rows < shape[0] or cols < shape[1]:
            crop.append(t("fig_crop", rows=_span(rows, shape[0]), n_rows=shape[0], cols=_span(cols, shape[1]),
                          n_cols=shape[1]))
    cause = figure.get("cause") or {}
    return {
        "what": str(figure.get("what", "")),
        "found": Markup(svg_found), "expected": Markup(svg_expected),
        "wrong": len(wrong), "wrong_total": int(figure.get("wrong_total", len(wrong))),
        "cells_total": int(figure.get("cells_total", 0)),
        # no wrong cell (a float64 table): the caption says what did fail
        "count": (t("fig_count_forward" if forward else "fig_count",
                    n=int(figure.get("wrong_total", len(wrong))), total=int(figure.get("cells_total", 0)))
                  if figure.get("wrong_total", len(wrong))
                  else str(cause.get(lang) or cause.get("en") or "")),
        "crop": crop[0] if crop else "",
        "scale": t("fig_scale"),
        "cause": str(cause.get(lang) or cause.get("en") or ""),
        "grid": text_grid(found, wrong),
    }


def _shape(shape: list[int]) -> str:
    return "(" + ", ".join(str(int(n)) for n in shape) + ")"


def text_grid(found: list[list[Any]], wrong: list[tuple[int, ...]]) -> str:
    """The student's shown cells as characters: ■ wrong, · right (rows are positions)."""
    bad = {(int(r), int(c)) for r, c in wrong}
    n_cols = max((len(r) for r in found), default=0)
    width = max(2, len(str(max(len(found), n_cols) - 1)) + 1)
    lines = [" " * 4 + "".join(f"{c:>{width}}" for c in range(n_cols))]
    for r, row in enumerate(found):
        cells = "".join(f"{'■' if (r, c) in bad else '·':>{width}}" for c in range(len(row)))
        lines.append(f"{r:>3} {cells}")
    return "\n".join(lines)


__all__ = ["figure_view", "text_grid"]
