"""grader/report/svg_chart.py and its callers: valid, deterministic SVG with the data in it."""

from __future__ import annotations

import base64
import math
import re
import xml.etree.ElementTree as ET

import pace
import pytest

from grader.report import classpages, svg_chart
from grader.report.class_sections import CHARTS
from grader.report.svg_chart import Bars, Dots, Line
from lesson_embedding_pe import class_report
from lesson_embedding_pe.report import charts
from lesson_embedding_pe.report.experiment_view import experiment_view

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    return root


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{NS}text")]


def decode(uri: str) -> str:
    assert uri.startswith("data:image/svg+xml;base64,")
    return base64.b64decode(uri.split(",", 1)[1]).decode("utf-8")


# -- ticks and numbers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("lo", "hi"), [(0, 1), (0.0036, 2.52), (1, 150), (-3.2, 7.7), (0.31, 0.33),
                                        (1e-5, 3e-5), (120, 12000), (5, 5), (0, 0), (-2, -2)])
def test_nice_ticks_cover_the_data_at_a_nice_step(lo: float, hi: float) -> None:
    ticks = svg_chart.nice_ticks(lo, hi)
    assert ticks[0] <= lo and ticks[-1] >= hi and 2 <= len(ticks) <= 12, ticks
    steps = {round(b - a, 12) for a, b in zip(ticks, ticks[1:], strict=False)}
    assert len(steps) == 1
    step = steps.pop()
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert any(math.isclose(mantissa, m) for m in (1, 2, 5)), step


def test_integer_ticks_and_labels() -> None:
    assert svg_chart.nice_ticks(0, 3, 4, integer=True) == [0, 1, 2, 3]
    assert svg_chart.nice_ticks(0, 1, 4, integer=True) == [0, 1]  # never a step of 0.2 students
    assert svg_chart.tick_labels([0, 0.2, 0.4, 1.0]) == ["0.0", "0.2", "0.4", "1.0"]
    assert svg_chart.tick_labels([-10, 0, 10]) == ["−10", "0", "10"]
    assert svg_chart.tick_labels([-0.5, 0.0, 0.5]) == ["−0.5", "0.0", "0.5"]
    assert svg_chart.ticks_within(0, 1) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert all(0 <= t <= 37.5 for t in svg_chart.ticks_within(0, 37.5))  # a fixed range keeps its ends
    assert [svg_chart.num(x) for x in (12.5, 3.0, -0.0001, 1e-5, -0.25, 100)] == ["12.5", "3", "0", "0",
                                                                                  "-0.25", "100"]


def test_text_width_counts_hangul_wider() -> None:
    assert svg_chart.text_width("토큰", 10) == 20
    assert svg_chart.text_width("ab", 10) == 12


# -- the charts ------------------------------------------------------------------------------------------


LINES = [Line([2.3, 2.0, 1.9], "#1f77b4", width=1, opacity=0.3),
         Line([2.2, 1.5, 1.0, 0.5], "#1f77b4", width=1, opacity=0.3),
         Line([2.25, 1.75, 1.45], "#1f77b4", label="sin (n=2)")]


def test_line_chart_draws_each_series_and_its_legend() -> None:
    root = parse(svg_chart.line_chart(LINES, x_title="step", y_title="loss"))
    lines = root.findall(f".//{NS}polyline")
    assert len(lines) == 3
    assert [len(p.get("points").split()) for p in lines] == [3, 4, 3]
    assert lines[0].get("stroke-opacity") == "0.3" and lines[2].get("stroke-opacity") is None
    words = texts(root)
    assert "step" in words and "loss" in words and "sin (n=2)" in words
    # the y title turned, the font family on the root with the Korean fonts first
    assert any("rotate(-90" in (t.get("transform") or "") for t in root.iter(f"{NS}text"))
    style = root.get("style")
    assert style.startswith("font-family: 'NanumGothic'") and style.endswith("sans-serif")
    assert root.get("viewBox").startswith("0 0 ") and root.get("width") and root.get("height")
    # every point inside the plot area (the ticks cover the data)
    w, h = (float(x) for x in root.get("viewBox").split()[2:])
    for p in lines:
        for xy in p.get("points").split():
            x, y = (float(v) for v in xy.split(","))
            assert 0 < x < w and 0 < y < h


