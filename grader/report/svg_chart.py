"""Small charts as SVG text: line, grouped bar, dot and histogram charts.

No dependencies and no measuring fonts: the text stays SVG <text>, so the
reader's browser draws it (Hangul included) with its own fonts, and widths
are estimated generously (about 0.6 em per Latin character, 1 em per Hangul
or CJK one) to leave room for them. The root element carries a viewBox and a
fixed width/height, so an <img> with ``max-width: 100%; height: auto`` scales
it down to a phone. Output is deterministic: the same input gives the same
bytes (numbers are rounded and written compactly, nothing depends on time or
ids). Every function returns the SVG as a string, or None when there is
nothing to draw.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard

# Korean-capable fonts first: the browser, not this module, picks the one it has.
CJK_FONTS = ("NanumGothic", "NanumBarunGothic", "Noto Sans CJK KR", "Noto Sans KR", "Apple SD Gothic Neo",
             "Malgun Gothic", "UnDotum")
FONT_FAMILY = ", ".join(f"'{f}'" for f in (*CJK_FONTS, "DejaVu Sans")) + ", sans-serif"

WIDTH = 460  # viewBox units: on a 390 px phone (~350 px of image) a 12-unit label is still 9 px
SCALE = 600 / 460  # and 600 CSS px wide where there is room (labels about the page's 15 px)
FONT = 12.0  # tick labels and legend
MIN_FONT = 11.0  # no text smaller: a phone shows the charts at their own size, never scaled down
TITLE_FONT = 12.5  # axis titles
INK, MUTED, GRID, AXIS = "#222", "#444", "#e6e6e6", "#888"
PAD = 8.0
LABEL_LIMIT = 48  # characters of a legend entry or tick label (a mode name may come from a student)

Number = float | int | None


@dataclass(frozen=True)
class Line:
    """One series of a line chart: ``ys`` at ``xs`` (1, 2, ... when None); None/NaN points skipped."""

    ys: Sequence[Number]
    colour: str
    xs: Sequence[Number] | None = None
    width: float = 2.0
    opacity: float = 1.0
    label: str | None = None


@dataclass(frozen=True)
class Bars:
    """One series of a grouped bar chart: a value per group (None: no bar there)."""

    values: Sequence[Number]
    colour: str
    label: str | None = None


@dataclass(frozen=True)
class Dots:
    """The dots of one group of a dot chart."""

    values: Sequence[Number]
    colour: str


# -- text and numbers ---------------------------------------------------------------------------------------

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def escape(text: object) -> str:
    """Text safe inside an XML element or a double-quoted attribute."""
    s = _NOT_XML.sub("", str(text))
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def clip(text: object, limit: int = LABEL_LIMIT) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def text_width(text: str, size: float = FONT) -> float:
    """A generous estimate of the drawn width: 1 em per wide (Hangul, CJK) character, 0.6 em otherwise."""
    return size * sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.6 for c in text)


def num(x: float, digits: int = 2) -> str:
    """A coordinate, compactly: 12.5, 3, -0.25 (never 12.50, -0 or 1e-05)."""
    s = f"{x:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def finite(x: Number) -> TypeGuard[float | int]:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# -- axes ----------------------------------------------------------------------------------------------------


def nice_step(span: float, target: int = 5, integer: bool = False) -> float:
    """A step of 1, 2 or 5 × 10^k giving about ``target`` intervals over ``span``."""
    raw = span / max(1, target)
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw * (1 - 1e-9))
    return max(1.0, round(step)) if integer else step


def _pad_degenerate(lo: float, hi: float, integer: bool) -> tuple[float, float]:
    if hi > lo:
        return lo, hi
    if integer or lo == 0:
        return (lo, lo + 1) if lo >= 0 else (lo - 1, lo)
    d = abs(lo) * 0.1
    return lo - d, hi + d


def nice_ticks(lo: float, hi: float, target: int = 5, integer: bool = False) -> list[float]:
    """Ticks at a nice step from at or below ``lo`` to at or above ``hi``."""
    lo, hi = _pad_degenerate(min(lo, hi), max(lo, hi), integer)
    step = nice_step(hi - lo, target, integer)
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return [round(k * step, 12) for k in range(first, last + 1)]


def ticks_within(lo: float, hi: float, target: int = 5, integer: bool = False) -> list[float]:
    """Ticks at a nice step inside [lo, hi] (the axis keeps its range)."""
    lo, hi = _pad_degenerate(min(lo, hi), max(lo, hi), integer)
    step = nice_step(hi - lo, target, integer)
    first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
    return [round(k * step, 12) for k in range(first, last + 1)]


def tick_labels(ticks: Sequence[float]) -> list[str]:
    """Labels with as many decimals as the step needs, all alike (0.0, 0.2, ... 1.0), minus as −."""
    if len(ticks) < 2:
        return [f"{t:g}".replace("-", "−") for t in ticks]
    step = min(abs(b - a) for a, b in zip(ticks, ticks[1:], strict=False))
    digits = max(0, -math.floor(math.log10(step) + 1e-9)) if step > 0 else 0
    out = [f"{t:.{digits}f}" for t in ticks]
    return [f"{0:.{digits}f}" if float(s) == 0 else s.replace("-", "−") for s in out]


@dataclass
class _Axis:
    lo: float
    hi: float
    ticks: list[tuple[float, list[str]]]  # value, label lines


def _numeric(lo: float, hi: float, *, cover: bool, integer: bool = False, target: int = 5) -> _Axis:
    lo, hi = _pad_degenerate(lo, hi, integer)
    values = nice_ticks(lo, hi, target, integer) if cover else ticks_within(lo, hi, target, integer)
    if cover:
        lo, hi = min(lo, values[0]), max(hi, values[-1])
    return _Axis(lo, hi, [(v, [s]) for v, s in zip(values, tick_labels(values), strict=True)])


def _categorical(labels: Sequence[str]) -> _Axis:
    return _Axis(-0.5, len(labels) - 0.5,
                 [(float(i), [clip(line) for line in str(s).split("\n")]) for i, s in enumerate(labels)])


# -- elements ------------------------------------------------------------------------------------------------


def _text(x: float, y: float, s: str, *, size: float = FONT, fill: str = MUTED, anchor: str = "middle",
          rotate: bool = False) -> str:
    turn = f' transform="rotate(-90 {num(x)} {num(y)})"' if rotate else ""
    return (f'<text x="{num(x)}" y="{num(y)}" text-anchor="{anchor}" font-size="{num(size)}" '
            f'fill="{fill}"{turn}>{escape(s)}</text>')


def _line(x1: float, y1: float, x2: float, y2: float, *, colour: str = AXIS, width: float = 1.0,
          dash: bool = False, opacity: float = 1.0) -> str:
    extra = (' stroke-dasharray="6 4"' if dash else "") + (
        f' stroke-opacity="{num(opacity)}"' if opacity < 1 else "")
    return (f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" stroke="{colour}" '
            f'stroke-width="{num(width)}"{extra}/>')


def _rect(x0: float, x1: float, y0: float, y1: float, colour: str) -> str:
    """A bar from x0 to x1 (half a unit of white either side) and between y0 and y1."""
    top, bottom = min(y0, y1), max(y0, y1)
    return (f'<rect x="{num(x0 + 0.5)}" y="{num(top)}" width="{num(max(0.0, x1 - x0 - 1))}" '
            f'height="{num(bottom - top)}" fill="{colour}"/>')


# -- legend --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Key:
    label: str
    kind: str  # "line", "dash" or "box"
    colour: str
    width: float = 2.0


SWATCH = {"line": 22.0, "dash": 22.0, "box": 12.0}


def _legend_rows(keys: Sequence[_Key], room: float) -> list[list[tuple[float, _Key]]]:
    """Entries flowed left to right, wrapping at ``room``: (x offset, key) per row."""
    rows: list[list[tuple[float, _Key]]] = []
    x = 0.0
    for key in keys:
        w = SWATCH[key.kind] + 6 + text_width(key.label)
        if not rows or (x > 0 and x + w > room):
            rows.append([])
            x = 0.0
        rows[-1].append((x, key))
        x += w + 18
    return rows


# -- the frame -----------------------------------------------------------------------------------------------


class _Chart:
    """One plot area with its axes, grid, titles and a legend above it; the data go in ``body``.

    The margins follow from the estimated widths of the tick labels and titles, and the legend
    sits in a band above the plot area, so it never covers the data.
    """

    def __init__(self, x: _Axis, y: _Axis, *, height: float, x_title: str = "", y_title: str = "",
                 keys: Sequence[_Key] = (), x_grid: bool = False) -> None:
        self.x, self.y, self.height, self.x_title, self.y_title = x, y, height, x_title, y_title
        left = PAD + max((text_width(lines[0]) for _, lines in y.ticks), default=0.0) + 10
        left += TITLE_FONT * 1.4 if y_title else 0
        last = x.ticks[-1][1] if x.ticks else [""]
        right = PAD + max(6.0, max(text_width(s) for s in last) / 2 - 4)  # the last tick label's half
        self.rows = _legend_rows(list(keys), WIDTH - left - right)
        top = PAD + (len(self.rows) * FONT * 1.6 + 4 if self.rows else FONT * 0.5)
        x_lines = max((len(lines) for _, lines in x.ticks), default=1)
        bottom = PAD + 6 + x_lines * FONT * 1.25 + (TITLE_FONT * 1.5 if x_title else 0)
        self.left, self.right, self.top, self.bottom = left, WIDTH - right, top, height - bottom
        # tick labels closer than their width (many groups): smaller, so they do not run together
        values = [v for v, _ in x.ticks]
        gap = min((b - a for a, b in zip(values, values[1:], strict=False)), default=x.hi - x.lo)
        room = gap / (x.hi - x.lo) * (self.right - self.left) - 4
        widest = max((text_width(s) for _, lines in x.ticks for s in lines), default=0.0)
        self.x_font = FONT if widest <= room else max(MIN_FONT, FONT * room / widest)
        # a long y title: smaller, not cut
        plot_h, need = self.bottom - self.top, text_width(y_title, TITLE_FONT)
        self.y_font = TITLE_FONT if need <= plot_h else max(MIN_FONT, TITLE_FONT * plot_h / need)
        self.body: list[str] = self._grid(x_grid)

    def px(self, v: float) -> float:
        return self.left + (v - self.x.lo) / (self.x.hi - self.x.lo) * (self.right - self.left)

    def py(self, v: float) -> float:
        return self.bottom - (v - self.y.lo) / (self.y.hi - self.y.lo) * (self.bottom - self.top)

    def add(self, element: str) -> None:
        self.body.append(element)

    def ref(self, y: float, x0: float, x1: float) -> None:
        """A dashed reference segment at data height ``y`` from data x0 to x1."""
        self.add(_line(self.px(x0), self.py(y), self.px(x1), self.py(y), colour=INK, width=1.5, dash=True))

    def _grid(self, x_grid: bool) -> list[str]:
        out = [_line(self.left, self.py(v), self.right, self.py(v), colour=GRID)
               for v, _ in self.y.ticks if v != self.y.lo]
        if x_grid:
            out += [_line(self.px(v), self.top, self.px(v), self.bottom, colour=GRID)
                    for v, _ in self.x.ticks if v != self.x.lo]
        return out

    def _axes(self) -> list[str]:
        left, right, top, bottom = (num(v) for v in (self.left, self.right, self.top, self.bottom))
        out = [f'<path d="M{left} {top}V{bottom}H{right}" fill="none" stroke="{AXIS}" stroke-width="1"/>']
        for v, lines in self.y.ticks:
            y = self.py(v)
            out += [_line(self.left - 4, y, self.left, y),
                    _text(self.left - 7, y + FONT * 0.35, lines[0], anchor="end")]
        for v, lines in self.x.ticks:
            x = self.px(v)
            out.append(_line(x, self.bottom, x, self.bottom + 4))
            out += [_text(x, self.bottom + 6 + FONT * 0.95 + self.x_font * 1.25 * i, line, size=self.x_font)
                    for i, line in enumerate(lines)]
        if self.x_title:
            out.append(_text((self.left + self.right) / 2, self.height - PAD - 2, self.x_title,
                             size=TITLE_FONT, fill=INK))
        if self.y_title:
            out.append(_text(PAD + self.y_font * 0.8, (self.top + self.bottom) / 2, self.y_title,
                             size=self.y_font, fill=INK, rotate=True))
        return out

    def _legend(self) -> list[str]:
        out: list[str] = []
        for i, row in enumerate(self.rows):
            cy = PAD + FONT * (0.8 + 1.6 * i)
            for dx, key in row:
                x, sw = self.left + dx, SWATCH[key.kind]
                if key.kind == "box":
                    out.append(f'<rect x="{num(x)}" y="{num(cy - 6)}" width="12" height="12" '
                               f'fill="{key.colour}"/>')
                else:
                    out.append(_line(x, cy, x + sw, cy, colour=key.colour, width=key.width,
                                     dash=key.kind == "dash"))
                out.append(_text(x + sw + 6, cy + FONT * 0.35, key.label, fill=INK, anchor="start"))
        return out

    def svg(self) -> str:
        h = num(self.height)
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" style="font-family: {FONT_FAMILY}" '
                f'width="{num(WIDTH * SCALE)}" height="{num(self.height * SCALE)}" '
                f'viewBox="0 0 {WIDTH} {h}">')
        body = [f'<rect width="{WIDTH}" height="{h}" fill="#fff"/>', *self.body, *self._axes(),
                *self._legend()]
        return "\n".join([head, *body, "</svg>"]) + "\n"


def _clean(values: Sequence[Number]) -> list[float]:
    return [float(v) for v in values if finite(v)]


def _circle(x: float, y: float, r: float, colour: str, opacity: float = 1.0) -> str:
    fill = f' fill-opacity="{num(opacity)}"' if opacity < 1 else ""
    return f'<circle cx="{num(x)}" cy="{num(y)}" r="{num(r)}" fill="{colour}"{fill}/>'


def _group_axis(values: Sequence[float], y_range: tuple[float, float], headroom: float) -> _Axis:
    """A y axis over ``y_range`` (widened to the data), ticks inside it, a little room above."""
    y = _numeric(min([y_range[0], *values]), max([y_range[1], *values]), cover=False)
    y.hi += headroom * (y.hi - y.lo)
    return y


def _bound_key(label: str, refs: Sequence[Number]) -> list[_Key]:
    return [_Key(clip(label), "dash", INK, 1.5)] if label and _clean(refs) else []


# -- the charts ----------------------------------------------------------------------------------------------


def line_chart(lines: Sequence[Line], *, x_title: str = "", y_title: str = "", height: float = 250,
               integer_x: bool = True) -> str | None:
    """Lines over a numeric x axis, in order (the last on top); a series with one point is a dot.

    None when no series has a point to draw.
    """
    series = []
    for line in lines:
        xs = line.xs if line.xs is not None else range(1, len(line.ys) + 1)
        series.append((line, [(float(x), float(y)) for x, y in zip(xs, line.ys, strict=False)
                              if finite(x) and finite(y)]))
    every = [p for _, pts in series for p in pts]
    if not every:
        return None
    xs_all, ys_all = [p[0] for p in every], [p[1] for p in every]
    keys = [_Key(clip(line.label), "line", line.colour, line.width) for line, pts in series
            if line.label and pts]
    chart = _Chart(_numeric(min(xs_all), max(xs_all), cover=True, integer=integer_x, target=8),
                   _numeric(min(ys_all), max(ys_all), cover=True, target=6), height=height, x_title=x_title,
                   y_title=y_title, keys=keys, x_grid=True)
    for line, pts in series:
        if len(pts) == 1:
            chart.add(_circle(chart.px(pts[0][0]), chart.py(pts[0][1]), max(2.5, line.width * 1.5),
                              line.colour, line.opacity))
        elif pts:
            points = " ".join(f"{num(chart.px(x), 1)},{num(chart.py(y), 1)}" for x, y in pts)
            opacity = f' stroke-opacity="{num(line.opacity)}"' if line.opacity < 1 else ""
            chart.add(f'<polyline points="{points}" fill="none" stroke="{line.colour}" '
                      f'stroke-width="{num(line.width)}"{opacity} stroke-linejoin="round" '
                      'stroke-linecap="round"/>')
    return chart.svg()


def bar_chart(groups: Sequence[str], bars: Sequence[Bars], *, refs: Sequence[Number] = (),
              ref_label: str = "", y_title: str = "", x_title: str = "",
              y_range: tuple[float, float] = (0, 1), headroom: float = 0.05,
              height: float = 230) -> str | None:
    """Each series' bar per group side by side; ``refs[i]`` a dashed segment across group i.

    None when there are no groups or no value to draw.
    """
    values = [v for b in bars for v in _clean(b.values)]
    if not groups or not values:
        return None
    keys = [_Key(clip(b.label), "box", b.colour) for b in bars if b.label and _clean(b.values)]
    y = _group_axis(values + _clean(refs), y_range, headroom)
    chart = _Chart(_categorical(groups), y, height=height, x_title=x_title, y_title=y_title,
                   keys=keys + _bound_key(ref_label, refs))
    width, base = 0.8 / max(1, len(bars)), chart.py(min(max(0.0, y.lo), y.hi))
    for i, b in enumerate(bars):
        left = (i - len(bars) / 2) * width
        for j, v in enumerate(b.values[: len(groups)]):
            if finite(v):
                chart.add(_rect(chart.px(j + left), chart.px(j + left + width), chart.py(float(v)), base,
                                b.colour))
    for i, ref in enumerate(refs[: len(groups)]):
        if finite(ref):
            chart.ref(float(ref), i - 0.45, i + 0.45)
    return chart.svg()


def dot_chart(groups: Sequence[str], dots: Sequence[Dots], *, refs: Sequence[Number] = (),
              ref_label: str = "", y_title: str = "", y_range: tuple[float, float] = (0, 1),
              headroom: float = 0.05, height: float = 240) -> str | None:
    """Each group's values as dots, jittered sideways; a label may hold "\\n" (two lines); refs dashed.

    None when there are no groups or no value to draw.
    """
    values = [v for d in dots[: len(groups)] for v in _clean(d.values)]
    if not groups or not values:
        return None
    y = _group_axis(values + _clean(refs), y_range, headroom)
    chart = _Chart(_categorical(groups), y, height=height, y_title=y_title, keys=_bound_key(ref_label, refs))
    for i, ref in enumerate(refs[: len(groups)]):
        if finite(ref):
            chart.ref(float(ref), i - 0.4, i + 0.4)
    for i, d in enumerate(dots[: len(groups)]):
        for j, v in enumerate(_clean(d.values)):
            chart.add(_circle(chart.px(i + (j % 7 - 3) * 0.04), chart.py(v), 3.5, d.colour, 0.7))
    return chart.svg()


def histogram(values: Sequence[Number], *, lo: float, hi: float, bins: int, colour: str,
              marker: Number = None, marker_label: str = "", x_title: str = "", y_title: str = "",
              height: float = 220) -> str | None:
    """Counts of ``values`` in ``bins`` equal bins over [lo, hi], integer y ticks; ``marker`` dashed.

    A value outside [lo, hi] counts in the end bin on its side (every student is somewhere).
    None without values.
    """
    data = _clean(values)
    if not data:
        return None
    lo, hi = _pad_degenerate(float(lo), float(hi), False)
    bins = max(1, int(bins))
    counts = [0] * bins
    for v in data:
        counts[min(bins - 1, max(0, int((v - lo) / (hi - lo) * bins)))] += 1
    y = _numeric(0, max(counts), cover=True, integer=True, target=4)
    y.hi += 0.05 * y.hi  # the tallest bar clear of the legend
    keys = [_Key(clip(marker_label), "dash", INK, 1.5)] if finite(marker) and marker_label else []
    chart = _Chart(_numeric(lo, hi, cover=False, target=6), y, height=height, x_title=x_title,
                   y_title=y_title, keys=keys)
    w = (hi - lo) / bins
    for i, c in enumerate(counts):
        if c:
            chart.add(_rect(chart.px(lo + i * w), chart.px(lo + (i + 1) * w), chart.py(c), chart.bottom,
                            colour))
    if finite(marker):
        x = chart.px(min(hi, max(lo, float(marker))))
        chart.add(_line(x, chart.top, x, chart.bottom, colour=INK, width=1.5, dash=True))
    return chart.svg()


# -- heatmap -------------------------------------------------------------------------------------------------

CELL, CELL_MAX = 16.0, 40.0  # units per cell: a panel is about 300 units wide (one per phone width), so a
PANEL = 290.0                # small table gets big cells, with its values written in them
COLD, ZERO, HOT, MISSING = (33, 102, 172), (247, 247, 247), (178, 24, 43), "#bdbdbd"


def diverging(value: Number, limit: float = 1.0) -> str:
    """-limit blue, 0 white, +limit red (clipped beyond); grey where there is no finite value."""
    if not finite(value):
        return MISSING
    t = max(-1.0, min(1.0, float(value) / limit))
    far = HOT if t > 0 else COLD
    mix = [round(z + (f - z) * abs(t)) for z, f in zip(ZERO, far, strict=True)]
    return "#{:02x}{:02x}{:02x}".format(*mix)


def heatmap(values: Sequence[Sequence[Number]], *, title: str, wrong: Sequence[Sequence[int]] = (),
            row_title: str = "", col_title: str = "", label: str = "",
            words: Mapping[float, str] | None = None) -> str | None:
    """A grid of coloured cells (diverging around 0) with row and column numbers; ``wrong`` cells
    (row, column) are outlined and carry ``data-wrong="r,c"``. Inline SVG (the page can find them),
    scaled down by CSS (``max-width: 100%``) where the page is narrow. None without cells. ``words``: what
    a cell of one of these values shows instead of its number (a mask's "T" and "F")."""
    rows = [list(r) for r in values]
    n_rows, n_cols = len(rows), max((len(r) for r in rows), default=0)
    if not n_rows or not n_cols:
        return None
    bad = {(int(r), int(c)) for r, c in wrong}
    cell = max(CELL, min(CELL_MAX, PANEL / max(n_cols, 1), 420.0 / max(n_rows, 1)))
    write = cell >= 30  # room for the value in the cell
    left = PAD + text_width(str(n_rows - 1), MIN_FONT) + 6 + (FONT * 1.3 if row_title else 0)
    top = PAD + TITLE_FONT * 1.4 + (FONT * 1.3 if col_title else 0) + 16
    width = max(left + n_cols * cell + PAD, PAD * 2 + text_width(title, TITLE_FONT))
    height = top + n_rows * cell + PAD
    body = [f'<rect width="{num(width)}" height="{num(height)}" fill="#fff"/>',
            _text(PAD, PAD + TITLE_FONT, title, size=TITLE_FONT, fill=INK, anchor="start")]
    if col_title:
        body.append(_text(left, PAD + TITLE_FONT * 1.4 + FONT, col_title, size=MIN_FONT, anchor="start"))
    if row_title:
        body.append(_text(PAD + FONT * 0.8, top + n_rows * cell / 2, row_title, size=MIN_FONT,
                          rotate=True))
    for c in range(n_cols):
        body.append(_text(left + (c + 0.5) * cell, top - 4, str(c), size=MIN_FONT))
    for r in range(n_rows):
        body.append(_text(left - 4, top + (r + 0.5) * cell + 4, str(r), size=MIN_FONT, anchor="end"))
    marks = []
    for r, row in enumerate(rows):
        for c in range(n_cols):
            value = row[c] if c < len(row) else None
            x, y = left + c * cell, top + r * cell
            word = words.get(float(value)) if words and finite(value) else None
            shown = "–" if not finite(value) else word or f"{float(value):.4g}"
            body.append(f'<rect x="{num(x)}" y="{num(y)}" width="{num(cell)}" height="{num(cell)}" '
                        f'fill="{diverging(value)}"><title>[{r}, {c}] {escape(shown)}</title></rect>')
            if write:
                dark = finite(value) and abs(float(value)) > 0.55
                text = word or ("–" if not finite(value) else f"{float(value):.2f}".replace("-0.00", "0.00"))
                body.append(_text(x + cell / 2, y + cell / 2 + 4, text, size=MIN_FONT,
                                  fill="#fff" if dark else INK))
            if (r, c) in bad:  # dark ink around a white line: visible on a white and on a dark cell
                marks.append(f'<g data-wrong="{r},{c}">'
                             f'<rect x="{num(x + 1.5)}" y="{num(y + 1.5)}" width="{num(cell - 3)}" '
                             f'height="{num(cell - 3)}" fill="none" stroke="{INK}" stroke-width="3"/>'
                             f'<rect x="{num(x + 3.5)}" y="{num(y + 3.5)}" width="{num(cell - 7)}" '
                             f'height="{num(cell - 7)}" fill="none" stroke="#fff" stroke-width="1.5"/></g>')
    aria = f' role="img" aria-label="{escape(label or title)}"'
    # inline in HTML: the parser gives <svg> its namespace, so no xmlns (and no URL in the page)
    head = (f'<svg style="font-family: {FONT_FAMILY}" '
            f'width="{num(width)}" height="{num(height)}" viewBox="0 0 {num(width)} {num(height)}"{aria}>')
    return "\n".join([head, *body, *marks, "</svg>"]) + "\n"
