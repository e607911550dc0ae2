"""The log review's findings a student can trigger that no other test or corpus log reaches: each on a
short log written as a student would, with its exact code, severity, problem, field and line, the points
it takes (and only those), and messages in both languages that quote what the student wrote.

The points are read off the breakdown: a finding that costs a field takes that field's 0.25 from the
problem's 'fields' line and nothing else; a warning, an info or an unsure finding takes nothing.
"""

from __future__ import annotations

import pytest

from lesson_embedding_pe.leetlog import parse_log, review_log
from lesson_embedding_pe.leetlog.code.coverage import function_source
from lesson_embedding_pe.leetlog.review import FIELD_POINTS, MAX_POINTS, Finding, LogReview
from tests.measure_here import measure_in

ENGLISH = """\
# LeetCode log

## Problem 1
**Problem:** 50. Pow(x, n)
**Difficulty:** Medium
**First idea:** multiply x by itself n times.
**Final approach:** fast exponentiation, iterative: square x and halve n each step.
**Time complexity:** O(log n) — n halves every step
**Space complexity:** O(1) — a few variables
**What went wrong:** forgot that n can be negative.
**Solved:** alone

## Problem 2
**Problem:** 204. Count Primes
**Difficulty:** Medium
**First idea:** trial division of every number below n.
**Final approach:** Sieve of Eratosthenes, crossing out from i*i.
**Time complexity:** O(n log log n) — n/p crossings for each prime p
**Space complexity:** O(n) — one flag per number
**What went wrong:** counted n itself.
**Solved:** after reading a solution
**Redo date:** 2026-12-01
"""

KOREAN = """\
# LeetCode 기록

## 문제 1
- 문제: 50. Pow(x, n)
- 난이도: Medium
- 처음 아이디어: x를 n번 곱하기
- 최종 접근: 분할 거듭제곱, 반복문으로 x를 제곱하고 n을 절반씩 줄임
- 시간복잡도: O(log n) — n이 매번 절반이 됨
- 공간복잡도: O(1) — 변수 몇 개
- 틀린 이유: n이 음수인 경우를 빠뜨림
- 풀이 방식: 혼자

## 문제 2
- 문제: 204. Count Primes
- 난이도: Medium
- 처음 아이디어: n보다 작은 수를 하나씩 나눠 봄
- 최종 접근: 에라토스테네스의 체, i*i부터 지움
- 시간복잡도: O(n log log n) — 소수 p마다 n/p번 지움
- 공간복잡도: O(n) — 수마다 플래그 하나
- 틀린 이유: n 자신까지 셌음
- 풀이 방식: 풀이를 보고 풂
- 다시 풀 날짜: 2026-12-01
"""

LOGS = {"en": ENGLISH, "ko": KOREAN}


def _edit(log: str, old: str, new: str) -> str:
    assert log.count(old) == 1, old
    return log.replace(old, new)


def _line(log: str, text: str) -> int:
    """The 1-based line of ``log`` that holds ``text`` (once)."""
    lines = [k for k, line in enumerate(log.splitlines(), 1) if text in line]
    assert len(lines) == 1, (text, lines)
    return lines[0]


def _lost(review: LogReview) -> dict[str, float]:
    """Each line of the breakdown that earned less than its most, and by how much."""
    return {b.item: round(b.max_points - b.points, 4) for b in review.breakdown if b.points != b.max_points}


def _only(review: LogReview) -> Finding:
    assert len(review.findings) == 1, review.findings
    return review.findings[0]


def _where(f: Finding) -> tuple[str, str, int | None, str | None, int | None]:
    return f.severity, f.code, f.problem, f.field, f.line


@pytest.mark.parametrize("lang", sorted(LOGS))
def test_both_logs_are_complete_as_written(lang: str) -> None:
    """The baseline each test below edits one line of: full points, no finding."""
    r = review_log(LOGS[lang])
    assert (r.points, r.findings) == (MAX_POINTS, [])


