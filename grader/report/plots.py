"""Plots for feedback.html, drawn with matplotlib (Agg) and inlined as data URIs.

Data URIs rather than inline <svg>: matplotlib's SVG ids would collide when
two plots share a page, and an <img> can never run script. Labels and legends
are in the report's language (i18n.py). Text is kept as SVG text (not paths),
so the reader's browser draws the Hangul with its own fonts; matplotlib only
measures it, with a Korean font when the host has one (fonts-nanum, Noto CJK)
and otherwise with its default font, which lays Korean out a little loosely
but still readably (the missing-glyph warnings are silenced).
"""

from __future__ import annotations

import base64
import functools
import io
import warnings
from typing import Any

from grader.report.exp_view import mean_by_mode
from grader.report.i18n import translate

COLOURS = {"none": "#9e9e9e", "sin": "#1f77b4", "learned": "#d62728"}


CJK_FONTS = ("NanumGothic", "NanumBarunGothic", "Noto Sans CJK KR", "Noto Sans KR", "Apple SD Gothic Neo",
             "Malgun Gothic", "UnDotum")


@functools.cache
def korean_font() -> str | None:
    """A font matplotlib can measure Hangul with, if the host has one."""
    from matplotlib import font_manager

    def known() -> str | None:
        names = {f.name for f in font_manager.fontManager.ttflist}
        return next((n for n in CJK_FONTS if n in names), None)

    if known() is None:  # matplotlib's font cache predates the font's install (apt-get install fonts-nanum)
        for path in font_manager.findSystemFonts():
            if any(k in path for k in ("Nanum", "NotoSansCJK", "NotoSansKR", "UnDotum")):
                try:
                    font_manager.fontManager.addfont(path)
                except (OSError, RuntimeError, ValueError):
                    continue
    return known()


def _figure(width: float = 6.4, height: float = 3.2) -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    # Figure() directly, not pyplot: no global state shared between reports.
    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def _data_uri(fig: Any) -> str:
    import matplotlib
    from matplotlib.text import Text

    font = korean_font()
    family = [font, "DejaVu Sans"] if font else ["DejaVu Sans"]
    for text in fig.findobj(Text):  # labels, ticks, legend: measured with the Korean-capable font
        text.set_fontfamily(family)
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*[Gg]lyph .* missing from")
        fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue().decode("utf-8")
    # the browser picks the font: Korean-capable ones first
    fonts = ", ".join(f"'{f}'" for f in (*CJK_FONTS, "DejaVu Sans")) + ", sans-serif"
    svg = svg.replace("<svg ", f'<svg style="font-family: {fonts}" ', 1)
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def loss_curves(view: dict[str, Any], lang: str = "en") -> str | None:
    """Loss per step: each seed thin, the mean over seeds thick, one colour per mode."""
    if not view.get("has_curves"):
        return None
    fig = _figure()
    ax = fig.add_subplot()
    for mode in view["modes"]:
        curves = [r["losses"] for r in view["rows"] if r["mode"] == mode and r["losses"]]
        if not curves:
            continue
        colour = COLOURS.get(mode)
        for c in curves:
            ax.plot(range(1, len(c) + 1), c, color=colour, alpha=0.25, linewidth=0.8)
        n = min(len(c) for c in curves)
        mean = [sum(c[i] for c in curves) / len(curves) for i in range(n)]
        ax.plot(range(1, n + 1), mean, color=colour, linewidth=2,
                label=translate("plot_runs", lang, mode=mode, n=len(curves)))
    ax.set_xlabel(translate("plot_step", lang))
    ax.set_ylabel(translate("plot_loss", lang))
    ax.grid(alpha=0.3)
    ax.legend(frameon=False)
    return _data_uri(fig)


def accuracy_bars(view: dict[str, Any], lang: str = "en") -> str | None:
    """Mean accuracy per mode at each length, the bag-of-tokens bound as a dashed line."""
    lengths = view.get("lengths") or []
    means = mean_by_mode(view)
    if not lengths or not means:
        return None
    fig = _figure(6.4, 3.0)
    ax = fig.add_subplot()
    modes = [m for m in view["modes"] if m in means]
    width = 0.8 / max(1, len(modes))
    for i, mode in enumerate(modes):
        xs = [j + (i - (len(modes) - 1) / 2) * width for j in range(len(lengths))]
        ax.bar(xs, [means[mode].get(n, 0.0) for n in lengths], width, label=mode, color=COLOURS.get(mode))
    for j, n in enumerate(lengths):
        if n in view["bound"]:
            ax.hlines(view["bound"][n], j - 0.45, j + 0.45, colors="black", linestyles="dashed",
                      label=translate("plot_bound", lang) if j == 0 else None)
    ax.set_xticks(range(len(lengths)), [f"T={n}" for n in lengths])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(translate("plot_accuracy", lang))
    ax.grid(axis="y", alpha=0.3)
    ax.legend(frameon=False, fontsize="small", ncols=2)
    return _data_uri(fig)
