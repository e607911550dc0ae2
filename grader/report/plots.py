"""The reports' plots: SVG written by hand (svg_chart.py) and inlined as data URIs, in one palette.

SVG by hand rather than matplotlib: importing and running matplotlib cost about
a second of every grade for two small charts, and it could only guess at the
Hangul it measured. The text stays SVG <text>, so the reader's browser draws
it with its own fonts (Korean-capable ones first, CJK_FONTS). Data URIs rather
than inline <svg>: an <img> can never run script, and nothing in one plot can
clash with the page or another plot. Labels and legends are in the report's
language. A lesson draws its own charts with these (this course's experiment curves:
grader/lesson/report/charts.py).
"""

from __future__ import annotations

import base64

from grader.report.svg_chart import CJK_FONTS

__all__ = ["CJK_FONTS", "COLOURS", "colour", "data_uri"]

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
