"""The reports of a real grading run: feedback.html, feedback.md, gradescope.json, terminal.

Three real submissions are graded once for the whole run (in parallel subprocesses, like a user
runs `grade`; tests/conftest.py ``cli_graded``): the reference, the untouched stub and the buggy example.
Every test then reads what the command wrote and checks its content.
"""

from __future__ import annotations

import copy
import io
import json
import re
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jsonschema
import pace
import pytest
from rich.console import Console

from grader.core.finding import Said
from grader.report import render_html, render_markdown
from grader.report.gradescope import build_gradescope
from grader.report.records import is_legacy, record_of
from grader.report.render import write_reports
from grader.report.terminal import Progress, summary_renderables
from grader.report.text import text_summary
from tests.conftest import CLI_RUNS

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "tests/schemas/gradescope_results.schema.json").read_text())
FILES = ("results.json", "feedback.html", "feedback.md", "gradescope.json", "summary.txt")
RUNS = CLI_RUNS  # the reference, the untouched stub, the buggy example (tests/conftest.py)


@pytest.fixture(scope="module")
def graded(cli_graded: Callable[[str], Path]) -> dict[str, Path]:
    """The three submissions graded at once, those no other module had graded yet; name -> output folder."""
    with ThreadPoolExecutor(len(RUNS)) as pool:
        return dict(zip(RUNS, pool.map(cli_graded, RUNS), strict=True))


def load(out: Path) -> dict:
    return json.loads((out / "results.json").read_text())


def files(out: Path) -> dict[str, str]:
    return {f: (out / f).read_text(encoding="utf-8") for f in FILES}


# -- every format, every submission ------------------------------------------------

@pytest.mark.parametrize("name", list(RUNS))
def test_grade_writes_every_report(graded, name):
    out = graded[name]
    text = files(out)
    results = load(out)
    score = f"{results['score']:g} / {results['max_score']:g}"
    assert score in text["feedback.html"] and score in text["feedback.md"]
    assert text["feedback.html"].startswith("<!DOCTYPE html>")
    assert "http://" not in text["feedback.html"] and "https://" not in text["feedback.html"]
    assert "<script" not in text["feedback.html"]
    gs = json.loads(text["gradescope.json"])
    jsonschema.validate(gs, SCHEMA)
    assert gs["score"] == results["score"]
    # every test, and each log part a TA reads as an instructor-only test worth nothing
    ta = [t for t in gs["tests"] if "ta_check" in t["tags"]]
    assert len(gs["tests"]) == len(results["tests"]) + len(results.get("ta_checks") or [])
    assert all(t["visibility"] == "hidden" and t["max_score"] == 0 for t in ta)
    assert sum(t["max_score"] for t in gs["tests"]) == pytest.approx(results["max_score"])
    assert all(t["status"] == ("passed" if t["score"] == t["max_score"] else "failed")
               for t in gs["tests"] if t["max_score"] > 0)
    assert len(text["feedback.md"].encode()) < 1_000_000


def test_reference_report_is_clean(graded):
    results = load(graded["reference"])
    text = files(graded["reference"])
    assert results["score"] == results["max_score"] > 0
    assert "Nothing to fix: every check passed." in text["feedback.html"]
    # one "nothing to fix", no empty failure section beside it
    assert "Failed checks" not in text["feedback.html"] and 'class="card failed"' not in text["feedback.html"]
    assert "All tests passed" not in text["feedback.html"]
    assert "<details><summary>failed" not in text["feedback.md"]
    # the reference log is complete: every log test passes, its review is shown with the breakdown
    log_tests = [t for t in results["tests"] if t["task"] == "leetcode_log"]
    assert log_tests and all(t["status"] == "passed" for t in log_tests)
    assert "LeetCode log review" in text["feedback.html"] and "Pow(x, n)" in text["feedback.html"]
    assert results["artifacts"]["leetcode_log"]["points"] > 0
    # the sandbox's level is in results.json, never on the student's pages
    assert results["isolation"] and "isolation" not in text["feedback.md"].lower()
    assert "isolation" not in text["feedback.html"].lower()


