"""What a new student tripped on, each checked on a real submission graded by the real grader.

The notebook's LeetCode log (found by content), a function not written yet in a notebook, the log
breakdown adding up, `code` spans in the HTML, "How to fix" apart from "Likely cause", and the
Korean summary's columns.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.core.feedback import check, worded
from grader.core.finding import Cause, Finding, Said
from grader.report import render_html, render_markdown
from grader.report.markup import code_spans, display_width
from grader.report.text import text_summary
from lesson_embedding_pe.loggrade import NOTEBOOK_NO_LOG
from lesson_embedding_pe.notebook import build_notebook
from lesson_embedding_pe.report.log import log_view
from tests.conftest import ROOT, failed_messages, grade, task_scores

LOG_OR_TYING = "leetcode_log or weight_tying"
LAYOUT = "follow the template's layout"


def write(nb: nbformat.NotebookNode, path: Path) -> Path:
    nbformat.write(nb, str(path))
    return path


def solution_cells(skip: tuple[str, ...] = (), rename: dict[str, str] | None = None) -> list:
    """The reference as code cells (one per module), without some definitions or with some renamed."""
    cells = []
    for module in ("embedding", "reversal", "leetcode"):
        text = (ROOT / "solutions" / f"{module}.py").read_text()
        text = re.sub(r"^from (embedding|reversal|leetcode) import .*$", "", text, flags=re.M)
        for name in skip:  # drop the class with its body (up to the next top-level statement)
            text = re.sub(rf"^class {name}\b.*?(?=^\S)", "", text, flags=re.M | re.S)
        for old, new in (rename or {}).items():
            text = re.sub(rf"^class {old}\b", f"class {new}", text, flags=re.M)
        cells.append(new_code_cell(text))
    return cells


# -- the LeetCode log in a notebook ---------------------------------------------------------

def test_release_notebook_log_is_its_template_cell_not_the_title(tmp_path: Path) -> None:
    results = grade(write(build_notebook(ROOT / "exercises"), tmp_path / "lesson.ipynb"), hidden=False,
                    keyword="leetcode_log")
    text = failed_messages(results, "leetcode_log")
    assert LAYOUT not in text and "still the blank template" in text, text[:600]
    # cited by its cell, the last of the notebook, not as a LEETCODE_LOG.md the student does not have
    nb = build_notebook(ROOT / "exercises")
    assert f"the log in cell {len(nb.cells)}, line " in text and "LEETCODE_LOG.md line" not in text
    source = results["artifacts"]["leetcode_log"]["source"]
    assert source.startswith("# LeetCode 풀이 기록") and "실습 노트북" not in source  # not the title cell


def test_log_cell_is_found_anywhere_and_a_title_is_never_the_log(tmp_path: Path) -> None:
    title = new_markdown_cell("# 과제 3 — 김학생\n\n임베딩 실습입니다. Problem: none of this is the log.")
    note = new_markdown_cell("Notes on the experiment: sin learns fast.")
    log = new_markdown_cell((ROOT / "solutions" / "LEETCODE_LOG.md").read_text())
    nb = new_notebook(cells=[title, log, *solution_cells(), note])  # the log second, not last
    results = grade(write(nb, tmp_path / "hw.ipynb"), hidden=False, keyword=LOG_OR_TYING)
    score, top = task_scores(results)["leetcode_log"]
    assert score == top > 0, failed_messages(results, "leetcode_log")
    source = results["artifacts"]["leetcode_log"]["source"]
    assert "김학생" not in source and "sin learns fast" not in source

    # only a title: the student is told where the log goes, not to follow a layout they never saw
    nb = new_notebook(cells=[title, *solution_cells()])
    results = grade(write(nb, tmp_path / "nolog.ipynb"), hidden=False, keyword=LOG_OR_TYING)
    assert task_scores(results)["leetcode_log"][0] == 0
    en, ko = failed_messages(results, "leetcode_log"), failed_messages(results, "leetcode_log", "ko")
    assert NOTEBOOK_NO_LOG[1] in en and NOTEBOOK_NO_LOG[0] in ko and LAYOUT not in en
    assert "last cell" in en and "Markdown cell" in en
    view = log_view(results, "en")
    assert view and view["present"] and view["findings"][0]["message"] == NOTEBOOK_NO_LOG[1]


# -- a function not written yet -------------------------------------------------------------

def test_a_definition_not_written_yet_in_a_notebook_is_not_attempted(tmp_path: Path) -> None:
    nb = new_notebook(cells=solution_cells(skip=("TinyLM",)))
    results = grade(write(nb, tmp_path / "partial.ipynb"), hidden=False, keyword="weight_tying")
    failed = [t for t in results["tests"] if t["status"] != "passed"]
    assert failed and all(t["messages"]["en"].startswith("Not attempted yet: your notebook does not define "
                                                         "`TinyLM`") for t in failed), failed[0]["messages"]
    assert all(t["messages"]["ko"].startswith("아직 구현하지 않았습니다") for t in failed)
    assert all("Check the spelling" not in t["message"] for t in failed)
    # the same function misspelled: the spelling is the point, and the name it found is given
    nb = new_notebook(cells=solution_cells(rename={"TinyLM": "TinyLm"}))
    results = grade(write(nb, tmp_path / "typo.ipynb"), hidden=False, keyword="weight_tying")
    text = failed_messages(results, "weight_tying")
    assert "defines `TinyLm`: check the spelling" in text and "Not attempted" not in text


# -- the reports ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def stub_and_buggy(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    stub = tmp_path_factory.mktemp("stub")
    for f in (ROOT / "exercises").iterdir():
        if f.is_file():
            shutil.copy(f, stub / f.name)
    return {"stub": grade(stub, hidden=False, keyword="not reversal"),
            "buggy": grade(ROOT / "examples" / "buggy", hidden=False, keyword="not reversal")}


@pytest.mark.parametrize("name", ["stub", "buggy"])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_log_breakdown_adds_up_to_the_task(stub_and_buggy: dict, name: str, lang: str) -> None:
    results = stub_and_buggy[name]
    view = log_view(results, lang)
    task = results["tasks"]["leetcode_log"]
    assert view and (view["points"], view["max_points"]) == (task["score"], task["max_score"])
    rows = view["breakdown"]
    assert rows and all(r["max_points"] > 0 and 0 <= r["points"] <= r["max_points"] for r in rows)
    assert sum(r["points"] for r in rows) == pytest.approx(task["score"])
    assert sum(r["max_points"] for r in rows) == pytest.approx(task["max_score"])
    html = render_html(results, lang, "exercises")
    assert "/ -" not in html and "Other checks of the log task" not in html
    assert ("문제 1: 시간·공간복잡도" if lang == "ko" else "problem 1: time and space complexity") in html


def test_code_spans_render_as_code_and_the_fix_is_not_the_cause(stub_and_buggy: dict) -> None:
    results = stub_and_buggy["buggy"]
    for lang in ("en", "ko"):
        html = render_html(results, lang, "examples/buggy")
        body = html.split("<h2>", 1)[1]  # past the page's own CSS
        assert "<code>pe</code>" in body and "`pe`" not in body
        fix = "How to fix" if lang == "en" else "고치는 방법"
        cause = "Likely cause" if lang == "en" else "원인 추정"
        # "Use self.register_buffer(...)" follows expected / found with no "Likely cause:": it is the fix
        assert re.search(rf"<dt>{fix}</dt><dd>[^<]*register_buffer", body)
        assert not re.search(rf"<dt>{cause}</dt><dd>[^<]*register_buffer", body)
        # a cause the suite names stays a cause (the sin|cos table): once on its card, or on its check
        assert f"<strong>{cause}:</strong>" in body or f"<dt>{cause}</dt>" in body
    md = render_markdown(results, "en", "examples/buggy")
    assert "a registered buffer named `pe`" in md and "\\`pe\\`" not in md


def test_code_spans_escape_first() -> None:
    assert str(code_spans("a `<b>x</b>` & <i>`")) == "a <code>&lt;b&gt;x&lt;/b&gt;</code> &amp; &lt;i&gt;`"
    assert str(code_spans("no span")) == "no span"


def test_korean_summary_columns_line_up(stub_and_buggy: dict) -> None:
    for name in ("stub", "buggy"):
        lines = [x for x in text_summary(stub_and_buggy[name], "ko").splitlines()
                 if re.match(r"^  \S.*\s/\s", x)]
        assert len(lines) >= 6
        # where the " / " between score and maximum sits, in terminal columns: the same on every line
        starts = {display_width(x[:x.index(" / ")]) for x in lines}
        assert len(starts) == 1, lines


def test_a_finding_with_cause_and_fix_is_worded_in_both_languages_and_kept_as_its_parts() -> None:
    finding = check("f(2)", Said("4", "4이어야 함"), Said("5", "5입니다"),
                    cause=Cause("off by one.", "하나 차이.", "off_by_one"),
                    fix=Said("start at 0.", "0부터 시작하세요."))
    words = worded(finding)
    assert words.en == "f(2): expected 4; found 5. Likely cause: off by one. Fix: start at 0."
    assert words.ko == "f(2): 4이어야 하는데 5입니다. 원인 추정: 하나 차이. 고치는 방법: 0부터 시작하세요."
    record = Finding.from_dict(json.loads(json.dumps(finding.as_dict())))  # as results.json keeps it
    assert record == finding
    assert record.parts("ko") == {"what": "f(2)", "expected": "4이어야 함", "found": "5입니다",
                                  "cause": "하나 차이.", "fix": "0부터 시작하세요."}
    plain = worded(check("f(2)", Said("4", "4이어야 함"), Said("5", "5입니다"),
                         fix=Said("Use range(n).", "range(n)을 쓰세요.")))
    assert plain.en == "f(2): expected 4; found 5. Use range(n)."