# -- a field filled but not well formed: an error, that field's 0.25 --------------------------------------


@pytest.mark.parametrize(
    ("lang", "old", "new", "said", "ko"),
    [
        ("en", "**Difficulty:** Medium\n**First idea:** multiply",
         "**Difficulty:** banana\n**First idea:** multiply", "banana", "'banana'를"),
        ("ko", "- 난이도: Medium\n- 처음 아이디어: x를",
         "- 난이도: 잘 모르겠음\n- 처음 아이디어: x를", "잘 모르겠음", "'잘 모르겠음'을"),
    ],
    ids=["en", "ko"],
)
def test_an_unreadable_difficulty_costs_that_field_only(lang: str, old: str, new: str, said: str,
                                                        ko: str) -> None:
    log = _edit(LOGS[lang], old, new)
    r = review_log(log)
    f = _only(r)
    assert _where(f) == ("error", "bad_difficulty", 1, "difficulty", _line(log, said))
    assert _lost(r) == {"problem 1: fields present and well formed": FIELD_POINTS} and FIELD_POINTS == 0.25
    assert f"could not read the difficulty '{said}'" in f.message_en
    assert f"난이도 {ko} 읽지 못했습니다" in f.message_ko
    assert r.problems[0].difficulty == "Medium"  # the catalog's, so no task-fit penalty on top


@pytest.mark.parametrize(
    ("lang", "old", "new", "said", "ko"),
    [
        ("en", "**Solved:** alone", "**Solved:** yes, accepted", "yes, accepted", "'yes, accepted'가"),
        ("ko", "- 풀이 방식: 혼자", "- 풀이 방식: 통과함", "통과함", "'통과함'이"),
    ],
)
def test_a_solved_that_says_neither_alone_nor_after_a_solution_costs_that_field_only(
        lang: str, old: str, new: str, said: str, ko: str) -> None:
    log = _edit(LOGS[lang], old, new)
    r = review_log(log)
    f = _only(r)
    assert _where(f) == ("error", "bad_solved", 1, "solved", _line(log, said))
    assert _lost(r) == {"problem 1: fields present and well formed": FIELD_POINTS}
    assert f"'solved' reads '{said}'" in f.message_en
    assert f"풀이 방식 {ko} 분명하지 않습니다" in f.message_ko


@pytest.mark.parametrize(("lang", "label"), [("en", "**Redo date:** "), ("ko", "- 다시 풀 날짜: ")])
def test_an_impossible_redo_date_after_a_solution_costs_the_solved_field(lang: str, label: str) -> None:
    """February has no 30th: after reading a solution the redo date is required, so an invalid one costs
    the 'solved' field's 0.25 as a missing one would; the finding is on the date's line."""
    log = _edit(LOGS[lang], f"{label}2026-12-01", f"{label}2026-02-30")
    r = review_log(log)
    f = _only(r)
    assert _where(f) == ("error", "bad_date", 2, "redo_date", _line(log, "2026-02-30"))
    assert _lost(r) == {"problem 2: fields present and well formed": FIELD_POINTS}
    assert "the redo date '2026-02-30' is not a date in YYYY-MM-DD" in f.message_en
    assert "다시 풀 날짜 '2026-02-30'이 YYYY-MM-DD 형식의 날짜가 아닙니다" in f.message_ko


@pytest.mark.parametrize(("lang", "solved"), [("en", "**Solved:** alone"), ("ko", "- 풀이 방식: 혼자")])
def test_an_impossible_redo_date_after_solving_alone_is_only_a_warning(lang: str, solved: str) -> None:
    """Solved alone, no redo date is needed: an invalid one is pointed out and costs nothing."""
    label = "**Redo date:**" if lang == "en" else "- 다시 풀 날짜:"
    log = _edit(LOGS[lang], solved, f"{solved}\n{label} 2026-02-30")
    r = review_log(log)
    f = _only(r)
    assert _where(f) == ("warning", "bad_date", 1, "redo_date", _line(log, "2026-02-30"))
    assert r.points == MAX_POINTS and _lost(r) == {}
    assert "'2026-02-30'" in f.message_en and "'2026-02-30'이" in f.message_ko


