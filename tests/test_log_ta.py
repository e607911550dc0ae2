"""Sure or ask, end to end on a real grade: a log part the reader cannot place costs nothing, the student is
told a TA reads it, and the TA finds it in `grade review`'s one queue beside flagged submissions, decides
it (confirm, or take the points with a reason the student sees), and the decision is bound to the part it
judged: kept across re-renders and merges, void (and said so) once the student changes that part
(lesson_embedding_pe/leetlog/unsure.py, logta.py; grader/instructor/term/)."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from grader.cli import main as grade_cli
from grader.instructor.term.merging import merge_term
from grader.instructor.term.records import REVIEWS, latest_checks, read_reviews
from grader.report import render_markdown
from grader.report.gradescope import build_gradescope
from tests.batch_cli import grade as batch_grade
from tests.conftest import ROOT, grade

BATCH = ["--public-only", "-k", "leetcode_log", "-j", "1", "-q", "--lang", "en"]
REASON = "the task asks for the complexity as O(...)"


def _grade(subs: Path, out: Path) -> None:
    """In a process of its own: a batch's warm grader outlives it holding the folder's lock, and the
    term's commands (here, in-process) would then wait for a batch that has ended."""
    batch_grade("batch", str(subs), "--out", str(out), *BATCH)


def _results(out: Path) -> dict:
    return json.loads((out / "bob" / "results.json").read_text(encoding="utf-8"))


def _cli(*argv: str) -> tuple[int, str]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = grade_cli(list(argv))
    return code, buf.getvalue()


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """bob's log says one complexity in words ('log n time'): graded once for the module."""
    tmp = tmp_path_factory.mktemp("log_ta")
    subs, out = tmp / "subs", tmp / "out"
    shutil.copytree(ROOT / "solutions", subs / "bob", ignore=shutil.ignore_patterns("__pycache__"))
    log = subs / "bob" / "LEETCODE_LOG.md"
    log.write_text(log.read_text(encoding="utf-8").replace("O(log n)", "log n time", 1), encoding="utf-8")
    _grade(subs, out)
    return subs, out