def test_stub_report_says_not_attempted_and_blank_log(graded):
    results = load(graded["stub"])
    text = files(graded["stub"])
    assert results["score"] < results["max_score"] / 2
    html, md = text["feedback.html"], text["feedback.md"]
    assert "not attempted yet" in html and "not attempted yet" in md
    # a place is given where one is known, and never an empty "(–)"; the code may be a class, not a function
    assert "(–)" not in html and "(–)" not in md and "Write the function" not in html
    # one line per task not started, one card per cause: far fewer than the 37 failed checks, each reachable
    failed = [t for t in results["tests"] if t["status"] != "passed"]
    # every check of the stubs is "not started" by its record: a check that could not run for a stub too
    # (the component check around the embedding), and each log check of the blank template
    assert {t["feedback"]["status"] for t in failed} == {"not_started"}, [
        (t["id"], t["feedback"]) for t in failed if t["feedback"]["status"] != "not_started"]
    idle_tasks = {t["task"] for t in failed}
    assert html.count('<ul class="not-started">') == 1 and html.count("<li data-checks=") == len(idle_tasks)
    assert html.count('<article class="card') < len(failed) // 2
    assert all(t["id"] in html and t["id"] in md for t in failed)
    # the untouched template: every log test fails and says so, with no guessing at fields
    log_tests = [t for t in results["tests"] if t["task"] == "leetcode_log"]
    assert log_tests and all(t["status"] == "failed" for t in log_tests)
    assert all("still the blank template" in t["message"] for t in log_tests)
    assert results["artifacts"]["leetcode_log"]["points"] == 0
    assert "still the blank template" in html
    assert all(t["id"] in md for t in log_tests)  # collapsed into the log's one line, each still listed
    assert "Top three things to fix" in text["summary.txt"] or "To fix" in text["summary.txt"]


def test_buggy_html_explains_each_failure(graded):
    html = files(graded["buggy"])["feedback.html"]
    # expected / found / likely cause split out of the TA message
    assert re.search(r"<dt>Expected</dt><dd>[^<]*1\.000000</dd>\s*"
                     r"<dt>Found</dt><dd>[^<]*0\.000000</dd>", html)
    # the six failures of the concatenated table: one card, the cause once, every check under it
    assert '<p class="cause"><strong>Likely cause:</strong> sin and cos are concatenated' in html
    assert html.count("sin and cos are concatenated") == 2  # the card, and the first of the top three
    assert "6 checks, one cause" in html
    # how to reproduce: the CLI's -k, with the test's parameters when -k can spell them
    assert "grade examples/buggy -k &#39;test_formula_small and 4-6&#39;" in html
    assert "grade examples/buggy -k test_tied_head_is_the_embedding" in html
    # a hidden check: the student's closest command (the task's public tests), never the instructor's replay
    assert "Closest check you can run (this task&#39;s public tests)" in html
    assert "--hidden" not in html and "GK_GRADING_SEED" not in html
    # top three: one per task, costliest first, never the same task twice
    fixes = re.search(r'<ol class="fixes" id="fixes">(.*?)</ol>', html, re.S).group(1)
    titles = re.findall(r"<strong>(.*?)</strong>", fixes)
    assert len(titles) == 3 and len(set(titles)) == 3 and "Sinusoidal positional encoding" in titles
    # environment
    results = load(graded["buggy"])
    assert f"<code>{results['isolation']}</code>" not in html
    assert f"torch {results['versions']['torch']}" in html