@pytest.mark.parametrize(
    ("lang", "old"),
    [("en", "\n**Redo date:** 2026-12-01"), ("ko", "\n- 다시 풀 날짜: 2026-12-01")],
)
def test_no_redo_date_after_reading_a_solution_costs_the_solved_field(lang: str, old: str) -> None:
    """The date is its own line but not its own point: the 'solved' field is not well formed without it.
    There is no redo line to point at, so the finding is on the problem's heading."""
    log = _edit(LOGS[lang], old, "")
    r = review_log(log)
    f = _only(r)
    heading = "## Problem 2" if lang == "en" else "## 문제 2"
    assert _where(f) == ("error", "redo_date_missing", 2, "redo_date", _line(log, heading))
    assert _lost(r) == {"problem 2: fields present and well formed": FIELD_POINTS}
    assert "not solved alone" in f.message_en and "혼자 풀지 않았다면" in f.message_ko


# -- findings that take nothing ---------------------------------------------------------------------------

def _with_problem_2(lang: str, entry: str) -> str:
    """The complete log of ``lang`` with its second problem's entry replaced by ``entry``."""
    heading = "## Problem 2" if lang == "en" else "## 문제 2"
    return LOGS[lang].split(heading)[0] + f"{heading}\n{entry}"


UNCATALOGUED = {
    "en": ("**Problem:** 62. Unique Paths\n**Difficulty:** Medium\n"
           "**First idea:** recursion over the moves.\n"
           "**Final approach:** dynamic programming over an n x n grid.\n"
           "**Time complexity:** O(n) — one pass per row\n"
           "**Space complexity:** O(n^2) — the whole grid\n"
           "**What went wrong:** an off-by-one in the grid size.\n**Solved:** alone\n"),
    "ko": ("- 문제: 62. Unique Paths\n- 난이도: Medium\n- 처음 아이디어: 이동을 재귀로 전부 셈\n"
           "- 최종 접근: n x n 격자에 대한 동적 계획법\n"
           "- 시간복잡도: O(n) — 행마다 한 번\n"
           "- 공간복잡도: O(n^2) — 격자 전체\n"
           "- 틀린 이유: 격자 크기를 하나 잘못 잡음\n- 풀이 방식: 혼자\n"),
}


@pytest.mark.parametrize("lang", sorted(LOGS))
def test_a_space_claim_above_the_time_claim_is_a_warning_quoting_both(lang: str) -> None:
    """A problem the catalog does not know (so no claim is held to a reference): space O(n^2) with
    time O(n) cannot both be right, since filling memory takes time; a TA-style warning, no point taken."""
    log = _with_problem_2(lang, UNCATALOGUED[lang])
    r = review_log(log)
    space, time = _line(log, "O(n^2)"), _line(log, "O(n) —")
    assert [_where(f) for f in r.findings] == [
        ("info", "unknown_problem", 2, "problem", _line(log, "62. Unique Paths")),
        ("warning", "space_exceeds_time", 2, "space", space)]
    assert r.points == MAX_POINTS and _lost(r) == {}
    f = r.findings[1]
    assert f'the space complexity "O(n^2)" (line {space}) exceeds the time complexity "O(n)" (line {time})' \
        in f.message_en
    assert f'공간복잡도 {space}행의 "O(n^2)"가 시간복잡도 {time}행의 "O(n)"보다 큽니다' in f.message_ko