def test_an_unsure_log_part_costs_nothing_and_reaches_the_ta(graded: tuple[Path, Path]) -> None:
    _, out = graded
    results = _results(out)
    task = results["tasks"]["leetcode_log"]
    assert task["score"] == task["max_score"] > 0  # no point taken for what the reader could not place
    unsure = [f for f in results["artifacts"]["leetcode_log"]["findings"] if f["severity"] == "unsure"]
    assert [f["field"] for f in unsure] == ["time"]
    # the lesson declares it to the kit (results.json ta_checks): the test it passed, what the reader saw
    [check] = results["ta_checks"]
    assert check["key"] == "problem1/time" and check["task"] == "leetcode_log"
    # the part is the time complexity: half the test of time and space (its points, a take's most)
    assert check["tests"] == ["public/test_log.py::test_log[problem1-complexity]"] and check["points"] == 0.5
    assert "log n time" in check["saw"] and check["hash"]
    html = (out / "bob" / "feedback.html").read_text(encoding="utf-8")
    assert "A TA will read 1 part(s) of your log" in html and "a TA reads this" in html
    md = (out / "bob" / "feedback.md").read_text(encoding="utf-8")
    assert "A TA will read 1 part(s) of your log" in md
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert "LeetCode log parts a TA reads" in summary and "log n time" in summary
    book = list(csv.DictReader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8-sig"))))
    assert float(book[0]["leetcode_log"]) == task["max_score"]
    # Gradescope: the instructor sees the part (a hidden test); the student's test says only a TA reads it
    gs = build_gradescope(results, "en", "exercises")
    jsonschema.validate(gs, json.loads((ROOT / "tests/schemas/gradescope_results.schema.json").read_text()))
    [ta] = [t for t in gs["tests"] if t["visibility"] == "hidden"]
    assert ta["max_score"] == 0 and "log n time" in ta["output"] and "problem1/time" in ta["name"]
    [mine] = [t for t in gs["tests"] if t["name"].endswith("[problem1-complexity]")]
    assert "a TA will read part of this (problem 1, 'Time complexity')" in mine["output"]
    assert "log n time" not in mine["output"]


def test_a_ta_decides_in_grade_review_and_the_decision_is_bound_to_the_part(
        graded: tuple[Path, Path], tmp_path: Path) -> None:
    subs, out = graded
    code, listing = _cli("review", str(out))
    assert code == 0 and "bob: check problem1/time of leetcode_log (LEETCODE_LOG.md, line" in listing
    assert "pending" in listing and "log n time" in listing  # what the reader saw, for the TA
    # a student who is not flagged has no accept/reject; a check needs its own verbs
    assert _cli("review", str(out), "bob", "--accept", "--reason", "x")[0] == 2
    assert _cli("review", str(out), "bob", "--check", "problem9/time", "--take", "--reason", "x")[0] == 2
    before = _results(out)["score"]

    assert _cli("review", str(out), "bob", "--check", "problem1/time", "--take", "--reason", REASON)[0] == 0
    final = _results(out)["final"]
    # the take takes that part only: the space complexity's half of the test stays
    assert final["total"] == before - 0.5 and final["checks"]["problem1/time"]["decision"] == "take"
    [step] = final["steps"]  # the reason the student reads beside their total, in both languages
    assert step["en"] == f"a TA read LEETCODE_LOG.md, problem 1, 'Time complexity': -0.5 taken: {REASON}"
    assert step["ko"].startswith("조교가 LEETCODE_LOG.md, 문제 1의 '시간복잡도' 부분을 읽고 -0.5점 감점")
    md = (out / "bob" / "feedback.md").read_text(encoding="utf-8")
    assert REASON in md and "took 0.5 point(s)" in md
    assert "A TA will read 1 part(s)" not in md  # one verdict: the page no longer says nothing is taken
    # every page tells the same story: the log's points, its breakdown, what to fix, summary.txt
    maximum = _results(out)["max_score"]
    assert f"Log points: **{before - 0.5:g} / {maximum:g}**" in md
    assert "| problem 1: time and space complexity as Big-O, each with a reason | 0.5 / 1 |" in md
    assert "Nothing to fix" not in md and "took 0.5 point(s) (the reason is above): fix that part" in md
    summary = (out / "bob" / "summary.txt").read_text(encoding="utf-8")
    assert f"{before - 0.5:g} / {maximum:g}" in summary and "Nothing to fix" not in summary
    book = list(csv.DictReader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8-sig"))))
    assert float(book[0]["total"]) == before - 0.5 and float(book[0]["adjustment"]) == -0.5
    [row] = read_reviews(out / REVIEWS)
    judged = _results(out)["ta_checks"][0]["hash"]
    assert (row.check, row.decision, row.hash) == ("problem1/time", "take", judged)

    # a merge keeps it (the union of the shards' decisions), a re-render applies it again
    merged = tmp_path / "merged"
    merged.mkdir()
    merge_term([out], merged)
    assert ("bob", "problem1/time") in latest_checks(read_reviews(merged / REVIEWS))

    # the student changes that part: the decision is void, visibly, and the points are back until a TA decides
    log = subs / "bob" / "LEETCODE_LOG.md"
    text = log.read_text(encoding="utf-8")
    log.write_text(text.replace("log n time", "logarithmic time", 1), encoding="utf-8")
    _grade(subs, out)
    results = _results(out)
    assert results["final"]["total"] == before
    assert results["final"]["checks"]["problem1/time"]["decision"] == "void"
    assert any("earlier version" in s["en"] for s in results["final"]["steps"])
    code, listing = _cli("review", str(out))
    assert "pending again" in listing and "logarithmic time" in listing
    md = (out / "bob" / "feedback.md").read_text(encoding="utf-8")
    assert "A TA will read 1 part(s)" in md and REASON not in md.split("### ")[-1]


# -- one verdict per page ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gappy(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A real grade (hidden suite too) of a log with real gaps beside practice code that fails: problem
    1's space complexity deleted, problem 2's time complexity emptied, an arrow in the 'what went
    wrong' the page quotes beside the failing practice code."""
    sub = tmp_path_factory.mktemp("gappy")
    shutil.copytree(ROOT / "solutions", sub, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "tests" / "corpus" / "bug_leetcode_pow_negative" / "leetcode.py", sub / "leetcode.py")
    log = sub / "LEETCODE_LOG.md"
    lines = log.read_text(encoding="utf-8").splitlines()
    kept = []
    for line in lines:
        if line.startswith("- **Space complexity:** O(1)"):
            continue  # problem 1: deleted
        if line.startswith("- **Time complexity:** O(n log log n)"):
            line = "- **Time complexity:**"  # problem 2: emptied
        if line.startswith("- **What went wrong:** The linear loop"):
            line = "- **What went wrong:** linear loop -> time limit for n = 2147483647 & negative n."
        kept.append(line)
    log.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return grade(sub, keyword="leetcode")


def test_the_log_page_gives_one_verdict(gappy: dict) -> None:
    results = gappy
    md = render_markdown(results, "en", "exercises")
    log_part = md[md.index("LeetCode log review"):]
    assert "linear loop -> time limit" in md and "&gt;" not in md and "&amp;" not in md  # escaped as Markdown
    assert "No findings: the log is complete and consistent" not in md
    found = results["artifacts"]["leetcode_log"]["findings"]
    errors = {(f["problem"], f["field"]): f["message_en"] for f in found if f["severity"] == "error"}
    assert "is missing" in errors[(1, "space")] and "placeholder" not in errors[(1, "space")]
    assert "is empty" in errors[(2, "time")] and "placeholder" not in errors[(2, "time")]
    # the catalog's row says what it compared: never points "earned" for a claim the page says is absent
    assert "(time complexity only: the space complexity is missing)" in log_part
    assert "(space complexity only: the time complexity is missing)" in log_part
    assert "No finding in the log itself" not in md  # findings there: the table, not a verdict of none


PROSE_TITLED = """# Log

## Problem 1

**50. Pow(x, n)**

At first I multiplied x by itself n times. Finally I used exponentiation by squaring, halving n each round.
The time complexity is O(log n) because n halves every step, and the space is O(1) since only a few
variables are kept. It went wrong at first for negative n. I solved it alone.
"""


def test_a_quoted_nearest_sentence_is_a_real_sentence_of_the_log() -> None:
    """Not the bold title above the prose, not a sentence holding the very field said to be missing."""
    from lesson_embedding_pe.leetlog import review_log

    [f] = [f for f in review_log(PROSE_TITLED).findings if f.code == "missing_field"]
    assert f.field == "difficulty" and 'the nearest is line 7: "At first I multiplied' in f.message_en
    assert "**" not in f.message_en
    text = PROSE_TITLED.replace(", and the space is O(1) since only a few\nvariables are kept", "")
    [f] = [f for f in review_log(text).findings if f.code == "missing_field" and f.field == "space"]
    assert "the nearest is line" in f.message_en


@pytest.mark.parametrize(("value", "words"), [
    ("<TODO>", "still holds the template placeholder"), ("<O(...) — 이유 한 줄>", "still holds the template"),
    ("", "is empty"), ("<!-- later -->", "is empty"),
])
def test_an_emptied_field_is_called_empty_and_a_placeholder_a_placeholder(value: str, words: str) -> None:
    from lesson_embedding_pe.leetlog import review_log

    log = (ROOT / "solutions" / "LEETCODE_LOG.md").read_text(encoding="utf-8")
    old = next(line for line in log.splitlines() if line.startswith("- **Space complexity:**"))
    found = review_log(log.replace(old, f"- **Space complexity:** {value}".rstrip(), 1)).findings
    [f] = [f for f in found if f.code == "missing_field"]
    assert words in f.message_en


def test_a_claim_unsure_of_its_approach_is_the_catalog_checks_to_take() -> None:
    """An unsure complexity field costs the complexity test; a claim the reader could not hold to one
    approach (leetlog's 'unsure_approach') the catalog's: each check names the test it passed."""
    from lesson_embedding_pe.logta import ta_checks

    source = "## Problem 1\n- **Time complexity:** linear — one pass\n"
    finding = {"severity": "unsure", "problem": 1, "line": 2, "message_en": "m", "message_ko": "m"}
    results = {
        "tests": [{"id": f"{s}/test_log.py::test_log[problem1-{g}]", "task": "leetcode_log", "score": 1.0}
                  for s, g in (("public", "complexity"), ("hidden", "catalog"))],
        "artifacts": {"leetcode_log": {"source": source, "problems": [{"line": 1}], "findings": [
            dict(finding, field="time", code="unsure_no_bigo"),
            dict(finding, field="time", code="unsure_approach")]}},
    }
    checks = {c.key: c.tests for c in ta_checks(results)}
    assert checks == {"problem1/time": ("public/test_log.py::test_log[problem1-complexity]",),
                      "problem1/time/approach": ("hidden/test_log.py::test_log[problem1-catalog]",)}