def test_buggy_log_review_with_lines_and_practice_link(graded):
    results = load(graded["buggy"])
    html, md = files(graded["buggy"])["feedback.html"], files(graded["buggy"])["feedback.md"]
    # examples/buggy/LEETCODE_LOG.md: problem 2 read a solution but gives no redo date field
    failed = {t["id"]: t for t in results["tests"] if t["task"] == "leetcode_log" and t["status"] != "passed"}
    assert list(failed) == ["public/test_log.py::test_log[problem2-solved]"]
    assert "LEETCODE_LOG.md line 14" in failed["public/test_log.py::test_log[problem2-solved]"]["message"]
    assert '<td class="num" data-label="Line">14</td>' in html
    assert "redo date (YYYY-MM-DD) is required" in html
    # my_pow fails on a negative exponent: shown next to the log's 'what went wrong' (line 11)
    assert ("Your practice code for problem 1 (my_pow) fails:</strong> "
            "<code>my_pow(2.0, -2): expected 0.25; found 4.0" in html)
    assert "Your log&#39;s &#39;what went wrong&#39; (line 11) says" in html
    assert "[!WARNING]" in md and "`my_pow(2.0, -2): expected 0.25; found 4.0`" in md


def test_gradescope_visibility_and_numbering(graded):
    gs = json.loads(files(graded["buggy"])["gradescope.json"])
    hidden = [t for t in gs["tests"] if "hidden" in t["tags"]]
    public = [t for t in gs["tests"] if "public" in t["tags"]]
    assert hidden and all(t["visibility"] == "hidden" for t in hidden)  # --hidden-visibility hidden
    assert public and all(t["visibility"] == "visible" for t in public)
    assert len({t["number"] for t in gs["tests"]}) == len(gs["tests"])
    assert all(re.fullmatch(r"\d+\.\d+", t["number"]) for t in gs["tests"])
    failed = [t for t in gs["tests"] if t["status"] == "failed"]
    assert failed and all("grade examples/buggy" in t["output"] for t in failed)
    assert gs["output_format"] == "md" and "Top three things to fix" in gs["output"]
    default = build_gradescope(dict(load(graded["buggy"]), tests=[
        dict(t, visibility="after_published") if t["id"].startswith("hidden/") else t
        for t in load(graded["buggy"])["tests"]]), "en", "x")
    assert {t["visibility"] for t in default["tests"] if "hidden" in t["tags"]} == {"after_published"}


def test_gradescope_schema_rejects_what_the_spec_does_not_allow():
    validator = jsonschema.Draft202012Validator(SCHEMA)
    good = {"score": 1.0, "tests": [{"score": 1.0, "max_score": 1.0, "status": "passed", "name": "a"}]}
    assert validator.is_valid(good)
    assert not validator.is_valid({"tests": [{"max_score": 1.0}]})  # no score anywhere
    assert not validator.is_valid(dict(good, visibility="students"))
    assert not validator.is_valid({"score": 1, "tests": [{"score": 1, "status": "error"}]})
    assert not validator.is_valid({"score": 1, "tests": [{"score": 1, "output_format": "markdown"}]})
    assert not validator.is_valid({"score": 1, "tests": [{"score": 1, "number": 1.1}]})


# -- language -------------------------------------------------------------------------

def test_korean_reports_and_summary(graded):
    results = load(graded["buggy"])
    html = render_html(results, "ko", "examples/buggy")
    md = render_markdown(results, "ko", "examples/buggy")
    for text in (html, md):
        assert "실패한 검사" in text and "가장 먼저 고칠 세 가지" in text and "LeetCode 기록 검토" in text
        assert "Failed checks" not in text and "Top three things to fix" not in text
    assert '<html lang="ko">' in html
    assert "<dt>원인 추정</dt>" in html and "sin과 cos를 이어 붙였습니다" in html
    assert "혼자 풀지 않았다면(풀이·힌트·다른 사람이나 AI의 도움) 다시 풀 날짜" in html  # the log finding
    assert "<td>문제 2: 혼자 풀었는지, 풀이를 봤다면 다시 풀 날짜</td>" in html  # the breakdown, translated
    gs = build_gradescope(results, "ko", "examples/buggy")
    assert any("실패" in t["output"] for t in gs["tests"] if t["status"] == "failed")
    plain = text_summary(results, "ko")
    assert "채점 결과" in plain
    assert "- [실패] " in plain and "[FAIL]" not in plain and "[PASS]" not in plain  # verdicts in Korean
    rich_text = _render_terminal(results, "ko")
    assert "가장 먼저 고칠 세 가지" in rich_text and "사인파 위치 인코딩" in rich_text