@pytest.mark.parametrize(
    ("lang", "old", "new"),
    [
        ("en", "**What went wrong:** counted n itself.",
         "**What went wrong:** counted n itself.\n**What went wrong:** the sieve was one element short."),
        ("ko", "- 틀린 이유: n 자신까지 셌음",
         "- 틀린 이유: n 자신까지 셌음\n- 틀린 이유: 배열이 하나 짧았음"),
    ],
    ids=["en", "ko"],
)
def test_a_field_written_twice_is_a_warning_and_the_first_is_graded(lang: str, old: str, new: str) -> None:
    """A second 'what went wrong' line: pointed out on its line, the first one read, nothing taken."""
    log = _edit(LOGS[lang], old, new)
    r = review_log(log)
    f = _only(r)
    first, second = _line(log, old), _line(log, new.split("\n")[1])
    assert _where(f) == ("warning", "duplicate_field", 2, "what_went_wrong", second)
    assert r.points == MAX_POINTS and _lost(r) == {}
    assert parse_log(log).problems[1].fields["what_went_wrong"].line == first
    assert f"'What went wrong' appears twice (lines {first} and {second}); the first is graded" in (
        f.message_en)
    assert f"'틀린 이유'가 두 번 있습니다 ({first}행, {second}행). 첫 번째만 채점합니다" in f.message_ko


def test_a_third_problem_is_noted_and_not_graded() -> None:
    """The task grades the first two; a third, even one with fields left out, changes nothing."""
    third = "## Problem 3\n**Problem:** 172. Factorial Trailing Zeroes\n**Difficulty:** Easy\n" \
            "**Time complexity:** O(n)\n"
    log = ENGLISH + "\n" + third
    r = review_log(log)
    f = _only(r)
    assert _where(f) == ("info", "extra_problems", None, None, _line(log, "## Problem 3"))
    assert r.points == MAX_POINTS and _lost(r) == {} and len(r.problems) == 2
    assert f.message_en == "The log has 3 problems; the first 2 are graded."
    assert f.message_ko == "문제가 3개 있습니다. 앞의 2개만 채점합니다."


@pytest.mark.parametrize("slot", ["## Problem 3\n**Problem:**\n**Difficulty:**\n**Time complexity:**\n",
                                  "## 문제 3 (Problem 3)\n- **문제 (Problem):** <제목 또는 번호>\n"])
def test_a_third_section_left_empty_is_no_problem(slot: str) -> None:
    """The template's third section kept for later, its labels empty or placeholders: two problems, and
    nothing said of a third (was 'The log has 3 problems')."""
    r = review_log(ENGLISH + "\n" + slot)
    assert r.points == MAX_POINTS and r.findings == []


def test_an_easy_warm_up_logged_first_does_not_push_a_medium_problem_out() -> None:
    """Happy Number noted ahead of the two Medium problems: those are graded, as problems 1 and 2, and the
    note says why; two problems only: the Easy one is graded and loses its task-fit points as before."""
    warm_up = ("## Warm-up\n**Problem:** 202. Happy Number\n**Difficulty:** Easy\n"
               "**Time complexity:** O(log n)\n\n")
    log = ENGLISH.replace("## Problem 1", warm_up + "## Problem 1", 1)
    r = review_log(log)
    f = _only(r)
    assert _where(f) == ("info", "extra_easy", None, None, _line(log, "**Problem:** 202."))
    assert r.points == MAX_POINTS and [p.line for p in r.problems] == [
        _line(log, "## Problem 1"), _line(log, "## Problem 2")]
    two = review_log(warm_up + ENGLISH.split("## Problem 2")[0])
    assert [(f.problem, f.code) for f in two.findings if f.code == "not_medium"] == [(1, "not_medium")]


REVERSE = {
    "en": ("**Problem:** 7. Reverse Integer\n**Difficulty:** Medium\n**First idea:** reverse the string.\n"
           "**Final approach:** pop the last digit and push it onto the result, checking for overflow.\n"
           "**Time complexity:** O(d) — one step per digit, where d is the number of digits\n"
           "**Space complexity:** O(1) — two integers\n"
           "**What went wrong:** forgot the 32-bit overflow.\n**Solved:** alone\n"),
    "ko": ("- 문제: 7. Reverse Integer\n- 난이도: Medium\n- 처음 아이디어: 문자열로 바꿔 뒤집기\n"
           "- 최종 접근: 마지막 자리를 꺼내 결과 뒤에 붙이고 오버플로를 검사\n"
           "- 시간복잡도: O(d) — 자리마다 한 번, d는 자릿수\n"
           "- 공간복잡도: O(1) — 정수 두 개\n"
           "- 틀린 이유: 32비트 오버플로를 빠뜨림\n- 풀이 방식: 혼자\n"),
}


