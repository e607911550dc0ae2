"""The LeetCode practice's one rule, on real submissions: any two of the three Medium, the best two count.

Happy Number (202) is Easy on LeetCode: solved or not, it never counts. The rule is stated in the
same words wherever a student reads it (README, the stub, the log template, the release, the notebook).

Each submission is the reference with some practice functions put back to the stub's
`raise NotImplementedError` (or broken), graded by the real grader; only the practice runs.
"""

from __future__ import annotations

import ast
import io
import re
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from grader.report.cards import NOT_COUNTED_HEAD, not_counted_cards
from grader.report.render import render_html, render_markdown
from grader.report.terminal import summary_renderables
from grader.report.text import text_summary
from lesson_embedding_pe.paths import SUITES as EMBEDDING_SUITES
from lesson_embedding_pe.practice import BEST_OF, NOT_COUNTED, NOT_COUNTED_EASY, PROBLEMS, RULE
from lesson_embedding_pe.report.log import log_view
from tests.conftest import ROOT, grade

KEYWORD = "leetcode_practice"
STUB = {name: f'    raise NotImplementedError("leetcode_practice: {name}")\n' for name in PROBLEMS}
# by hand, as the stub asks, but wrong for a negative n (Python's own ** is refused by the rule itself)
WRONG_POW = "    out = 1.0\n    for _ in range(abs(n)):\n        out *= x\n    return out  # n < 0: wrong\n"


def submission(tmp_path: Path, bodies: dict[str, str]) -> Path:
    """solutions/ with the named functions' bodies replaced."""
    out = tmp_path / "sub"
    shutil.copytree(ROOT / "solutions", out)
    source = (out / "leetcode.py").read_text()
    lines = source.splitlines(keepends=True)
    for node in sorted((n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)
                        and n.name in bodies), key=lambda n: -n.lineno):
        lines[node.body[0].lineno - 1:node.end_lineno] = [bodies[node.name]]
    (out / "leetcode.py").write_text("".join(lines))
    return out


def practice(results: dict) -> tuple[float, float]:
    task = results["tasks"]["leetcode_practice"]
    return task["score"], task["max_score"]


def groups(ids: list[str]) -> set[str]:
    return {m.group(1) for i in ids if (m := re.search(r"\[(\w+)\(", i))}


def not_counted(results: dict) -> dict[str, dict]:
    return {s["not_counted"]["group"]: s for s in results["skipped"] if s.get("not_counted")}


def test_two_chosen_problems_solved_are_full_marks(tmp_path: Path) -> None:
    # the two Medium problems the stub lists last: the rule is "any two", not "the first two"
    results = grade(submission(tmp_path, {"my_pow": STUB["my_pow"], "is_happy": STUB["is_happy"]}),
                    hidden=True, keyword=KEYWORD)
    assert practice(results) == (8.0, 8.0)
    counted = [t["id"] for t in results["tests"] if t["task"] == "leetcode_practice"]
    assert groups(counted) == {"count_primes", "int_to_roman"}
    assert all(t["status"] == "passed" for t in results["tests"])
    left = not_counted(results)
    assert set(left) == {"my_pow", "is_happy"}
    assert {s["id"] for s in results["skipped"] if s.get("not_counted")} == {
        f"{suite}/test_leetcode.py::{name}"
        for suite in ("public", "hidden") for name in ("my_pow", "is_happy")}
    entry = left["my_pow"]
    assert entry["reason"] == NOT_COUNTED[0]
    assert entry["messages"] == {"en": NOT_COUNTED[0], "ko": NOT_COUNTED[1]}
    assert left["is_happy"]["messages"] == {"en": NOT_COUNTED_EASY[0], "ko": NOT_COUNTED_EASY[1]}
    assert all(t["status"] == "failed" for t in entry["not_counted"]["tests"])
    assert results["score"] == pytest.approx(sum(t["score"] for t in results["tests"]))
    # nothing to show for problems not attempted: no "failing, not counted" card, in either language
    assert not_counted_cards(results, "en", "sub") == []
    summary = text_summary(results, "ko")
    assert NOT_COUNTED_HEAD[1] not in summary and NOT_COUNTED[0] not in summary


def test_happy_number_solved_never_counts(tmp_path: Path) -> None:
    """Happy Number (Easy) and one Medium solved: half marks, as the rule says, not full."""
    results = grade(submission(tmp_path, {"my_pow": STUB["my_pow"], "count_primes": STUB["count_primes"]}),
                    hidden=False, keyword=KEYWORD)
    assert practice(results) == (2.0, 4.0)
    left = not_counted(results)
    assert "is_happy" in left and left["is_happy"]["reason"] == NOT_COUNTED_EASY[0]
    assert {t["status"] for t in left["is_happy"]["not_counted"]["tests"]} == {"passed"}
    counted = [t["id"] for t in results["tests"] if t["task"] == "leetcode_practice"]
    assert "is_happy" not in groups(counted) and "int_to_roman" in groups(counted)


def _words(text: str) -> str:
    """Text as read: Markdown quote marks, comment marks and line breaks are not words."""
    return " ".join(re.sub(r"^\s*(?:>|#)\s?", "", text, flags=re.M).split())