def test_line_chart_degenerate_data() -> None:
    assert svg_chart.line_chart([]) is None
    assert svg_chart.line_chart([Line([], "#000"), Line([None, float("nan")], "#000")]) is None
    one = parse(svg_chart.line_chart([Line([0.7], "#000", label="one")]))  # one point: a dot
    assert not one.findall(f".//{NS}polyline") and len(one.findall(f".//{NS}circle")) == 1
    flat = parse(svg_chart.line_chart([Line([1.0, 1.0, 1.0], "#000")]))  # all equal: still an axis
    assert len(flat.findall(f".//{NS}polyline")) == 1 and len(set(texts(flat))) >= 2
    holes = parse(svg_chart.line_chart([Line([2.0, None, float("nan"), 1.0, float("inf")], "#000")]))
    assert len(holes.find(f".//{NS}polyline").get("points").split()) == 2
    for svg in (one, flat, holes):
        assert not any(re.search(r"\b(nan|inf)\b", e.get(a), re.I) for e in svg.iter() for a in e.attrib
                       if a != "style")


def test_bar_chart_bars_bounds_and_legend() -> None:
    svg = svg_chart.bar_chart(["T=8", "T=12"], [Bars([0.32, 0.27], "#9e9e9e", "none"),
                                                Bars([1.0, None], "#1f77b4", "sin")],
                              refs=[0.317, 0.266], ref_label="토큰 주머니 한계", y_title="토큰 정확도")
    root = parse(svg)
    rects = [r for r in root.findall(f".//{NS}rect") if r.get("width") not in ("12", str(svg_chart.WIDTH))]
    assert len(rects) == 3  # None: no bar
    dashed = [e for e in root.iter(f"{NS}line") if e.get("stroke-dasharray")]
    assert len(dashed) == 3  # a bound per group and its legend key
    words = texts(root)
    assert {"T=8", "T=12", "none", "sin", "토큰 주머니 한계", "토큰 정확도", "0.0", "1.0"} <= set(words)
    assert svg_chart.bar_chart([], [Bars([0.5], "#000")]) is None
    assert svg_chart.bar_chart(["T=8"], [Bars([None], "#000")]) is None


def test_labels_are_escaped() -> None:
    nasty = '<script>&"\'\x00토큰'
    svg = svg_chart.bar_chart([nasty], [Bars([0.5], "#000", nasty)], refs=[0.3], ref_label=nasty,
                              y_title=nasty)
    root = parse(svg)  # well-formed XML
    assert "<script" not in svg and "\x00" not in svg
    assert texts(root).count('<script>&"\'토큰') == 4
    long = "x" * 500
    assert max(len(t) for t in texts(parse(svg_chart.bar_chart(["T"], [Bars([0.5], "#000", long)])))) < 60


def test_same_input_same_bytes() -> None:
    def draw() -> tuple[str | None, ...]:
        return (svg_chart.line_chart(LINES, x_title="스텝"),
                svg_chart.bar_chart(["a"], [Bars([0.5], "#000", "a")], refs=[0.3], ref_label="b"),
                svg_chart.dot_chart(["a\nT=8"], [Dots([0.1, 0.2], "#000")], refs=[0.3]),
                svg_chart.histogram([1, 2, 3], lo=0, hi=5, bins=5, colour="#000", marker=2))
    first = draw()
    assert all(first) and first == draw()