@pytest.mark.parametrize("lang", sorted(LOGS))
def test_a_claim_in_its_own_defined_variable_is_incomparable_and_costs_nothing(lang: str) -> None:
    """O(d), d the digit count, is Reverse Integer's O(log x) in other words: the reader cannot compare
    the two, names the reference's variable, and takes nothing (no approach is named to hold it to)."""
    log = _with_problem_2(lang, REVERSE[lang])
    r = review_log(log)
    f = _only(r)
    line = _line(log, "O(d)")
    assert _where(f) == ("info", "incomparable", 2, "time", line)
    assert r.points == MAX_POINTS and _lost(r) == {}
    assert f'"O(d)" (line {line}) with the reference O(log x)' in f.message_en
    assert "x is the input (log x digits)" in f.message_en
    assert f'{line}행의 "O(d)"를 기준 O(log x)와 비교하지 못했습니다' in f.message_ko


# -- unsure: the reader half-read it; a TA reads that part, the points stay ---------------------------------


def test_a_half_known_label_holding_the_fields_words_is_unsure_not_missing() -> None:
    """'Notes (틀린 이유 말고)' is no label the reader knows, yet 'what went wrong' is in its words: the
    reader cannot be sure the field is absent, so a TA reads it and its 0.25 stays."""
    log = _edit(KOREAN, "- 틀린 이유: n이 음수인 경우를 빠뜨림", "- Notes (틀린 이유 말고): 음수")
    r = review_log(log)
    f = _only(r)
    # on the line holding the field's words, where a TA looks first (not the problem's heading)
    assert _where(f) == ("unsure", "unsure_missing_field", 1, "what_went_wrong", _line(log, "- Notes (틀린"))
    assert r.points == MAX_POINTS and _lost(r) == {}
    assert "not sure about 'What went wrong'" in f.message_en and "TA" in f.message_en
    assert "'틀린 이유' 칸을 채점기가 확실히 읽지 못했습니다" in f.message_ko and "조교" in f.message_ko
    # what the reader saw, in both languages
    assert "the field's words are in the problem's text" in f.message_en
    assert "이 칸의 낱말이 문제의 글에 있지만" in f.message_ko
    # the same line with none of the field's words is a sure error that costs its 0.25
    plain = review_log(_edit(KOREAN, "- 틀린 이유: n이 음수인 경우를 빠뜨림", "- Notes: 재밌었음"))
    assert [_where(f)[:4] for f in plain.findings] == [("error", "missing_field", 1, "what_went_wrong")]
    assert _lost(plain) == {"problem 1: fields present and well formed": FIELD_POINTS}


def test_an_unknown_label_before_any_field_holding_the_fields_words_is_unsure_not_missing() -> None:
    """'Memory note: …' right under the heading is a label the reader does not know, outside any field: its
    words still name the missing space complexity, so a TA reads it (read as raw lines, not as sentences
    with the unknown label cut off) and its points stay."""
    log = _edit(_edit(ENGLISH, "**Space complexity:** O(1) — a few variables\n", ""),
                "## Problem 1\n", "## Problem 1\nMemory note: a handful of variables\n")
    r = review_log(log)
    assert _where(_only(r)) == ("unsure", "unsure_missing_field", 1, "space", _line(log, "Memory note"))
    assert r.points == MAX_POINTS and _lost(r) == {}


