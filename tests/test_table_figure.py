"""The kit's two-table picture of a failed check (report/table_figure.py): any lesson's tables, drawn with
the words that lesson gives them (``ReportHooks.figure_texts``); the kit's code holds none of a lesson's
words."""

from __future__ import annotations

from typing import Any

from grader.engine.lesson_api import FigureTexts, ReportHooks
from grader.engine.lessons import load_lesson
from grader.report.i18n import translate
from grader.report.table_figure import figure_view, text_grid, two_tables
from lesson_embedding_pe.pe_checks import pe_formula, table_figure

RECORD = {"kind": "grid-diff", "what": "paint(2, 3)", "found": [[0.0, 1.0, 0.5], [1.0, 0.0, -1.0]],
          "expected": [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], "wrong": [[0, 2], [1, 2]], "wrong_total": 2,
          "cells_total": 6,
          "cause": {"key": "last_column", "en": "the last column is painted", "ko": "마지막 열"}}


def _texts(figure: Any, lang: str) -> FigureTexts | None:
    """A made-up lesson's words: its own kind only."""
    if figure.get("kind") != "grid-diff":
        return None
    return FigureTexts(label=f"[{lang}] canvas", found_title="Yours", expected_title="Right", row_title="y",
                       col_title="x", count=f"{figure['wrong_total']} wrong", grid_title="Your cells")


def test_any_lessons_tables_are_drawn_with_its_words() -> None:
    view = figure_view(RECORD, "en", _texts)
    assert view is not None
    assert (view["label"], view["count"], view["grid_title"]) == ("[en] canvas", "2 wrong", "Your cells")
    assert ">Yours<" in view["found"] and ">Right<" in view["expected"] and ">y<" in view["found"]
    assert view["found"].count("data-wrong") == view["wrong"] == 2 and "data-wrong" not in view["expected"]
    assert (view["cause"], view["cause_key"], view["what"]) == ("the last column is painted", "last_column",
                                                                "paint(2, 3)")
    assert view["scale"] == translate("fig_scale", "en")  # no words of its own: the kit's for its scale
    grid = "     0 1 2\n  0  · · ■\n  1  · · ■"
    assert view["grid"] == text_grid(RECORD["found"], [(0, 2), (1, 2)]) == grid
    assert figure_view(RECORD, "ko", _texts)["cause"] == "마지막 열"


def test_no_picture_without_the_lessons_words_or_without_cells() -> None:
    assert figure_view(RECORD, "en", ReportHooks().figure_texts) is None  # the lesson declares no words
    assert figure_view(RECORD, "en", None) is None
    assert figure_view(dict(RECORD, kind="other"), "en", _texts) is None  # a kind it does not know
    assert figure_view(None, "en", _texts) is None
    assert two_tables(dict(RECORD, found=[]), _texts(RECORD, "en"), "en") is None  # type: ignore[arg-type]


def test_this_lessons_table_picture_keeps_its_words() -> None:
    texts_of = load_lesson().report.figure_texts
    table = pe_formula(20, 18)
    record = table_figure(table.flip(1), table, "sinusoidal_pe(20, 18)", atol=1e-5)
    en, ko = figure_view(record, "en", texts_of), figure_view(record, "ko", texts_of)
    assert en is not None and ko is not None
    assert "Your table (20, 18)" in en["found"] and "table (20, 18)" in en["expected"]
    assert "내 표 (20, 18)" in ko["found"] and "수식의 표 (20, 18)" in ko["expected"]
    assert en["label"] == "Your table beside the formula's" and ko["label"] == "내 표와 수식의 표"
    assert en["count"] == f"{record['wrong_total']} of 360 cells wrong (outlined in your table)."
    assert en["crop"] == "Showing rows 0–15 of 20 and columns 0–15 of 18."
    assert en["grid_title"].startswith("Wrong cells of your table") and ko["grid_title"].startswith("내 표의")
    forward = table_figure(table + 1, table, "forward", atol=1e-5, subject="forward", cause=("c", "ㄷ"))
    assert "Rows your forward added (20, 18)" in figure_view(forward, "en", texts_of)["found"]
    same = table_figure(table.float(), table, "dtype", atol=1e-5)  # values right: the cause is the caption
    assert figure_view(same, "en", texts_of)["count"] == same["cause"]["en"]
    assert figure_view(dict(record, kind="grid-diff"), "en", texts_of) is None


def test_a_place_without_the_picture_drops_its_words() -> None:
    """feedback.md, the terminal and summary.txt draw no picture: a figure's count and a cause lose their
    words about it (the outline, "the picture"), in either lesson, and feedback.md says where it is drawn
    in words true at a desk and in CI."""
    from grader.report.markup import without_picture
    from lesson_attention.diagnose import FORMULA

    texts_of = load_lesson().report.figure_texts
    table = pe_formula(20, 18)
    record = table_figure(table.flip(1), table, "sinusoidal_pe(20, 18)", atol=1e-5)
    n = record["wrong_total"]
    assert without_picture(figure_view(record, "en", texts_of)["count"]) == f"{n} of 360 cells wrong."
    assert without_picture(figure_view(record, "ko", texts_of)["count"]) == f"360칸 중 {n}칸이 틀렸습니다."
    _, en, ko = FORMULA
    assert "picture" not in without_picture(en) and "그림" not in without_picture(ko)
    assert without_picture(en).endswith("before the softmax.") and without_picture(ko).endswith("확인하세요.")
    for lang in ("en", "ko"):
        where = translate("fig_where", lang)
        assert "artifact" not in where and "산출물" not in where and "feedback.html" in where
