"""This lesson's experiment charts in the report: the loss curves and the accuracy bars per length, drawn
with the kit's SVG charts (grader/report/plots.py, svg_chart.py), each mode in its colour (MODE_COLOURS;
a mode the lesson does not have in the kit's palette)."""

from __future__ import annotations

from typing import Any

from grader.author import Bars, Line, bar_chart, colour, data_uri, line_chart
from lesson_embedding_pe.class_report import MODE_COLOURS
from lesson_embedding_pe.report.experiment_view import mean_by_mode
from lesson_embedding_pe.report.texts import t

__all__ = ["accuracy_bars", "loss_curves"]


def loss_curves(view: dict[str, Any], lang: str = "en") -> str | None:
    """Loss per step: each seed thin, the mean over seeds thick, one colour per mode."""
    if not view.get("has_curves"):
        return None
    thin, means = [], []
    for mode in view["modes"]:
        curves = [r["losses"] for r in view["rows"] if r["mode"] == mode and r["losses"]]
        if not curves:
            continue
        c = colour(mode, view["modes"], MODE_COLOURS)
        thin += [Line(curve, c, width=1.0, opacity=0.35) for curve in curves]
        n = min(len(curve) for curve in curves)
        mean = [sum(curve[i] for curve in curves) / len(curves) for i in range(n)]
        means.append(Line(mean, c, width=2.2, label=t("plot_runs", lang, mode=mode, n=len(curves))))
    # the means over every seed's line
    return data_uri(line_chart(thin + means, x_title=t("plot_step", lang), y_title=t("plot_loss", lang)))


def accuracy_bars(view: dict[str, Any], lang: str = "en") -> str | None:
    """Mean accuracy per mode at each length, the bag-of-tokens bound as a dashed line."""
    lengths = view.get("lengths") or []
    means = mean_by_mode(view)
    if not lengths or not means:
        return None
    modes = [m for m in view["modes"] if m in means]
    bars = [Bars([means[m].get(n) for n in lengths], colour(m, view["modes"], MODE_COLOURS), label=m)
            for m in modes]
    return data_uri(bar_chart(
        [f"T={n}" for n in lengths], bars, refs=[view["bound"].get(n) for n in lengths],
        ref_label=t("plot_bound", lang), y_title=t("plot_accuracy", lang)))