def test_a_leading_number_is_the_sections_only_where_it_is_this_problems_place() -> None:
    """'1. 50. Pow(x, n)': problem 1's section number, then the problem; '50. Count Primes' is a wrong
    number (Count Primes is 204), said as such, never dropped as if it were the section's."""
    placed = review_log(_edit(ENGLISH, "**Problem:** 50. Pow(x, n)", "**Problem:** 1. 50. Pow(x, n)"))
    assert placed.findings == [] and placed.problems[0].number == 50
    wrong = review_log(_edit(ENGLISH, "**Problem:** 50. Pow(x, n)", "**Problem:** 50. Count Primes"))
    assert ("warning", "number_title_mismatch", 1, "problem") in [_where(f)[:4] for f in wrong.findings]


@pytest.mark.parametrize(
    ("lang", "old"),
    [("en", "**Time complexity:** O(log n) — n halves every step"),
     ("ko", "- 시간복잡도: O(log n) — n이 매번 절반이 됨")],
)
def test_a_claim_followed_by_an_arrow_is_unsure_of_its_reason(lang: str, old: str) -> None:
    """'O(log n) → n': something follows the Big-O, too little to call a reason and too much to call
    none; a TA reads it, the field's point stays (a sure 'no reason' would take it)."""
    log = _edit(LOGS[lang], old, old.split(" — ")[0] + " → n")
    r = review_log(log)
    f = _only(r)
    assert _where(f) == ("unsure", "unsure_no_reason", 1, "time", _line(log, "O(log n) → n"))
    assert r.points == MAX_POINTS and _lost(r) == {}
    assert "not sure about 'Time complexity'" in f.message_en
    assert "'시간복잡도' 칸을 채점기가 확실히 읽지 못했습니다(칸에 Big-O 말고도 글이 있는데" in f.message_ko
    assert "words besides the Big-O" in f.message_en
    bare = review_log(_edit(LOGS[lang], old, old.split(" — ")[0]))  # the Big-O alone: surely no reason
    assert [_where(f)[:4] for f in bare.findings] == [("error", "no_reason", 1, "time")]
    assert _lost(bare) == {"problem 1: fields present and well formed": FIELD_POINTS}


@pytest.mark.parametrize(
    ("lang", "old", "said"),
    [("en", "**Time complexity:** O(log n) — n halves every step",
      "The running time is logarithmic because n halves every step."),
     ("ko", "- 시간복잡도: O(log n) — n이 매번 절반이 됨",
      "시간이 log n인 이유는 n이 매번 절반이 되기 때문이다.")],
    ids=["en", "ko"],
)
def test_a_reason_written_below_the_fields_is_unsure_not_missing(lang: str, old: str, said: str) -> None:
    """The Big-O alone on its line, its reason in a sentence the student added under the problem: the
    reader cannot tie the two, so a TA reads it and the point stays. The finding is on the claim's line."""
    heading = "## Problem 2" if lang == "en" else "## 문제 2"
    log = _edit(_edit(LOGS[lang], old, old.split(" — ")[0]), heading, f"{said}\n\n{heading}")
    r = review_log(log)
    f = _only(r)
    assert _where(f) == ("unsure", "unsure_no_reason", 1, "time", _line(log, old.split(" — ")[0]))
    assert r.points == MAX_POINTS and _lost(r) == {}
    assert "a reason may be given elsewhere in the problem's text" in f.message_en
    assert "이유가 문제의 다른 곳에 쓰여 있을 수 있습니다" in f.message_ko
    assert "'시간복잡도' 칸을 채점기가 확실히 읽지 못했습니다" in f.message_ko


# -- the claim is held to the practice function as it runs: its last definition ----------------------------

LOOP_POW = '''def my_pow(x: float, n: int) -> float:
    result = 1.0
    for _ in range(abs(n)):
        result *= x
    return result if n >= 0 else 1 / result
'''
FAST_POW = '''def my_pow(x: float, n: int) -> float:
    if n < 0:
        x, n = 1 / x, -n
    result = 1.0
    while n:
        if n & 1:
            result *= x
        x *= x
        n //= 2
    return result
'''
STUB_POW = '''def my_pow(x: float, n: int) -> float:
    raise NotImplementedError
'''