def test_a_results_json_from_before_records_is_read_by_its_words():
    """A stored term's results (no ``feedback`` records) render as they always did (report/records.py)."""
    old = {"id": "t", "messages": {
        "en": "sinusoidal_pe(4, 6): at (0, 1) expected 1.000000; found 0.000000. Likely cause: swapped.",
        "ko": "sinusoidal_pe(4, 6): (0, 1) 위치에서 1.000000이어야 하는데 0.000000입니다. "
              "원인 추정: 뒤집지 않음"}}
    record = record_of(old)
    assert is_legacy(old) and record.compares
    assert record.parts("en") == {"what": "sinusoidal_pe(4, 6): at (0, 1)", "expected": "1.000000",
                                  "found": "0.000000", "cause": "swapped.", "fix": ""}
    assert record.parts("ko")["expected"] == "(0, 1) 위치에서 1.000000이어야 함"
    assert record.parts("ko")["found"] == "0.000000입니다" and record.parts("ko")["cause"] == "뒤집지 않음"
    raised = record_of({"messages": {"en": "Your code raised ValueError: bad", "ko": "코드에서 ValueError"}})
    assert not raised.compares and raised.status == "failed"
    idle_en = ("Not attempted yet: this still raises NotImplementedError (at embedding.py:12 "
               "`raise NotImplementedError`). Write it.")
    idle = record_of({"messages": {"en": idle_en, "ko": ""}})
    assert idle.status == "not_started" and idle.where == ("embedding.py:12",)
    blank_en = "LeetCode log, problem 1: line 3: LEETCODE_LOG.md is still the blank template: nothing filled."
    blank = record_of({"messages": {"en": blank_en, "ko": ""}})
    assert blank.status == "not_started" and blank.document == "LEETCODE_LOG.md"


def test_a_record_wins_over_the_words():
    """A check's record is what the cards show: its words are never read for parts."""
    test = {"messages": {"en": "f: expected 1; found 2.", "ko": "f: 1이어야 하는데 2입니다."},
            "feedback": {"status": "failed", "what": {"en": "f", "ko": "f"}}}
    record = record_of(test)
    assert not is_legacy(test) and not record.compares and record.what == Said("f", "f")


# -- terminal -------------------------------------------------------------------------------

def _render_terminal(results: dict, lang: str) -> str:
    console = Console(record=True, width=120, file=io.StringIO(), color_system=None)
    for item in summary_renderables(results, lang, "examples/buggy"):
        console.print(item)
    return console.export_text()


def test_terminal_summary_table_and_top_three(graded):
    results = load(graded["buggy"])
    text = _render_terminal(results, "en")
    assert "Sinusoidal positional encoding" in text and "LeetCode log" in text
    assert "Top three things to fix" in text
    assert len(re.findall(r"^\s*grade examples/buggy", text, re.M)) == 3
    coloured = Console(record=True, width=120, file=io.StringIO(), force_terminal=True,
                       color_system="standard")
    for item in summary_renderables(results, "en", "examples/buggy"):
        coloured.print(item)
    assert "\x1b[31m" in coloured.export_text(styles=True)  # red for a task far from full marks


def test_progress_hook_counts_tests():
    sink = io.StringIO()
    bar = Progress("en", Console(file=sink, force_terminal=True, width=100))
    bar.start(3)
    for node in ("a::t1", "a::t2", "a::t3"):
        bar.advance(node)
    assert bar._bar is not None and bar._bar.tasks[0].completed == 3 and bar._bar.tasks[0].total == 3
    bar.close()
    assert "Grading" in sink.getvalue()


# -- robustness: escaping, size, the experiment, unreadable submissions ----------------

