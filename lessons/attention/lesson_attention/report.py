"""The lesson's picture for the reports: the student's attention weights (or mask) beside the right ones.

A failed check keeps both matrices as its ``figure`` (lesson_attention/figure.py, kind
"attention-weights"); the kit draws them in that check's card, side by side, the wrong cells outlined
(grader/report/table_figure.py ``two_tables``: SVG in feedback.html and check(), a text grid in
feedback.md), with this lesson's words: ``figure_texts``, the lesson's ``ReportHooks(figure_texts=...)``. A
mask is drawn as a mask: its cells read T and F, not 1.00 and 0.00. ``figure_view(figure, lang)`` is the
kit's view of one check's picture with these words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from grader.author import FigureTexts
from lesson_attention.figure import KIND

# The lesson's own strings (the kit's i18n holds the kit's): (English, Korean).
TEXT: dict[str, tuple[str, str]] = {
    "label_weights": ("Your attention weights beside the right ones", "내 어텐션 가중치와 정답 비교"),
    "label_mask": ("Your mask beside the right one", "내 마스크와 정답 비교"),
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
    "scale_mask": ("T = True (blocked, red), F = False (may look, white).",
                   "T = True(막힘, 빨강), F = False(볼 수 있음, 흰색)."),
    "grid": ("Wrong cells of yours (■ wrong, · right; rows are queries, columns keys)",
             "내 것에서 틀린 칸(■ 틀림, · 맞음; 행은 query, 열은 key)"),
}


# A mask's cells as the flags they are (True blocked, False may look), where weights show their numbers.
MASK_CELLS = ((1.0, "T"), (0.0, "F"))


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
        label=tr(f"label_{subject}", lang),
        found_title=tr(f"found_{subject}", lang, shape=matrix),
        expected_title=tr(f"expected_{subject}", lang, shape=matrix),
        row_title=tr("rows", lang), col_title=tr("cols", lang),
        count=tr("count", lang, n=total, total=int(figure.get("cells_total", 0))),
        grid_title=tr("grid", lang),
        crop=" ".join(notes),
        scale=tr("scale_mask" if mask else "scale_weights", lang),
        cell_words=MASK_CELLS if mask else (),
    )


def figure_view(figure: dict[str, Any] | None, lang: str) -> dict[str, Any] | None:
    """One failed check's picture in ``lang``, drawn by the kit (its two tables side by side, the wrong
    cells outlined, and a text grid: ``table_figure.two_tables``); None when the check kept no matrices of
    this lesson."""
    from grader.author import two_tables  # the kit's report code: loaded by a report, not with the lesson

    texts = figure_texts(figure, lang) if isinstance(figure, dict) else None
    return two_tables(figure, texts, lang) if figure is not None and texts is not None else None
