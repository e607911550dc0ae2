"""Plots for feedback.html, drawn with matplotlib (Agg) and inlined as data URIs.

Data URIs rather than inline <svg>: matplotlib's SVG ids would collide when
two plots share a page, and an <img> can never run script. Labels stay in
ASCII (mode names, axis units) so no CJK font is needed on the grading host;
the page around each plot carries the translated caption.
"""

from __future__ import annotations

import base64
import io
from typing import Any

from grader.report.exp_view import mean_by_mode

COLOURS = {"none": "#9e9e9e", "sin": "#1f77b4", "learned": "#d62728"}


def _figure(width: float = 6.4, height: float = 3.2) -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    # Figure() directly, not pyplot: no global state shared between reports.
    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def _data_uri(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def loss_curves(view: dict[str, Any]) -> str | None:
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
        ax.plot(range(1, n + 1), mean, color=colour, linewidth=2, label=f"{mode} (n={len(curves)})")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy loss")
    ax.grid(alpha=0.3)
    ax.legend(frameon=False)
    return _data_uri(fig)


def accuracy_bars(view: dict[str, Any]) -> str | None:
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
                      label="bag-of-tokens bound" if j == 0 else None)
    ax.set_xticks(range(len(lengths)), [f"T={n}" for n in lengths])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("token accuracy")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(frameon=False, fontsize="small", ncols=2)
    return _data_uri(fig)