def test_student_text_is_data_not_markup(graded):
    results = copy.deepcopy(load(graded["buggy"]))
    evil = "<script>alert(1)</script> [x](http://evil.example) | `tick` <img src=x onerror=alert(2)>"
    bad = next(t for t in results["tests"] if t["status"] != "passed")
    bad["messages"] = {"en": evil, "ko": evil}
    results["submission"] = "<b>bob</b>"
    html = render_html(results, "en", "examples/buggy")
    assert "<script>" not in html and "<img src=x" not in html and "<b>bob</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    md = render_markdown(results, "en", "examples/buggy")
    assert "<script>" not in md and "<img src=x" not in md and "[x](http" not in md


def test_markdown_stays_under_github_limit(graded):
    results = copy.deepcopy(load(graded["buggy"]))
    results["worker"] = {"restarts": 0, "output": "x" * 300_000}
    for t in results["tests"]:
        t["status"], t["score"] = "failed", 0.0
        t["messages"] = {"en": "expected A; found " + "B" * 60_000 + ".", "ko": "B" * 60_000}
    md = render_markdown(results, "en", "examples/buggy")
    assert len(md.encode("utf-8")) <= 1_000_000
    assert "the full report is feedback.html" in md
    assert md.count("<details>") >= 1


def _runs(with_curves: bool = True) -> list[dict]:
    return [
        {"mode": mode, "seed": seed, "steps": 4, "final_train_loss": loss[-1],
         "loss_curve": loss if with_curves else [], "acc_by_length": {"8": acc8, "12": acc12},
         "notes": [{"en": f"note about {mode}", "ko": f"{mode}에 대한 설명"}]}
        for mode, acc8, acc12, loss in (("none", 0.32, 0.27, [2.3, 2.0, 1.9, 1.9]),
                                        ("sin", 1.0, 0.15, [2.3, 1.2, 0.3, 0.01]),
                                        ("learned", 1.0, 0.12, [2.3, 1.0, 0.2, 0.02]))
        for seed in (0, 1)
    ]


# lesson_embedding_pe/experiment.py's schema (version 1), abridged
EXPERIMENT = {
    "schema": 1, "bound": {"8": 0.3172, "12": 0.2663},
    "diagnosis": [{"en": "Why not the lesson's 10%", "ko": "레슨의 10% 예상이 틀린 이유"}],
    "student": {"runs": _runs()},
    "component": {"runs": _runs()[:3]},
}


def test_experiment_table_and_curves(graded):
    results = copy.deepcopy(load(graded["buggy"]))
    results["artifacts"]["experiment"] = EXPERIMENT
    html = render_html(results, "en", "examples/buggy")
    table = re.search(r'<table class="experiment" id="experiment-student">(.*?)</table>', html, re.S).group(1)
    assert table.count("<tr>") == 1 + 6  # header + mode x seed
    assert "Accuracy at T=8" in table and "Accuracy at T=12" in table
    assert "Bag-of-tokens bound" in table and "0.317" in table and "0.266" in table
    assert 'id="experiment-component"' in html and re.search(r"Why not the lesson(?:&#39;|&#x27;)s 10%", html)
    assert "note about sin" in html
    # 2 parts x 2 plots
    assert len(re.findall(r'<img alt="[^"]+" src="data:image/svg\+xml;base64,', html)) == 4
    md = render_markdown(results, "en", "examples/buggy")
    assert "| `sin` | 0 | 4 | 0.01 | 1 | 0.15 |" in md and "▁" in md and "█" in md
    assert "레슨의 10% 예상이 틀린 이유" in render_html(results, "ko", "examples/buggy")
    # a plain list of rows still reads; no curves: the table stays, the loss plot goes
    results["artifacts"]["experiment"] = _runs(with_curves=False)
    html = render_html(results, "en", "examples/buggy")
    assert ('id="experiment-runs"' in html and "Training loss per step" not in html
            and "Accuracy by length" in html)
    # garbage: a note, not a crash
    results["artifacts"]["experiment"] = {"student": {"runs": "nonsense"}}
    assert "No experiment numbers in this run" in render_html(results, "en", "examples/buggy")


