"""Issue 43: a TA's decision moves only its part, and every page agrees afterwards (unit level; the real
grade, take and pages are tests/test_log_ta.py's)."""

from __future__ import annotations

from grader.instructor.term.model import _take
from grader.report.cards import build_cards, lost_text
from grader.report.changes import nothing_to_fix, taken_parts
from grader.report.view import failure_rows
from lesson_embedding_pe.logta import part_points
from lesson_embedding_pe.report.log import taken_from

TEST = "public/test_log.py::test_log[problem2-complexity]"


def test_a_take_takes_its_part_and_two_parts_never_more_than_the_test_earned() -> None:
    left = {TEST: 1.0}
    assert _take(left, [TEST], 0.5) == 0.5 and left[TEST] == 0.5  # problem 2's space: its half
    assert _take(left, [TEST], 0.5) == 0.5  # the time too: the whole test
    assert _take(left, [TEST], 0.5) == 0.0  # nothing left to take
    assert _take({TEST: 0.25}, [TEST], None) == 0.25  # a check with no part: what its tests earned


def test_the_logs_parts_are_each_fields_share_of_its_group() -> None:
    assert part_points("unsure_missing_field", "space") == 0.5  # complexity group: 1.0 for time and space
    assert part_points("unsure_measured", "time") == 0.25  # catalog group: 0.5 for both
    assert part_points("unsure_missing_field", "what_went_wrong") == 0.25
    assert part_points("unsure_unplaced", "time") == 1.0  # nothing placed: the whole group is the part


def _results(final: dict, score: float = 5.0) -> dict:
    return {
        "suites": ["public"], "score": score, "max_score": 5.0,
        "tasks": {"leetcode_log": {"score": score, "max_score": 5.0, "passed": 10, "total": 10}},
        "tests": [{"id": TEST, "task": "leetcode_log", "score": 1.0, "max_score": 1.0, "status": "passed"}],
        "ta_checks": [{"key": "problem2/space", "tests": [TEST], "points": 0.5, "document": "LEETCODE_LOG.md",
                       "part_en": "problem 2, 'Space complexity'", "part_ko": "문제 2의 '공간복잡도'"}],
        "final": final,
    }


def test_after_a_take_nothing_says_there_is_nothing_to_fix() -> None:
    taken = _results({"total": 4.5, "tasks": {"leetcode_log": 4.5},
                      "checks": {"problem2/space": {"decision": "take", "points": -0.5, "reason": "x"}}})
    assert taken_parts(taken, "en") == [("LEETCODE_LOG.md, problem 2, 'Space complexity'", 0.5)]
    said = nothing_to_fix(taken, "en")
    assert "Nothing to fix" not in said and "took 0.5 point(s)" in said
    assert "문제 2의 '공간복잡도' 부분을 읽고 0.5점을 감점" in nothing_to_fix(taken, "ko")
    assert taken_from(taken) == {TEST: 0.5}  # the log's breakdown row of that test shows 0.5 of 1
    confirmed = _results({"total": 5.0, "tasks": {"leetcode_log": 5.0},
                          "checks": {"problem2/space": {"decision": "confirm", "points": 0.0}}})
    assert taken_parts(confirmed, "en") == [] and "Nothing to fix" in nothing_to_fix(confirmed, "en")


def test_an_adjustment_that_gives_points_back_shows_on_the_failed_checks_loss() -> None:
    results = _results({"total": 5.0, "tasks": {"leetcode_log": 5.0}}, score=4.5)
    message = ("LeetCode log, problem 1: first idea and final approach: Problem 1: the 'First idea' field "
               "is missing.")
    results["tests"].append({"id": "public/test_log.py::test_log[problem1-approach]", "task": "leetcode_log",
                             "score": 0.0, "max_score": 0.5, "status": "failed",
                             "messages": {"en": message, "ko": message}})
    rows = failure_rows(results, "en", ".")
    assert rows[0]["points"] == 0.0 and "gave back 0.5 of these points" in rows[0]["text"]
    cards, _ = build_cards(rows, "en")
    assert cards[0]["lost"] == 0.0 and lost_text(cards[0]["lost"], "en") == "costs nothing"
    assert lost_text(0.5, "en") == "−0.5"
    # an adjustment of part of it: the card shows what is still lost
    results["final"] = {"total": 4.75, "tasks": {"leetcode_log": 4.75}}
    assert failure_rows(results, "en", ".")[0]["points"] == 0.25
