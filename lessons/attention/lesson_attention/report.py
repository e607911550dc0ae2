"""The lesson's picture for the reports: the student's attention weights beside the right ones.

A failed check keeps both matrices as its ``figure`` (lesson_attention/figure.py, kind
"attention-weights"); this module draws them with the kit's SVG heatmap (grader/report/svg_chart.py),
the wrong cells outlined. Two entry points for the kit's report hooks:

- ``figure_view(figure, lang)``: one failed check's picture, as the same dict the kit's
  ``pe_figure.figure_view`` returns (so the feedback template's figure block draws it unchanged);
- ``report_sections(results, lang)``: the lesson's own report section (``Lesson.report_sections``, a
  kit ``Section``), one picture per cause (a mistake seen in five checks is drawn once), each as HTML
  and as a Markdown text grid.
"""

from __future__ import annotations

from typing import Any

from grader.engine.lesson_api import Section
from grader.report import svg_chart
from markupsafe import Markup, escape

from lesson_attention.figure import KIND

# The lesson's own strings (the kit's i18n holds the kit's): (English, Korean).
TEXT: dict[str, tuple[str, str]] = {
    "section": ("Your attention weights beside the right ones", "내 어텐션 가중치와 정답 비교"),
    "found_weights": ("Your weights {shape}", "내 가중치 {shape}"),
    "expected_weights": ("The right weights {shape}", "정답 가중치 {shape}"),
    "found_mask": ("Your mask {shape}", "내 마스크 {shape}"),
    "expected_mask": ("The right mask {shape}", "정답 마스크 {shape}"),
    "rows": ("query i ↓", "query i ↓"),
    "cols": ("key j →", "key j →"),
    "count": ("{n} of {total} cells wrong (outlined in yours).",
              "{total}칸 중 {n}칸이 틀렸습니다(내 그림에 테두리)."),
    "slice": ("Drawn: batch/head index {index}.", "그린 것: 배치/헤드 인덱스 {index}."),
    "crop": ("Showing queries 0–{rows} and keys 0–{cols} of {n_rows} × {n_cols}.",
             "{n_rows} × {n_cols} 중 query 0–{rows}, key 0–{cols}만 보여 줍니다."),
    "scale_weights": ("Colour: white 0, red 1 (a row of right weights sums to 1).",
                      "색: 흰색 0, 빨강 1(정답 가중치의 한 행은 합이 1)."),
    "scale_mask": ("Colour: red True (blocked), white False (may look).",
                   "색: 빨강 True(막힘), 흰색 False(볼 수 있음)."),
    "cause": ("Likely cause: {text}", "원인 추정: {text}"),
    "grid": ("Wrong cells of yours (■ wrong, · right; rows are queries, columns keys)",
             "내 것에서 틀린 칸(■ 틀림, · 맞음; 행은 query, 열은 key)"),
}


def tr(key: str, lang: str, **fmt: Any) -> str:
    en, ko = TEXT[key]
    return (ko if lang == "ko" else en).format(**fmt)


def text_grid(found: list[list[Any]], wrong: list[tuple[int, int]]) -> str:
    """The shown cells as characters for feedback.md, where GitHub draws no SVG: ■ wrong, · right.

    (Not the kit's pe_figure.text_grid: that module is the other lesson's and may move with it.)"""
    bad = set(wrong)
    n_cols = max((len(r) for r in found), default=0)
    width = len(str(max(len(found), n_cols, 1) - 1)) + 1
    lines = [" " * 4 + "".join(f"{c:>{width}}" for c in range(n_cols))]
    lines += [f"{r:>3} " + "".join(f"{'■' if (r, c) in bad else '·':>{width}}" for c in range(len(row)))
              for r, row in enumerate(found)]
    return "\n".join(lines)


def _shape(shape: list[int]) -> str:
    return "(" + ", ".join(str(int(n)) for n in shape) + ")"