def test_real_experiment_numbers_when_the_hidden_suite_has_them(graded):
    results = load(graded["buggy"])
    html = files(graded["buggy"])["feedback.html"]
    art = results["artifacts"].get("experiment")
    if not (isinstance(art, dict) and (art.get("student") or art.get("component"))):
        assert "No experiment numbers in this run" in html
        return
    for key in ("student", "component"):
        if (art.get(key) or {}).get("runs"):
            table = re.search(rf'id="experiment-{key}">(.*?)</table>', html, re.S).group(1)
            assert table.count("<tr>") == 1 + len(art[key]["runs"])
    assert "Bag-of-tokens bound" in html and "data:image/svg+xml;base64," in html


def test_unreadable_submission_still_gets_reports(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "grader.cli", str(empty), "--out", str(out), "--lang", "en"],
                          cwd=ROOT, capture_output=True, text=True, timeout=pace.seconds(120))
    assert proc.returncode == 2
    gs = json.loads((out / "gradescope.json").read_text())
    jsonschema.validate(gs, SCHEMA)
    assert gs["score"] == 0 and gs["tests"] == [] and "could not be read" in gs["output"]
    assert "The submission could not be read" in (out / "feedback.html").read_text()


def test_write_reports_in_place(graded, tmp_path):
    paths = write_reports(load(graded["reference"]), tmp_path, "ko", "solutions")
    assert sorted(paths) == ["feedback.html", "feedback.md", "gradescope.json"]
    assert not list(tmp_path.glob(".*.tmp"))


# -- a real browser -----------------------------------------------------------------------

def test_browser_catches_network_and_console_errors(chromium, tmp_path):
    """The harness itself: a page that breaks both rules must be caught."""
    page = tmp_path / "bad.html"
    page.write_text('<img src="http://example.invalid/x.png"><script>console.error("boom")</script>')
    visit = chromium.visit(page)
    assert visit.network_requests == ["http://example.invalid/x.png"]
    assert "boom" in visit.console_errors


