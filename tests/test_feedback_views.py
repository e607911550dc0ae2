"""The feedback a student looks at: the table drawn, one card per mistake, progress between runs.

Real grades of real submissions (the corpus's seeded table bugs, examples/buggy, the stubs with one
real bug): each picture marks exactly the cells where the student's table differs from the formula,
computed here independently from the student's own code; grouping keeps every failed check with its
command; a fix between two `grade` runs is reported as such, and a first run says nothing of one.
"""

from __future__ import annotations

import html as htmllib
import importlib.util
import json
import math
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from grader.engine.options import GradeOptions
from grader.jupyter.check import CheckResult, remember
from grader.jupyter.check import render_html as check_html
from grader.report.render import render_html, render_markdown
from grader.report.run import run_grade
from grader.report.terminal import summary_renderables
from grader.report.text import text_summary
from tests.conftest import CORPUS, ROOT, computed_once, grade
from tests.test_corpus import grade_case

TABLE_BUGS = ["bug_concat_sincos", "bug_swapped_sincos", "bug_positions_from_one", "bug_wrong_base",
              "bug_transposed", "bug_float64", "bug_sin_only"]
SHOWN = 16  # the figure's crop (core/testkit.FIGURE_ROWS/COLS)


def formula(max_len: int, d_model: int) -> torch.Tensor:
    """PE by the paper, in float64 Python math (independent of the grader's own)."""
    return torch.tensor([[math.sin(p / 10000 ** ((j - j % 2) / d_model)) if j % 2 == 0
                          else math.cos(p / 10000 ** ((j - j % 2) / d_model)) for j in range(d_model)]
                         for p in range(max_len)], dtype=torch.float64)


