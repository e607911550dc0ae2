"""The lesson's picture for the reports: the student's attention weights beside the right ones.

A failed check keeps both matrices as its ``figure`` (lesson_attention/figure.py, kind
"attention-weights"); the kit draws them side by side, the wrong cells outlined
(grader/report/table_figure.py ``two_tables``), with this lesson's words (``figure_texts``). Two entry
points for the kit's report hooks:

- ``figure_view(figure, lang)``: one failed check's picture, the kit's figure view (so the feedback
  template's figure block would draw it unchanged);
- ``report_sections(results, lang)``: the lesson's own report section (``ReportHooks.sections``, a
  kit ``Section``), one picture per cause (a mistake seen in five checks is drawn once), each as HTML
  and as a Markdown text grid.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup, escape

from grader.engine.lesson_api import FigureTexts, Section
from grader.report.table_figure import two_tables
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


def figure_texts(figure: Mapping[str, Any], lang: str) -> FigureTexts | None:
    """The words of one failed check's picture in ``lang`` (a ``lesson_api.FigureTexts``); None when the
    check kept no matrices of this lesson."""
    if figure.get("kind") != KIND:
        return None
    mask = figure.get("subject") == "mask"
    found = figure.get("found") or []
    shape = [int(n) for n in figure.get("shape") or [0, 0]]
    matrix = "(" + ", ".join(str(n) for n in shape[-2:]) + ")"
    subject = "mask" if mask else "weights"
    notes = []
    if figure.get("slice"):
        notes.append(tr("slice", lang, index=tuple(figure["slice"])))
    rows, cols = len(found), max((len(r) for r in found), default=0)
    if len(shape) >= 2 and (rows < shape[-2] or cols < shape[-1]):
        notes.append(tr("crop", lang, rows=rows - 1, cols=cols - 1, n_rows=shape[-2], n_cols=shape[-1]))
    total = int(figure.get("wrong_total", len(figure.get("wrong") or [])))
    return FigureTexts(
        label=tr("section", lang),
        found_title=tr(f"found_{subject}", lang, shape=matrix),
        expected_title=tr(f"expected_{subject}", lang, shape=matrix),
        row_title=tr("rows", lang), col_title=tr("cols", lang),
        count=tr("count", lang, n=total, total=int(figure.get("cells_total", 0))),
        grid_title=tr("grid", lang),
        crop=" ".join(notes),
        scale=tr("scale_mask" if mask else "scale_weights", lang),
    )


def figure_view(figure: dict[str, Any] | None, lang: str) -> dict[str, Any] | None:
    """One failed check's picture in ``lang``, drawn by the kit (its two tables side by side, the wrong
    cells outlined, and a text grid: ``table_figure.two_tables``); None when the check kept no matrices of
    this lesson."""
    texts = figure_texts(figure, lang) if isinstance(figure, dict) else None
    return two_tables(figure, texts, lang) if figure is not None and texts is not None else None


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
