"""The reports' plots: SVG written by hand (svg_chart.py) and inlined as data URIs, in one palette.

SVG by hand rather than matplotlib: importing and running matplotlib cost about
a second of every grade for two small charts, and it could only guess at the
Hangul it measured. The text stays SVG <text>, so the reader's browser draws
it with its own fonts (Korean-capable ones first, CJK_FONTS). Data URIs rather
than inline <svg>: an <img> can never run script, and nothing in one plot can
clash with the page or another plot. Labels and legends are in the report's
language. A lesson draws its own charts with these (this course's experiment curves:
a lesson's report charts).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence

from grader.report.svg_chart import CJK_FONTS

__all__ = ["CJK_FONTS", "PALETTE", "colour", "data_uri"]

# The kit's series colours, in order of appearance; a lesson may fix some series' colours (its modes, say)
# and the other series then skip the colours it took, so no two series share one.
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
UNLISTED = "#444"  # a series missing from ``names``


def colour(name: str, names: Sequence[str], fixed: Mapping[str, str] | None = None) -> str:
    """The colour of series ``name`` among ``names`` (in order of appearance): ``fixed``'s where it has
    one, else the next palette colour that no fixed series uses."""
    fixed = fixed or {}
    if name in fixed:
        return fixed[name]
    others = [n for n in names if n not in fixed]
    spare = [c for c in PALETTE if c not in fixed.values()] or list(PALETTE)
    return spare[others.index(name) % len(spare)] if name in others else UNLISTED


def data_uri(svg: str | None) -> str | None:
    if svg is None:
        return None
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