def test_the_rule_is_stated_in_the_same_words_wherever_a_student_chooses() -> None:
    from lesson_embedding_pe.notebook import STEPS
    from lesson_embedding_pe.student_release import README

    places = {
        "README.md": (ROOT / "README.md").read_text(encoding="utf-8"),
        "exercises/leetcode.py": (ROOT / "exercises" / "leetcode.py").read_text(encoding="utf-8"),
        "exercises/LEETCODE_LOG.md": (ROOT / "exercises" / "LEETCODE_LOG.md").read_text(encoding="utf-8"),
        "release README": README,
        "notebook": STEPS["my_pow"],
    }
    for place, text in places.items():
        words = _words(text).replace("LeetCode: solve any", "Solve any").replace("**[English]** ", "")
        words = words.replace("**[한국어]** ", "").replace("LeetCode: `leetcode.py`", "`leetcode.py`")
        assert _words(RULE[0]) in words, place
        assert _words(RULE[1]) in words, place


def test_one_solved_is_half_and_the_next_one_counts_as_not_attempted(tmp_path: Path) -> None:
    """1/4 after solving my_pow was the bug: now one of the two problems, 2 / 4."""
    stubs = {name: STUB[name] for name in PROBLEMS if name != "my_pow"}
    results = grade(submission(tmp_path, stubs), hidden=False, keyword=KEYWORD)
    assert practice(results) == (2.0, 4.0)
    failed = [t for t in results["tests"] if t["status"] != "passed"]
    assert groups([t["id"] for t in failed]) == {"count_primes"}
    assert all(t["message"].startswith("Not attempted") for t in failed)
    assert set(not_counted(results)) == {"is_happy", "int_to_roman"}


def test_best_two_of_more_count_and_an_attempted_failure_beats_not_attempted(tmp_path: Path) -> None:
    # three Medium attempted, my_pow wrong: the two solved count; my_pow is listed, failed, not counted
    results = grade(submission(tmp_path, {"my_pow": WRONG_POW, "is_happy": STUB["is_happy"]}),
                    hidden=False, keyword=KEYWORD)
    assert practice(results) == (4.0, 4.0)
    left = not_counted(results)
    assert set(left) == {"my_pow", "is_happy"}
    assert {t["status"] for t in left["my_pow"]["not_counted"]["tests"]} == {"passed", "failed"}
    # only my_pow attempted, and wrong everywhere it matters: it counts before a problem not started
    results = grade(submission(tmp_path / "b", {"my_pow": "    return 0.0\n",
                                                **{n: STUB[n] for n in PROBLEMS[1:]}}),
                    hidden=False, keyword=KEYWORD)
    assert practice(results) == (0.0, 4.0)
    counted = [t for t in results["tests"] if t["task"] == "leetcode_practice"]
    assert groups([t["id"] for t in counted]) == {"my_pow", "count_primes"}
    assert any("expected 1024.0; found 0.0" in t["message"] for t in counted)


def test_every_problem_weighs_the_same_in_each_suite() -> None:
    for suite in ("public", "hidden"):
        text = (EMBEDDING_SUITES / suite / "test_leetcode.py").read_text()
        counts = {name: len(re.findall(rf'^\s+\("{name}", \(', text, re.M)) for name in PROBLEMS}
        assert len(set(counts.values())) == 1 and min(counts.values()) > 0, (suite, counts)
    assert BEST_OF == 2


def _terminal(results: dict, lang: str, path: str) -> str:
    console = Console(record=True, width=200, file=io.StringIO(), color_system=None)
    for item in summary_renderables(results, lang, path):
        console.print(item, soft_wrap=True)
    return console.export_text()


def test_a_failing_problem_outside_the_best_two_is_shown_failing_and_not_counted(tmp_path: Path) -> None:
    """The three Medium problems attempted, my_pow wrong for a negative n: full marks (the best two count),
    and every page says my_pow fails, with expected, found and the command, in both languages."""
    sub = submission(tmp_path, {"my_pow": WRONG_POW, "is_happy": STUB["is_happy"]})
    results = grade(sub, hidden=False, keyword="leetcode")  # the practice and the log
    assert practice(results) == (4.0, 4.0)
    # the log (Pow and Count Primes) covers code that solves both, wrong or not: full marks; its review
    # puts my_pow's failure next to 'what went wrong'
    log = results["tasks"]["leetcode_log"]
    assert log["score"] == log["max_score"] > 0
    linked = log_view(results, "en")["linked"]
    assert [(x["function"], x["failure"]) for x in linked] == [
        ("my_pow", "my_pow(2.0, -2): expected 0.25; found 4.0")]
    assert results["score"] == pytest.approx(sum(t["score"] for t in results["tests"]))
    for lang in ("en", "ko"):
        cards = not_counted_cards(results, lang, "sub")
        assert [c["group"] for c in cards] == ["my_pow"]  # is_happy is not attempted: nothing to show
        (check,) = cards[0]["checks"]
        assert check["id"] == "public/test_leetcode.py::test_examples[my_pow(2.0, -2)]"
        assert check["parts"]["expected"].startswith("0.25") and check["parts"]["found"].startswith("4.0")
        assert check["reproduce"] == "grade sub -k 'test_examples and my_pow'"
        head = NOT_COUNTED_HEAD[1 if lang == "ko" else 0]
        pages = {"html": render_html(results, lang, "sub"), "md": render_markdown(results, lang, "sub"),
                 "summary.txt": text_summary(results, lang, "sub"),
                 "terminal": _terminal(results, lang, "sub")}
        for name, page in pages.items():
            assert head in page and "my_pow(2.0, -2)" in page, name
            assert "test_examples and my_pow" in page, name
        assert ("my_pow fails 1 check." in pages["terminal"]) == (lang == "en")
        assert ("검사 1개에서 실패" in pages["terminal"]) == (lang == "ko")
    # the command reruns exactly that problem's checks (alone in the run, so they count there): still failing
    again = grade(sub, hidden=False, keyword="test_examples and my_pow")
    assert {t["id"]: t["status"] for t in again["tests"]} == {
        "public/test_leetcode.py::test_examples[my_pow(2.0, 10)]": "passed",
        "public/test_leetcode.py::test_examples[my_pow(2.0, -2)]": "failed"}