def test_dot_chart_and_histogram() -> None:
    root = parse(svg_chart.dot_chart(["none\nT=8", "sin\nT=8"], [Dots([0.3, 0.31, None], "#999"),
                                                               Dots([1.0], "#1f77b4")],
                                     refs=[0.317, None], ref_label="bound"))
    assert len(root.findall(f".//{NS}circle")) == 3
    assert {"none", "sin", "T=8", "bound"} <= set(texts(root))  # two-line tick labels, one <text> a line
    assert svg_chart.dot_chart(["a"], [Dots([], "#000")]) is None
    hist = parse(svg_chart.histogram([0, 1, 1, 9.5, 12, float("nan")], lo=0, hi=10, bins=5, colour="#00f",
                                     marker=5.0, marker_label="mean / 평균 5"))
    bars = [r for r in hist.findall(f".//{NS}rect") if r.get("fill") == "#00f"]
    assert len(bars) == 2  # [0, 2) and [8, 10], the 12 counted in the last bin
    first, last = (float(b.get("height")) for b in sorted(bars, key=lambda b: float(b.get("x"))))
    assert math.isclose(first / last, 3 / 2, rel_tol=0.01)
    numbers = [t for t in texts(hist) if re.fullmatch(r"[0-9.−-]+", t)]
    assert numbers and "mean / 평균 5" in texts(hist)
    assert svg_chart.histogram([], lo=0, hi=1, bins=5, colour="#000") is None
    assert parse(svg_chart.histogram([3, 3], lo=0, hi=0, bins=5, colour="#000")) is not None


# -- the callers -------------------------------------------------------------------------------------------


def _view(lang: str, runs: list[dict] | None = None) -> dict:
    runs = runs if runs is not None else [
        {"mode": m, "seed": s, "loss_curve": [2.3, 2.0 - s * 0.1, 1.0], "acc_by_length": {"8": a, "12": 0.2}}
        for m, a in (("none", 0.32), ("sin", 1.0), ("learned", 0.99)) for s in (0, 1)]
    return experiment_view({"student": {"runs": runs}, "bound": {"8": 0.317}}, lang)["parts"][0]


def test_feedback_plots_in_korean() -> None:
    loss = parse(decode(charts.loss_curves(_view("ko"), "ko")))
    assert len(loss.findall(f".//{NS}polyline")) == 6 + 3  # each seed, then each mode's mean
    words = texts(loss)
    assert "스텝" in words and "교차 엔트로피 손실" in words and "sin (2회)" in words
    acc = parse(decode(charts.accuracy_bars(_view("ko"), "ko")))
    assert {"토큰 정확도", "bag-of-tokens 상한", "T=8", "T=12"} <= set(texts(acc))
    assert charts.loss_curves(_view("en", [{"mode": "sin", "acc_by_length": {"8": 1.0}}])) is None
    assert charts.accuracy_bars(_view("en", [{"mode": "sin", "loss_curve": [1.0]}])) is None
    odd_view = _view("en", [{"mode": "rope <&>", "acc_by_length": {"8": 0.9}}])
    odd = parse(decode(charts.accuracy_bars(odd_view)))
    assert "rope <&>" in texts(odd)


def test_class_plots() -> None:
    assert classpages.histogram({"n": 0}) is None and class_report.experiment_plot(None, CHARTS) is None
    stats = {"n": 3, "scores": [50.0, 75.25, 100.0], "mean": 75.08, "full": 100.0}
    hist = parse(decode(classpages.histogram(stats)))
    ticks = [t for t in texts(hist) if re.fullmatch(r"[0-9.−-]+", t)]
    assert ticks and "mean / 평균 75.08" in texts(hist)
    exp = {"table": [{"mode": "none", "length": 8}, {"mode": "sin", "length": 8}],
           "values": {("none", 8): [0.31, 0.33], ("sin", 8): [1.0]}, "bound": {8: 0.317}}
    dots = parse(decode(class_report.experiment_plot(exp, CHARTS)))
    assert len(dots.findall(f".//{NS}circle")) == 3 and "T=8" in texts(dots)


def test_drawing_the_plots_imports_no_matplotlib() -> None:
    import subprocess
    import sys

    code = ("import sys; from grader.report import classpages; "
            "from lesson_embedding_pe.report import charts; "
            "from lesson_embedding_pe.report.experiment_view import experiment_view; "
            "v = experiment_view([{'mode': 'sin', 'loss_curve': [2.0, 1.0], "
            "'acc_by_length': {'8': 1.0}}])['parts'][0]; "
            "assert charts.loss_curves(v) and charts.accuracy_bars(v); "
            "assert classpages.histogram({'n': 1, 'scores': [1.0], 'mean': 1.0, 'full': 2.0}); "
            "assert 'matplotlib' not in sys.modules")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=pace.seconds(60))
    assert proc.returncode == 0, proc.stderr