@pytest.mark.parametrize("key", ["leetcode", "notebook"])
@pytest.mark.parametrize("first", [STUB_POW, LOOP_POW], ids=["stub-first", "loop-first"])
def test_a_claim_is_held_to_the_last_definition_not_an_earlier_one(key: str, first: str) -> None:
    """A stub left above the real function, or a first try in an earlier notebook cell: Python runs the
    last definition, so the O(log n) claim is held to the fast power below it, measured, and met."""
    code = first + "\n\n" + FAST_POW
    assert function_source({key: code}, "my_pow") == FAST_POW.rstrip("\n")
    r = review_log(ENGLISH, sources={key: code}, measure=measure_in({key: code}))
    assert (r.points, r.findings) == (MAX_POINTS, []) and r.problems[0].held_by["time"] == "measured"


def test_a_fast_first_try_replaced_by_a_loop_is_held_to_the_loop() -> None:
    """The reverse: fast power first, a loop n times last. The claim O(log n) is held to the loop that
    runs, costs the time claim's 0.25, and the message shows the loop's counts (the last definition's)."""
    code = FAST_POW + "\n\n" + LOOP_POW
    r = review_log(ENGLISH, sources={"leetcode": code}, measure=measure_in({"leetcode": code}))
    f = _only(r)
    assert _where(f) == ("warning", "complexity_inconsistent", 1, "time", _line(ENGLISH, "O(log n) —"))
    assert _lost(r) == {"problem 1: time complexity parses and matches a known approach": 0.25}
    assert "n = 1,000 → 1,001 steps; n = 2,000 → 2,001 steps" in f.message_en and "O(n)" in f.message_en
    assert "n = 1,000 → 1,001단계" in f.message_ko
    claim = _line(ENGLISH, "O(log n) —")
    assert f'meet the time complexity "O(log n)" (line {claim})' in f.message_en
    assert f'{claim}행의 "O(log n)"은' in f.message_ko



# The lesson's own label '접근' ('Approach') holds both approaches: inline, below it, or two labelled lines.
_KO_PAIR = ("- 처음 아이디어: x를 n번 곱하기\n"
            "- 최종 접근: 분할 거듭제곱, 반복문으로 x를 제곱하고 n을 절반씩 줄임\n")
_EN_PAIR = ("**First idea:** multiply x by itself n times.\n"
            "**Final approach:** fast exponentiation, iterative: square x and halve n each step.\n")
_PAIRS = {
    "ko-inline": ("ko", _KO_PAIR, "- 접근: 처음: x를 n번 곱하기 / 최종: 분할 거듭제곱으로 n을 절반씩 줄임\n"),
    "ko-below": ("ko", _KO_PAIR, "- 접근:\n  처음에는 x를 n번 곱했다 -> 최종적으로 분할 거듭제곱\n"),
    "ko-two-lines": ("ko", _KO_PAIR, "- 접근: 처음: x를 n번 곱하기\n  최종: 분할 거듭제곱\n"),
    "en-two-lines": ("en", _EN_PAIR, "**Approach:** first: multiply x by itself n times.\n"
                                     "  final: fast exponentiation, halving n.\n"),
    # the colon inside the bold, as the English template writes every label
    "en-arrow": ("en", _EN_PAIR, "**Approach:** multiply x by itself n times -> fast exponentiation.\n"),
}


@pytest.mark.parametrize("layout", sorted(_PAIRS))
def test_the_lessons_approach_label_holding_both_approaches_is_complete(layout: str) -> None:
    lang, old, new = _PAIRS[layout]
    log = _edit(LOGS[lang], old, new)
    entry = parse_log(log).problems[0]
    first, final = entry.get("first_idea"), entry.get("final_approach")
    assert first is not None and final is not None, entry.fields
    assert "n번" in first.value or "n times" in first.value
    assert "분할 거듭제곱" in final.value or "fast exponentiation" in final.value
    assert not entry.duplicates
    review = review_log(log)
    assert review.points == MAX_POINTS and not review.findings, review.findings


