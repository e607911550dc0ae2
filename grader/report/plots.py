"""Plots for feedback.html: SVG written by hand (svg_chart.py) and inlined as data URIs.

SVG by hand rather than matplotlib: importing and running matplotlib cost about
a second of every grade for two small charts, and it could only guess at the
Hangul it measured. The text stays SVG <text>, so the reader's browser draws
it with its own fonts (Korean-capable ones first, CJK_FONTS). Data URIs rather
than inline <svg>: an <img> can never run script, and nothing in one plot can
clash with the page or another plot. Labels and legends are in the report's
language (i18n.py).
"""

from __future__ import annotations

import base64
from typing import Any

from grader.report import svg_chart
from grader.report.exp_view import mean_by_mode
from grader.report.i18n import translate
from grader.report.svg_chart import CJK_FONTS, Bars, Line

__all__ = ["CJK_FONTS", "COLOURS", "accuracy_bars", "colour", "data_uri", "loss_curves"]

COLOURS = {"none": "#9e9e9e", "sin": "#1f77b4", "learned": "#d62728"}
# for a mode the lesson does not have, in order of appearance
EXTRA_COLOURS = ("#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")


def colour(mode: str, modes: list[str]) -> str:
    if mode in COLOURS:
        return COLOURS[mode]
    others = [m for m in modes if m not in COLOURS]
    return EXTRA_COLOURS[others.index(mode) % len(EXTRA_COLOURS)] if mode in others else "#444"


def data_uri(svg: str | None) -> str | None:
    if svg is None:
        return None
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def loss_curves(view: dict[str, Any], lang: str = "en") -> str | None:
    """Loss per step: each seed thin, the mean over seeds thick, one colour per mode."""
    if not view.get("has_curves"):
        return None
    thin, means = [], []
    for mode in view["modes"]:
        curves = [r["losses"] for r in view["rows"] if r["mode"] == mode and r["losses"]]
        if not curves:
            continue
        c = colour(mode, view["modes"])
        thin += [Line(curve, c, width=1.0, opacity=0.35) for curve in curves]
        n = min(len(curve) for curve in curves)
        mean = [sum(curve[i] for curve in curves) / len(curves) for i in range(n)]
        means.append(Line(mean, c, width=2.2, label=translate("plot_runs", lang, mode=mode, n=len(curves))))
    # the means over every seed's line
    return data_uri(svg_chart.line_chart(thin + means, x_title=translate("plot_step", lang),
                                         y_title=translate("plot_loss", lang)))


def accuracy_bars(view: dict[str, Any], lang: str = "en") -> str | None:
    """Mean accuracy per mode at each length, the bag-of-tokens bound as a dashed line."""
    lengths = view.get("lengths") or []
    means = mean_by_mode(view)
    if not lengths or not means:
        return None
    modes = [m for m in view["modes"] if m in means]
    bars = [Bars([means[m].get(n) for n in lengths], colour(m, view["modes"]), label=m) for m in modes]
    return data_uri(svg_chart.bar_chart(
        [f"T={n}" for n in lengths], bars, refs=[view["bound"].get(n) for n in lengths],
        ref_label=translate("plot_bound", lang), y_title=translate("plot_accuracy", lang)))