def student_module(case: str):
    spec = importlib.util.spec_from_file_location(f"student_{case}", CORPUS / case / "embedding.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expected_wrong(found: torch.Tensor, expected: torch.Tensor, atol: float) -> set[tuple[int, int]]:
    """The shown cells of the student's table off by more than atol, or outside the formula's shape."""
    out = set()
    for r in range(min(found.shape[0], SHOWN)):
        for c in range(min(found.shape[1], SHOWN)):
            inside = r < expected.shape[0] and c < expected.shape[1]
            if not inside or abs(float(found[r, c]) - float(expected[r, c])) > atol:
                out.add((r, c))
    return out


@pytest.fixture(scope="module", params=TABLE_BUGS)
def table_bug(request, tmp_path_factory: pytest.TempPathFactory):
    """The case with the hidden suite, its table checks among the rest: tests/test_corpus.py's grade of it,
    made once for the run by whichever module asks first."""
    case = request.param
    return case, computed_once(tmp_path_factory, f"corpus-{case}", lambda: grade_case(case, tmp_path_factory))


def figure_blocks(page: str) -> list[str]:
    return re.findall(r'<figure class="pe-diff" data-figure="pe-diff".*?</figure>', page, re.S)


def test_every_table_bug_gets_its_picture_with_exactly_the_wrong_cells(table_bug):
    case, results = table_bug
    student = student_module(case)
    failed = [t for t in results["tests"] if t["status"] != "passed"]
    pictured = [t for t in failed if t.get("figure")]
    assert pictured, f"{case}: no failed table check kept its tables"
    for t in pictured:
        fig = t["figure"]
        max_len, d_model = map(int, re.search(r"sinusoidal_pe\((\d+), (\d+)\)", fig["what"]).groups())
        found = student.sinusoidal_pe(max_len, d_model).double()
        expected = formula(max_len, d_model)
        assert fig["found_shape"] == list(found.shape) and fig["expected_shape"] == list(expected.shape)
        wrong = expected_wrong(found, expected, fig["atol"])
        assert {tuple(c) for c in fig["wrong"]} == wrong, (case, t["id"])
        assert len(fig["found"]) == min(found.shape[0], SHOWN)
    # the page draws it: two heatmaps, one data-wrong per wrong cell of the card's picture
    for lang in ("en", "ko"):
        page = render_html(results, lang, f"tests/corpus/{case}")
        blocks = figure_blocks(page)
        assert blocks and all(b.count("<svg") == 2 for b in blocks)
        first = next(t["figure"] for t in failed if t.get("figure"))
        assert blocks[0].count("data-wrong=") == len(first["wrong"])
        assert ("Your table" if lang == "en" else "내 표") in blocks[0]
    if case == "bug_float64":  # the values are right: a picture with nothing marked, and it says so
        assert all(not t["figure"]["wrong"] for t in pictured)
        assert "every value matches the formula" in render_html(results, "en", "x")
    else:
        key = {"bug_concat_sincos": "concat", "bug_swapped_sincos": "swapped",
               "bug_positions_from_one": "from_one", "bug_wrong_base": "base", "bug_transposed": "transposed",
               "bug_sin_only": "no_cos"}[case]
        assert {t["figure"]["cause"]["key"] for t in pictured} >= {key}
        # the likely cause names what the picture shows, in both languages
        assert any("in the picture" in t["messages"]["en"] and "그림" in t["messages"]["ko"]
                   for t in pictured)


def test_a_correct_table_has_no_picture(reference_results: dict) -> None:
    # the reference graded with the hidden suite, once for the run (tests/conftest.py): every task's
    # tests, sinusoidal_pe's and TokenAndPosEmbedding's among them, and not one picture
    results = reference_results
    assert results["score"] == results["max_score"]
    assert not any(t.get("figure") for t in results["tests"])
    assert 'data-figure="pe-diff"' not in render_html(results, "en", "solutions")


def test_rows_forward_adds_are_drawn_when_a_position_test_fails():
    results = grade(CORPUS / "bug_forward_offset", keyword="test_sin_forward_value or test_forward_is_scaled")
    pictured = [t for t in results["tests"] if t.get("figure")]
    assert pictured and all(t["figure"]["subject"] == "forward" for t in pictured)
    public = next(t for t in pictured if t["id"].startswith("public/"))
    table = formula(16, 8)  # the public test: max_len 16, d_model 8, T = 6; forward adds pe[1:7]
    assert {tuple(c) for c in public["figure"]["wrong"]} == expected_wrong(table[1:7], table[:6], 1e-4)
    assert "one position ahead" in public["messages"]["en"]
    page = render_html(results, "en", "x")
    assert "Rows your forward added" in page and "Rows it should add" in page
    assert "내 forward가 더한 행" in render_html(results, "ko", "x")


@pytest.fixture(scope="module")
def buggy(cli_graded: Callable[[str], Path]) -> dict:
    """examples/buggy graded with the hidden suite, as `grade --hidden` wrote it (once per run:
    tests/conftest.py ``cli_graded``)."""
    return json.loads((cli_graded("buggy") / "results.json").read_text(encoding="utf-8"))


def test_one_card_per_cause_keeps_every_check_and_its_command(buggy):
    failed = [t for t in buggy["tests"] if t["status"] != "passed"]
    page = htmllib.unescape(render_html(buggy, "en", "examples/buggy"))
    md = render_markdown(buggy, "en", "examples/buggy")
    concat = [t for t in failed if t["task"] == "sinusoidal_pe"]
    assert len(concat) == 6
    for lang, count in (("en", "6 checks, one cause"), ("ko", "검사 6개, 원인 하나")):
        text = render_html(buggy, lang, "examples/buggy")
        assert text.count(count) >= 2  # the card, and the first of the top three
    # the cause once on the card, not once per check
    card = re.search(r'<article class="card failed group" data-checks="6">.*?</article>', page, re.S).group(0)
    assert card.count("sin and cos are concatenated") == 1 and card.count('<section class="check"') == 6
    for t in failed:  # every failed check is reachable, with expected / found and its command
        assert t["id"] in page and t["id"] in md
    for m in re.finditer(r'<section class="check" id="fail-\d+">\s*<h4>([^<]+)<(.*?)</section>', page, re.S):
        assert "grade examples/buggy" in m.group(2) and "-k" in m.group(2), m.group(1)
    assert len(re.findall(r'<section class="check"', page)) == len(failed)
    # the text summary groups the same way: the cause once, then each check
    plain = text_summary(buggy, "en")
    assert plain.count("sin and cos are concatenated") == 1 and all(t["id"] in plain for t in failed)
    # the Markdown shows where the wrong cells are, and says where the picture is
    assert "■" in md and "feedback.html" in md
    # and the terminal: the cause once with its count, every other cause one line, the total of checks
    terminal = " ".join(" ".join(str(x) for x in summary_renderables(buggy, "en", "examples/buggy")).split())
    assert terminal.count("sin and cos are concatenated") == 1 and "(6 checks, one cause)" in terminal
    assert f"Every failed check ({len(failed)})" in terminal


def test_a_real_bug_comes_before_what_is_not_started(tmp_path):
    """The new student of the issue: `self.pe = ...` instead of a buffer, the LeetCode parts not started."""
    sub = tmp_path / "exercises"
    sub.mkdir()
    for name in ("reversal.py", "leetcode.py", "LEETCODE_LOG.md"):
        shutil.copy(ROOT / "exercises" / name, sub / name)
    shutil.copy(CORPUS / "bug_pe_plain_attr" / "embedding.py", sub / "embedding.py")
    results = grade(sub, hidden=False, keyword="TokenAndPosEmbedding or leetcode")
    lines = [str(x) for x in summary_renderables(results, "en", "exercises")]
    top = lines.index(next(x for x in lines if "Top three things to fix" in x))
    assert "Token + position embedding" in lines[top + 1] and "register_buffer" in lines[top + 1]
    page = render_html(results, "en", "exercises")
    fixes = re.search(r'<ol class="fixes" id="fixes">(.*?)</ol>', page, re.S).group(1)
    assert re.findall(r"<strong>(.*?)</strong>", fixes)[0] == "Token + position embedding"
    # what is not started is one line per task, not one card per check
    idle = [t for t in results["tests"] if t["messages"]["en"].startswith("Not attempted")
            or "still the blank template" in t["messages"]["en"]]
    assert {t["task"] for t in idle} == {"leetcode_practice", "leetcode_log"}
    assert page.count("<li data-checks=") == 2 and all(t["id"] in page for t in idle)


def _grade_cli(path: Path, out: Path, keyword: str | None = None) -> dict:
    code = run_grade(path, out, GradeOptions(hidden=False, lang="en", keyword=keyword), quiet=True)
    assert code == 0
    return json.loads((out / ("filtered" if keyword and (out / "filtered").exists() else ".") /
                       "results.json").read_text())


def test_a_fix_between_two_runs_is_reported_and_a_filtered_run_keeps_the_full_score(tmp_path):
    sub, out = tmp_path / "sub", tmp_path / "reports"
    shutil.copytree(CORPUS / "bug_concat_sincos", sub)
    first = _grade_cli(sub, out)
    assert "previous" not in first  # a first run says nothing about a previous one
    for name in ("feedback.html", "feedback.md", "summary.txt"):
        text = (out / name).read_text()
        assert "since the last run" not in text and "지난 실행" not in text
    shutil.copy(ROOT / "solutions" / "embedding.py", sub / "embedding.py")
    second = _grade_cli(sub, out)
    prev = second["previous"]
    assert prev["score"] == first["score"] and prev["tasks"]["sinusoidal_pe"]["score"] < 6
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", prev["when"])
    assert set(prev["failed"]) == {t["id"] for t in first["tests"] if t["status"] != "passed"}
    gain = f"+{second['score'] - first['score']:g} since the last run"
    for name in ("feedback.html", "feedback.md", "summary.txt"):
        text = (out / name).read_text().replace("\\", "")  # Markdown escapes + and _
        assert gain in text and "Sinusoidal positional encoding now passes" in text, name
    ko = render_html(second, "ko", "sub")
    assert "지난 실행" in ko and "사인파 위치 인코딩: 이제 통과" in ko
    # a filtered run: beside the full one, marked on every page; the full run's score stays
    full_score = json.loads((out / "results.json").read_text())["score"]
    filtered = _grade_cli(sub, out, keyword="sinusoidal_pe")
    assert json.loads((out / "results.json").read_text())["score"] == full_score
    assert filtered["filter"]["keyword"] == "sinusoidal_pe"
    assert filtered["filter"]["full"]["score"] == full_score
    for name in ("feedback.html", "feedback.md", "summary.txt"):
        text = (out / "filtered" / name).read_text().replace("\\", "")
        assert "Filtered run (-k sinusoidal_pe)" in text and "is not your score" in text, name
    assert "일부만 채점했습니다(-k sinusoidal_pe)" in render_html(filtered, "ko", "sub")


def test_check_says_what_changed_between_calls(tmp_path):
    sub = tmp_path / "exercises"  # one submission, before and after the fix
    shutil.copytree(CORPUS / "bug_concat_sincos", sub)
    bad = grade(sub, hidden=False, keyword="sinusoidal_pe")
    shutil.copy(ROOT / "solutions" / "embedding.py", sub / "embedding.py")
    good = grade(sub, hidden=False, keyword="sinusoidal_pe")
    key = ("sinusoidal_pe", str(tmp_path))
    remember(bad, key)
    assert "previous" not in bad
    remember(good, key)
    assert good["previous"]["score"] == bad["score"]
    for lang, words in (("en", "Sinusoidal positional encoding now passes"),
                        ("ko", "사인파 위치 인코딩: 이제 통과")):
        result = CheckResult(good, lang, "sinusoidal_pe")
        assert words in check_html(result) and words in repr(result)
    # and check() draws the table where it is wrong
    page = check_html(CheckResult(bad, "en", "sinusoidal_pe"))
    assert 'data-figure="pe-diff"' in page and "data-wrong=" in page