def figure_view(figure: dict[str, Any] | None, lang: str) -> dict[str, Any] | None:
    """One failed check's picture in ``lang`` (the keys of the kit's pe_figure.figure_view); None when
    the check kept no matrices of this lesson."""
    if not isinstance(figure, dict) or figure.get("kind") != KIND:
        return None
    mask = figure.get("subject") == "mask"
    found, expected = figure.get("found") or [], figure.get("expected") or []
    wrong = [(int(r), int(c)) for r, c in figure.get("wrong") or []]
    shape = [int(n) for n in figure.get("shape") or [0, 0]]
    axes = {"row_title": tr("rows", lang), "col_title": tr("cols", lang)}
    matrix = _shape(shape[-2:])
    subject = "mask" if mask else "weights"
    svg_found = svg_chart.heatmap(found, title=tr(f"found_{subject}", lang, shape=matrix), wrong=wrong,
                                  **axes)
    svg_expected = svg_chart.heatmap(expected, title=tr(f"expected_{subject}", lang, shape=matrix), **axes)
    if svg_found is None or svg_expected is None:
        return None
    notes = []
    if figure.get("slice"):
        notes.append(tr("slice", lang, index=tuple(figure["slice"])))
    rows, cols = len(found), max((len(r) for r in found), default=0)
    if len(shape) >= 2 and (rows < shape[-2] or cols < shape[-1]):
        notes.append(tr("crop", lang, rows=rows - 1, cols=cols - 1, n_rows=shape[-2], n_cols=shape[-1]))
    cause = figure.get("cause") or {}
    total = int(figure.get("wrong_total", len(wrong)))
    return {
        "what": str(figure.get("what", "")),
        "found": Markup(svg_found), "expected": Markup(svg_expected),
        "wrong": len(wrong), "wrong_total": total, "cells_total": int(figure.get("cells_total", 0)),
        "count": tr("count", lang, n=total, total=int(figure.get("cells_total", 0))),
        "crop": " ".join(notes),
        "scale": tr("scale_mask" if mask else "scale_weights", lang),
        "cause": str(cause.get(lang) or cause.get("en") or ""),
        "cause_key": str(cause.get("key") or ""),
        "grid": text_grid(found, wrong),
    }


STYLE = (".lesson-attention .panels { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; } "
         ".lesson-attention svg { max-width: 100%; height: auto; } "
         ".lesson-attention figure { margin: 10px 0; } .lesson-attention h4 { overflow-wrap: anywhere; }")


def _pictures(results: dict[str, Any], lang: str) -> list[tuple[dict, dict[str, Any]]]:
    """(test, view) of each failed check with a picture, the first of each cause, in test order."""
    seen: set[tuple[str, str]] = set()
    out = []
    for test in results.get("tests") or []:
        if test.get("status") == "passed":
            continue
        view = figure_view(test.get("figure"), lang)
        if view is None:
            continue
        mark = (str(test.get("task", "")), view["cause_key"] or view["what"])
        if mark not in seen:
            seen.add(mark)
            out.append((test, view))
    return out


def report_sections(results: dict[str, Any], lang: str = "en") -> list[Section]:
    """The lesson's sections for one submission's report: the attention picture, when a check kept
    one; none when every check of the weights and the mask passed."""
    pictures = _pictures(results, lang)
    if not pictures:
        return []
    # Its own layout rules, so the section reads at 390 px wherever a page puts it (the SVGs shrink).
    # The kit's templates give it its heading (Section.title_in) and place the body below it.
    html = [f'<section class="lesson-attention" data-lesson="attention"><style>{STYLE}</style>']
    md = []
    for test, view in pictures:
        html.append(
            f'<figure class="pe-diff" data-figure="{KIND}" data-cause="{escape(view["cause_key"])}" '
            f'data-test="{escape(test.get("id", ""))}"><h4>{escape(view["what"])}</h4>'
            f'<div class="panels">{view["found"]}{view["expected"]}</div>'
            f'<figcaption>{escape(view["count"])} {escape(view["crop"])} {escape(view["scale"])}</figcaption>'
            f'<p class="cause">{escape(tr("cause", lang, text=view["cause"]))}</p></figure>')
        md += [f"**{view['what']}**: {view['count']} {view['crop']}".rstrip(), "",
               f"{tr('grid', lang)}:", "", "```", view["grid"], "```", "",
               tr("cause", lang, text=view["cause"]), ""]
    html.append("</section>")
    en, ko = TEXT["section"]
    return [Section("attention-weights", en, ko, Markup("\n".join(html)), "\n".join(md).rstrip() + "\n")]