def test_summary_txt_is_the_terminal_summary(tmp_path: Path) -> None:
    """The same lines in the same order (its top three, its grouping), then each check; no empty label."""
    sub = tmp_path / "sub"
    shutil.copytree(ROOT / "tests" / "corpus" / "bug_concat_sincos", sub)
    results = grade(sub, hidden=False, keyword="sinusoidal_pe")
    for lang in ("en", "ko"):
        text = text_summary(results, lang, "sub")
        terminal = [x.strip() for x in _terminal(results, lang, "sub").splitlines()
                    if x.strip() and not re.search("[│┃━─]", x)][1:]  # past the head and the table
        at = 0
        for line in terminal:
            found = text.find(line, at)
            assert found >= 0, (line, text[at:at + 400])
            at = found + len(line)
        top = "Top three things to fix" if lang == "en" else "가장 먼저 고칠 세 가지"
        assert text.count(top) == 1
        failed = [t for t in results["tests"] if t["status"] != "passed"]
        assert all(t["id"] in text for t in failed) and len(failed) > 1
        assert not re.search(r"(?:Likely cause|원인 추정)\s*:\s*(?:$|Fix|How to fix|고치는 방법)", text, re.M)


@pytest.mark.parametrize(("text", "cause", "left"), [
    ("f(2): expected 4; found 5. Likely cause: off by one. Fix: start at 0.", "off by one.",
     "f(2): expected 4; found 5. Fix: start at 0."),
    ("f(2): 4이어야 하는데 5입니다. 원인 추정: 하나 차이. 고치는 방법: 0부터.", "하나 차이.",
     "f(2): 4이어야 하는데 5입니다. 고치는 방법: 0부터."),
    ("f(2): expected 4; found 5. Likely cause: off by one.", "off by one.", "f(2): expected 4; found 5."),
])
def test_a_check_under_its_cause_drops_label_and_cause_together(text: str, cause: str, left: str) -> None:
    """The old summary.txt printed 'Likely cause:  Fix: ...': the cause cut, its label left."""
    from grader.report.text import _without

    assert _without(text, cause) == left


def test_the_stubs_raise_left_above_a_written_body_is_an_attempt_told_as_such(tmp_path: Path) -> None:
    """`raise NotImplementedError` left as the first line of a working count_primes: the code never runs,
    which the practice says (failed, "delete that line"), never "not attempted" beside a log review that
    reads the same function as solved."""
    source = (ROOT / "solutions" / "leetcode.py").read_text()
    body = source.split('    """Number of primes strictly below n (sieve of Eratosthenes)."""\n', 1)[1]
    body = body.split("\n\n\n", 1)[0] + "\n"
    left_above = '    raise NotImplementedError("leetcode_practice: count_primes")\n\n' + body
    sub = submission(tmp_path, {"count_primes": left_above, "int_to_roman": STUB["int_to_roman"]})
    results = grade(sub, hidden=False, keyword=f"{KEYWORD} or leetcode_log")
    assert practice(results) == (2.0, 4.0)
    primes = [t for t in results["tests"] if t["task"] == KEYWORD and "count_primes" in t["id"]
              and t["status"] != "passed"]
    assert primes and all(t["feedback"]["status"] == "failed" for t in primes)
    for t in primes:
        assert "never runs" in t["messages"]["en"] and "Delete that line" in t["messages"]["en"]
        assert "실행되지 않습니다" in t["messages"]["ko"] and "지우세요" in t["messages"]["ko"]
        assert "Not attempted" not in t["messages"]["en"]
    # the untouched stub is still not started; the log's problem check agrees the code is there
    roman = [t for t in results["tests"] if "int_to_roman" in t["id"] and t["task"] == KEYWORD]
    assert all(t["message"].startswith("Not attempted") for t in roman if t["status"] != "passed")
    problem2 = [t for t in results["tests"] if t["id"].endswith("[problem2-problem]")]
    assert [t["status"] for t in problem2] == ["passed"]