def test_a_first_idea_given_again_inside_the_approach_label_is_a_duplicate_and_the_final_is_read() -> None:
    twice = "- 처음 아이디어: x를 n번 곱하기\n- 접근: 처음: x를 n번 곱하기 / 최종: 분할 거듭제곱\n"
    log = _edit(KOREAN, _KO_PAIR, twice)
    final = parse_log(log).problems[0].get("final_approach")
    assert final is not None and final.value == "분할 거듭제곱"
    review = review_log(log)
    assert review.points == MAX_POINTS
    assert [(f.code, f.severity, f.field) for f in review.findings] == [
        ("duplicate_field", "warning", "first_idea")]


@pytest.mark.parametrize("answer", ["alone (looked at a hint only for negative n)",
                                    "혼자 (음수 처리만 힌트 봄)"])
def test_solved_alone_with_a_hint_for_one_part_is_a_tas_call(answer: str) -> None:
    """Both answers in one: never a sure 'write one of'; the point stays and the part goes to a TA, under
    the solved check (the one its error would have failed)."""
    from lesson_embedding_pe.logta import _group_of

    r = review_log(ENGLISH.replace("**Solved:** alone", f"**Solved:** {answer}", 1))
    f = _only(r)
    assert (f.severity, f.problem, f.field, f.code) == ("unsure", 1, "solved", "unsure_bad_solved")
    assert r.points == MAX_POINTS and _group_of(f.code, "solved") == "solved"


@pytest.mark.parametrize(("answer", "en", "ko"), [
    ("없음 (한 번에 AC)", "the 'What went wrong' field only says '없음 (한 번에 AC)'",
     "'틀린 이유' 칸이 '없음 (한 번에 AC)'뿐입니다"),
    ("N/A", "the 'What went wrong' field only says 'N/A'", "'틀린 이유' 칸이 'N/A'뿐입니다"),
    ("", "the 'What went wrong' field is empty", "'틀린 이유' 칸이 비어 있습니다")])
def test_a_field_that_says_none_is_told_what_it_says_not_that_it_is_empty(answer: str, en: str,
                                                                           ko: str) -> None:
    """'None' in words is no answer (0.25 taken, the hint says what to write even after a first-try AC),
    and the message quotes it rather than calling a field the student wrote in empty."""
    r = review_log(ENGLISH.replace("**What went wrong:** forgot that n can be negative.",
                                   f"**What went wrong:** {answer}", 1))
    f = _only(r)
    assert (f.severity, f.problem, f.field, f.code) == ("error", 1, "what_went_wrong", "missing_field")
    assert en in f.message_en and "where it could have gone wrong" in f.message_en
    assert ko in f.message_ko and r.points == MAX_POINTS - FIELD_POINTS


@pytest.mark.parametrize("claim,said", [("O(bits of n)", "'bits of n'"),
                                        ("O(number of bits)", "'number of bits'"),
                                        ("O(b)", "uses b,"), ("O(k log n)", "uses k,")])
def test_an_undefined_size_is_said_as_the_student_wrote_it(claim: str, said: str) -> None:
    """A variable the log never defines goes to a TA; a phrase in the Big-O ('O(bits of n)') is quoted whole,
    not listed as the letters the grammar read in it ('bits, f, o')."""
    review = review_log(ENGLISH.replace("O(log n)", claim, 1))
    found = [f for f in review.findings if f.problem == 1 and f.field == "time"]
    assert [(f.severity, f.code) for f in found] == [("unsure", "unsure_undefined_variable")]
    assert said in found[0].message_en and said.removeprefix("uses ").rstrip(",") in found[0].message_ko
    assert review.points == MAX_POINTS