@pytest.mark.parametrize("name", ["buggy", "reference"])
def test_feedback_html_in_headless_chromium(graded, chromium, tmp_path, name):
    results = load(graded[name])
    visit = chromium.visit(graded[name] / "feedback.html", {
        "score": "document.getElementById('score').textContent",
        "tasks": "document.querySelectorAll('#tasks tbody tr').length",
        "cards": "document.querySelectorAll('article.card section.check, ul.not-started li li').length",
        "images_ok": "[...document.images].every(i => i.complete && i.naturalWidth > 0)",
        "width": "document.documentElement.scrollWidth",
    })
    assert visit.console_errors == []
    assert visit.network_requests == []
    assert visit.values["score"] == f"{results['score']:g} / {results['max_score']:g}"
    assert visit.values["tasks"] == len(results["tasks"])
    assert visit.values["cards"] == sum(t["status"] != "passed" for t in results["tests"])
    assert visit.values["images_ok"] is True
    assert visit.values["width"] <= 1100  # nothing overflows sideways
    shot = tmp_path / f"feedback-{name}.png"
    shot.write_bytes(visit.screenshot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_gradescopes_visible_output_leaves_out_what_hidden_tests_measured():
    """visible_view: a lesson's ``hidden_artifacts`` (this lesson's experiment) go before publication; a
    lesson not installed here keeps only the kit's own artifacts."""
    from grader.report.gradescope import visible_view

    tests = [{"id": "public/t.py::a", "task": "sinusoidal_pe", "status": "passed", "score": 1.0,
              "max_score": 1.0, "visibility": "visible"},
             {"id": "hidden/t.py::b", "task": "sinusoidal_pe", "status": "failed", "score": 0.0,
              "max_score": 1.0, "visibility": "after_published"}]
    artifacts = {"experiment": {"runs": []}, "leetcode_log": {"points": 1}, "notebook": {"cells": []}}
    results = {"tests": tests, "artifacts": artifacts, "skipped": []}
    assert set(visible_view(results)["artifacts"]) == {"leetcode_log", "notebook"}
    elsewhere = dict(results, lesson={"name": "gone", "module": "no_such_lesson_package"})
    assert set(visible_view(elsewhere)["artifacts"]) == {"notebook"}


def test_a_page_of_a_submission_that_could_not_be_read_states_nothing_it_did_not_grade() -> None:
    """An unreadable submission (CI, batch) gets the reason, never "every test passed" or empty tables."""
    from grader.engine.options import GradeOptions
    from grader.engine.runner import unreadable_results
    from grader.report.render import render_html, render_markdown

    reason = "broken.zip is not a readable zip (bad header)"
    results = unreadable_results("broken.zip", reason, GradeOptions())
    for lang in ("en", "ko"):
        for page in (render_html(results, lang, "broken.zip"), render_markdown(results, lang, "broken.zip")):
            assert "not a readable zip" in page
            assert "every check passed" not in page and "모든 검사를 통과" not in page
            assert 'id="tasks"' not in page and "| --- |" not in page and "|---|" not in page


def test_a_filtered_run_without_failures_never_says_every_test_passed() -> None:
    """`grade -k weight_tying` of a submission failing elsewhere: the pages and the terminal speak of the
    checks that ran and of the points the last full run still loses, never "every test passed"."""
    from grader.report.render import render_html, render_markdown
    from grader.report.terminal import summary_renderables
    from tests.conftest import CORPUS, grade

    results = grade(CORPUS / "bug_sin_only", hidden=False, keyword="weight_tying")
    assert all(t["status"] == "passed" for t in results["tests"])
    results["filter"] = {"keyword": "weight_tying", "full": {"score": 26.0, "max_score": 30.0,
                                                             "report": "reports/x/feedback.html"}}
    for lang, words in (("en", "still loses 4 points"), ("ko", "아직 4점을 잃고")):
        terminal = " ".join(str(x) for x in summary_renderables(results, lang, "x", "out", reports=True))
        for page in (render_html(results, lang, "x"), render_markdown(results, lang, "x"), terminal):
            assert words in page and "every check passed" not in page and "모든 검사를 통과" not in page
            assert "The full report" not in page and "전체 보고서" not in page


def test_a_check_that_follows_a_cause_shows_no_fix_of_its_own_and_a_filtered_page_no_other_block() -> None:
    """A tied head copied: count_params fails because of the tying. Its card says "count_params itself is
    right"; the count check's own fix ("a shared Parameter counts once") would contradict it."""
    from grader.report.render import render_html, render_markdown
    from tests.conftest import CORPUS, grade

    results = grade(CORPUS / "bug_tie_clone", hidden=False, keyword="weight_tying")
    for lang, right, symptom in (("en", "count_params itself is right", "A shared Parameter counts once"),
                                 ("ko", "count_params 자체는 맞습니다", "공유된 Parameter는 한 번만 셉니다")):
        html = render_html(results, lang, "x")
        assert right in html and symptom not in html and symptom not in render_markdown(results, lang, "x")
    # no internals on the score line or the page: which tests ran, in words; no host platform string
    from grader.report.text import text_summary

    assert text_summary(results, "ko", "x").splitlines()[0].endswith("[공개 테스트]")
    assert "platform" not in render_html(results, "en", "x")
    assert "Suites:" not in render_markdown(results, "en", "x")
    # a page states only what was graded: -k weight_tying ran no experiment and no log check
    for page in (render_html(results, "en", "x"), render_markdown(results, "en", "x")):
        assert "No experiment numbers" not in page and "LeetCode log was not graded" not in page


def test_the_students_output_names_their_files_without_sandbox_paths() -> None:
    from grader.report.view import student_output

    out = student_output("/submission/reversal.py:121: UserWarning: lr\n  warnings.warn(x)\n"
                         "/tmp/gk-sub-ab12/notebook.py:3: DeprecationWarning: y\n")
    assert out.startswith("reversal.py:121: UserWarning") and "\nnotebook.py:3:" in out
    assert "/submission" not in out and "gk-sub" not in out
