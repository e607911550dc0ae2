"""A lesson's report blocks (ReportHooks.sections, lesson_api.Section) as the kit places them: under its
own heading or the kit's, before or after the notes on a notebook's code, in check()'s view or not, and the
graded document's points on Gradescope's summary. The lesson here is made up, so the kit's placement is
what is tested, not one lesson's blocks."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from grader.engine.lesson_api import Layout, Lesson, ReportHooks, Section, Task
from grader.engine.lessons import load_lesson
from grader.jupyter.check import CheckResult
from grader.report.lesson_sections import lesson_sections
from grader.report.render import render_html, render_markdown, render_summary_md

MODULE = "made_up_lesson_for_sections"


def _sections(results: Mapping[str, Any], lang: str) -> list[Section]:
    points = float(results["tasks"]["notes"]["score"])
    return [
        Section("picture", "A picture", "그림", "<p>drawn</p>", "a text picture"),
        Section("review", "Notes review", "노트 검토", '<h2 id="own-review">Notes review</h2>\n<p>own</p>',
                "### Notes review\n\nown markdown\n", heading=False, late=True, in_check=False,
                document={"present": True, "points": points, "max_points": 2.0}),
    ]


@pytest.fixture()
def made_up() -> Iterator[str]:
    module = types.ModuleType(MODULE)
    module.LESSON = Lesson(name="Made up", tasks=(Task("notes", "Notes", "노트", document="NOTES.md"),),
                           layout=Layout(modules=("m",), log_name="NOTES.md"),
                           report=ReportHooks(sections=_sections))
    sys.modules[MODULE] = module
    load_lesson.cache_clear()
    try:
        yield MODULE
    finally:
        sys.modules.pop(MODULE)
        load_lesson.cache_clear()


def _results(notebook_note: bool = True) -> dict[str, Any]:
    said = {"en": "cell 3 was not run", "ko": "셀 3은 실행하지 않았습니다"}
    notes = [{"important": True, "messages": said}]
    return {
        "submission": "sub", "suites": ["public"], "isolation": "process", "score": 1.5, "max_score": 2.0,
        "tests": [{"id": "public/test_notes.py::test_filled", "task": "notes", "status": "passed",
                   "score": 1.5, "max_score": 2.0}],
        "tasks": {"notes": {"score": 1.5, "max_score": 2.0, "passed": 1, "total": 1}},
        "lesson": {"name": "made-up", "module": MODULE, "version": "0",
                   "tasks": [{"name": "notes", "en": "Notes", "ko": "노트"}]},
        "artifacts": {"notebook": {"notes": notes if notebook_note else []}},
    }


def test_a_block_with_its_own_heading_is_placed_as_it_is_after_the_notebook_notes(made_up: str) -> None:
    html = render_html(_results(), "en", "sub")
    assert '<h2 id="lesson-picture">A picture</h2>\n<div class="lesson-section" data-section="picture">' \
           "<p>drawn</p></div>" in html
    assert '\n<h2 id="own-review">Notes review</h2>\n<p>own</p>\n\n<h2>How this was graded</h2>' in html
    assert 'data-section="review"' not in html and 'id="lesson-review"' not in html
    # the kit's block first, then the notebook's notes, then the late one
    assert html.index('id="lesson-picture"') < html.index('id="notebook"') < html.index('id="own-review"')


def test_markdown_places_the_late_block_after_the_others_with_its_own_heading(made_up: str) -> None:
    md = render_markdown(_results(), "ko", "sub")
    assert "\n### 그림\n\na text picture\n" in md
    assert "\n### Notes review\n\nown markdown\n\n### " in md and "### 노트 검토" not in md
    assert md.index("### 그림") < md.index("### Notes review")


def test_checks_view_leaves_out_what_only_the_report_shows(made_up: str) -> None:
    assert [s["key"] for s in lesson_sections(_results(), "en", report=True)] == ["picture", "review"]
    assert [s["key"] for s in lesson_sections(_results(), "en")] == ["picture"]
    shown = CheckResult(_results(), "en", None)._repr_html_()
    assert 'id="lesson-picture"' in shown and "own-review" not in shown


def test_the_documents_points_reach_gradescopes_summary(made_up: str) -> None:
    assert "Log points: 1.5 / 2" in render_summary_md(_results(), "en", "sub")
    assert "기록 점수: 1.5 / 2" in render_summary_md(_results(), "ko", "sub")


def test_a_lesson_without_blocks_adds_none(made_up: str) -> None:
    bare = dict(_results(notebook_note=False), lesson={"module": "grader.engine"})  # not a lesson: none here
    html = render_html(bare, "en", "sub")
    assert "lesson-section" not in html and "Notes review" not in html
    assert "Log points" not in render_summary_md(bare, "en", "sub")
