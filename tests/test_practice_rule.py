"""The LeetCode practice's one rule, on real submissions: any two of the four, the best two count.

Each submission is the reference with some practice functions put back to the stub's
`raise NotImplementedError` (or broken), graded by the real grader; only the practice runs.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest

from grader.lesson.practice import BEST_OF, NOT_COUNTED, PROBLEMS
from grader.report.text import text_summary
from tests.conftest import ROOT, grade

KEYWORD = "leetcode_practice"
STUB = {name: f'    raise NotImplementedError("leetcode_practice: {name}")\n' for name in PROBLEMS}
WRONG_POW = "    return x ** abs(n)  # wrong for a negative n\n"


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
    # the two the stub lists last: the rule is "any two", not "the first two"
    results = grade(submission(tmp_path, {"my_pow": STUB["my_pow"], "count_primes": STUB["count_primes"]}),
                    hidden=True, keyword=KEYWORD)
    assert practice(results) == (8.0, 8.0)
    counted = [t["id"] for t in results["tests"] if t["task"] == "leetcode_practice"]
    assert groups(counted) == {"is_happy", "int_to_roman"}
    assert all(t["status"] == "passed" for t in results["tests"])
    left = not_counted(results)
    assert set(left) == {"my_pow", "count_primes"}
    assert {s["id"] for s in results["skipped"] if s.get("not_counted")} == {
        f"{suite}/test_leetcode.py::{name}"
        for suite in ("public", "hidden") for name in ("my_pow", "count_primes")}
    entry = left["my_pow"]
    assert entry["reason"] == NOT_COUNTED[0]
    assert entry["messages"] == {"en": NOT_COUNTED[0], "ko": NOT_COUNTED[1]}
    assert all(t["status"] == "failed" for t in entry["not_counted"]["tests"])
    assert results["score"] == pytest.approx(sum(t["score"] for t in results["tests"]))
    # the summary says it once per problem and file, in the reader's language
    summary = text_summary(results, "ko")
    assert summary.count(NOT_COUNTED[1]) == 4 and NOT_COUNTED[0] not in summary


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
    # three attempted, my_pow wrong: the two solved count; my_pow is listed, failed, not counted
    results = grade(submission(tmp_path, {"my_pow": WRONG_POW, "int_to_roman": STUB["int_to_roman"]}),
                    hidden=False, keyword=KEYWORD)
    assert practice(results) == (4.0, 4.0)
    left = not_counted(results)
    assert set(left) == {"my_pow", "int_to_roman"}
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
        text = (ROOT / "grader" / "suites" / suite / "test_leetcode.py").read_text()
        counts = {name: len(re.findall(rf'^\s+\("{name}", \(', text, re.M)) for name in PROBLEMS}
        assert len(set(counts.values())) == 1 and min(counts.values()) > 0, (suite, counts)
    assert BEST_OF == 2
