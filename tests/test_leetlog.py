"""Tests for lesson_embedding_pe.leetlog: Big-O parser, catalog, log parser and review."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lesson_embedding_pe.leetlog import bigo, catalog, parse_log, render_template, review_file, review_log
from lesson_embedding_pe.leetlog.bigo import Complexity, Growth, ParseError, Term, compare, parse
from lesson_embedding_pe.leetlog.review import MAX_POINTS
from lesson_embedding_pe.leetlog.values import classify_solved, parse_difficulty

ROOT = Path(__file__).resolve().parents[1]

ENGLISH = """\
# My LeetCode log

## Problem 1

**Problem:** 50. Pow(x, n)
**Difficulty:** Medium
**First idea:** multiply x by itself n times (brute force).
**Final approach:** fast exponentiation: square x and halve n each step; for n < 0 use 1/x.
**Time complexity:** O(log n) — n halves every iteration
**Space complexity:** O(1) — a few variables, iterative
**What went wrong:** forgot negative n at first; -n overflows for n = -2^31 in Java.
**Solved:** alone

## Problem 2

**Problem:** 204. Count Primes
**Difficulty:** Medium
**First idea:** trial division for every number below n.
**Final approach:** Sieve of Eratosthenes, crossing out from i*i.
**Time complexity:** O(n log log n) — sum of n/p over the primes p
**Space complexity:** O(n) — one flag per number
**What went wrong:** n = 0 and n = 1 crashed the indexing; I also counted n itself.
**Solved:** after reading a solution (editorial)
**Redo date:** 2025-01-15
"""

KOREAN = """\
# LeetCode 기록

### 첫 번째 문제
- 문제: LeetCode 12번 Integer to Roman
- 난이도：Medium
- 처음 아이디어: 자리마다 if문으로 경우를 나눔
- 최종 접근:
  값이 큰 기호부터 탐욕적으로 빼기.
  (4, 9, 40, ... 같은 빼기 조합도 표에 넣음)
- 시간복잡도: O(1) — num이 3999 이하라 반복 횟수가 상수
- 공간복잡도: O(1) — 고정된 기호 표만 사용
- 틀린 이유: 한 번에 맞혔지만 4, 9 같은 빼기 조합을 빠뜨릴 수 있었음
- 풀이 방식: 혼자

### 두 번째 문제
- 문제: 172. Factorial Trailing Zeroes
- 난이도: 미디엄
- 처음 아이디어: n!을 직접 계산해서 0을 셈 (너무 큼)
- 최종 접근: 5의 인수 개수를 n/5 + n/25 + ... 로 셈
- 시간복잡도: O(log n) — n을 5로 계속 나눔
- 공간복잡도: O(1) — 변수 하나
- 틀린 이유: 25, 125처럼 5를 여러 번 가진 수를 처음엔 한 번만 셈
- 풀이 방식: 풀이를 보고 풂
- 다시 풀 날짜: 2025-02-01
"""


def codes(review, severity: str | None = None) -> list[str]:
    return [f.code for f in review.findings if severity is None or f.severity == severity]


def replace_line(text: str, start: str, new: str | None) -> str:
    """Replace (or drop, with None) the first line starting with ``start``."""
    out, done = [], False
    for line in text.splitlines():
        if not done and line.startswith(start):
            done = True
            if new is not None:
                out.append(new)
            continue
        out.append(line)
    assert done, start
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- Big-O


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("O(1)", "O(1)"),
        ("O(n)", "O(n)"),
        ("O(log n)", "O(log n)"),
        ("O(n log n)", "O(n log n)"),
        ("O(nlogn)", "O(n log n)"),
        ("O(n log log n)", "O(n log log n)"),
        ("O(√n)", "O(n^(1/2))"),
        ("O(sqrt(n))", "O(n^(1/2))"),
        ("O(n^2)", "O(n^2)"),
        ("O(n²)", "O(n^2)"),
        ("O(n**2 + n)", "O(n^2)"),
        ("O(n * log(n))", "O(n log n)"),
        ("O(log(n))", "O(log n)"),
        ("O(k)", "O(k)"),
        ("O(d)", "O(d)"),
        ("O(log_2 n)", "O(log n)"),
        ("O(log₂ n)", "O(log n)"),
        ("O(N)", "O(n)"),
        ("Θ(n)", "Θ(n)"),
        ("θ(log n)", "Θ(log n)"),
        ("O（n log n）", "O(n log n)"),
        ("O(log^2 n)", "O(log^2 n)"),
        ("O(2^n)", "O(2^n)"),
        ("O(m*n)", "O(m n)"),
        ("O(max(m, n))", "O(m + n)"),
        ("O(3999)", "O(1)"),
        ("O(n/2)", "O(n)"),
        ("O(n√n)", "O(n^(3/2))"),
    ],
)
def test_bigo_parses(text: str, expected: str) -> None:
    assert parse(text).render() == expected


@pytest.mark.parametrize(
    ("text", "position"),
    [("O(n log", 7), ("O()", 2), ("n^2", 0), ("O(n))", 4), ("O(log)", 5), ("O n", 2), ("O(n $)", 4)],
)
def test_bigo_malformed_has_position(text: str, position: int) -> None:
    with pytest.raises(ParseError) as err:
        parse(text)
    assert err.value.position == position
    assert "^" in err.value.pointer()


ORDER = ["O(1)", "O(log n)", "O(√n)", "O(n)", "O(n log log n)", "O(n log n)", "O(n²)", "O(2^n)", "O(n!)"]


@pytest.mark.parametrize("i", range(len(ORDER)))
@pytest.mark.parametrize("j", range(len(ORDER)))
def test_bigo_ordering(i: int, j: int) -> None:
    expected = (i > j) - (i < j)
    assert compare(parse(ORDER[i]), parse(ORDER[j])) == expected


def test_bigo_equivalent_spellings_compare_equal() -> None:
    assert compare(parse("O(log(n))"), parse("O(lg N)")) == 0
    assert compare(parse("O(sqrt(n))"), parse("O(n^0.5)")) == 0
    assert parse("Θ(n)") == parse("O(n)")


def test_bigo_different_variables_are_incomparable() -> None:
    assert compare(parse("O(n)"), parse("O(k)")) is None
    assert compare(parse("O(1)"), parse("O(k)")) == -1
    assert compare(parse("O(n + m)"), parse("O(n)")) == 1


def test_find_bigo_in_prose() -> None:
    text = "시간은 O(log n) — n이 절반씩"
    m = bigo.find_bigo(text)
    assert m is not None and m.source == "O(log n)" and text[m.start : m.end] == "O(log n)"
    assert bigo.find_bigo("no big-o here, n^2") is None


_exponents = st.fractions(min_value=-3, max_value=3, max_denominator=4)


@st.composite
def terms(draw: st.DrawFn) -> Complexity:
    factors = {}
    for var in draw(st.lists(st.sampled_from("nmk"), unique=True, max_size=2)):
        factors[var] = Growth(poly=draw(_exponents), log=draw(_exponents), loglog=draw(_exponents))
    return Complexity((Term.of(factors),))


@settings(max_examples=200, deadline=None)
@given(terms())
def test_render_then_parse_round_trips(c: Complexity) -> None:
    assert parse(c.render()) == c


@settings(max_examples=100, deadline=None)
@given(_exponents.filter(lambda p: p > 0), _exponents.filter(lambda p: p > 0))
def test_polynomial_order_matches_exponent_order(p: Fraction, q: Fraction) -> None:
    a = Complexity((Term.of({"n": Growth(poly=p)}),))
    b = Complexity((Term.of({"n": Growth(poly=q)}),))
    assert compare(a, b) == (p > q) - (p < q)


# --------------------------------------------------------------------------- catalog


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("50. Pow(x, n)", 50),
        ("Pow(x,n)", 50),
        ("LeetCode 204", 204),
        ("#202 Happy Number", 202),
        ("오늘은 leetcode 12번 integer to roman 을 풀었다", 12),
        ("Super Pow", 372),
        ("Roman to Integer", 13),
        ("count primes (소수 세기)", 204),
    ],
)
def test_catalog_lookup(text: str, number: int) -> None:
    match = catalog.find_problem(text)
    assert match.problem is not None and match.problem.number == number


def test_catalog_facts() -> None:
    assert catalog.get(202).difficulty == "Easy"
    assert catalog.get(50).best("time")[1].time == "O(log n)"
    assert {str(s) for a in catalog.get(50).described for s in a.space_bigo} == {"O(1)", "O(log n)"}
    # repeated multiplication is known by measured code alone (code/claims.py): O(n) space when it recurses
    assert {str(s) for a in catalog.get(50).approaches for s in a.space_bigo} == {"O(1)", "O(log n)", "O(n)"}
    assert catalog.get(204).approaches[0].time == "O(n log log n)"
    assert catalog.get(12).best("time")[1].time == "O(1)"
    assert not catalog.get(8).is_math
    mediums = [p for p in catalog.CATALOG if p.difficulty == "Medium" and p.is_math]
    assert len(mediums) >= 16
    assert len({p.number for p in catalog.CATALOG}) == len(catalog.CATALOG)


def test_catalog_number_title_conflict() -> None:
    match = catalog.find_problem("204. Happy Number")
    assert match.problem.number == 202 and match.conflict


# --------------------------------------------------------------------------- parser


def test_parser_line_numbers_english() -> None:
    log = parse_log(ENGLISH)
    assert [p.index for p in log.problems] == [1, 2]
    p1, p2 = log.problems
    assert p1.heading_line == 3 and p2.heading_line == 14
    assert p1.fields["problem"].line == 5
    assert p1.fields["time"].line == 9 and p1.fields["time"].value.startswith("O(log n)")
    assert p2.fields["redo_date"].line == 24


def test_parser_korean_multiline_value() -> None:
    log = parse_log(KOREAN)
    p1 = log.problems[0]
    assert p1.index == 1 and p1.heading_line == 3
    approach = p1.fields["final_approach"]
    assert approach.line == 7 and "탐욕적으로" in approach.value and "빼기 조합" in approach.value
    assert p1.fields["time"].line == 10
    assert log.problems[1].index == 2


def test_parser_tables_and_next_line_values() -> None:
    text = ("## Problem 1\n\n| 항목 | 내용 |\n|---|---|\n| 난이도 | Medium |\n\n"
            "### Time complexity\nO(n)\nbecause\n")
    p = parse_log(text).problems[0]
    assert p.fields["difficulty"].value == "Medium" and p.fields["difficulty"].line == 5
    assert p.fields["time"].line == 7 and p.fields["time"].value == "O(n)\nbecause"


def test_template_file_matches_and_is_unfilled() -> None:
    shipped = (ROOT / "exercises" / "LEETCODE_LOG.md").read_text(encoding="utf-8")
    assert shipped == render_template()
    log = parse_log(shipped)
    assert len(log.problems) == 2
    assert all(len(p.fields) == 9 for p in log.problems)
    assert log.filled_fields == 0


# --------------------------------------------------------------------------- review


def test_complete_english_log_full_points() -> None:
    r = review_log(ENGLISH)
    assert r.points == MAX_POINTS == r.max_points == 6.0
    assert codes(r, "error") == [] and codes(r, "warning") == []
    assert sum(b.points for b in r.breakdown) == r.points
    assert json.loads(json.dumps(r.to_dict()))["points"] == 6.0


def test_complete_korean_log_full_points() -> None:
    r = review_log(KOREAN)
    assert r.points == 6.0, r.findings
    assert codes(r, "error") == [] and codes(r, "warning") == []
    assert [p.number for p in r.problems] == [12, 172]


MISSING = [
    ("**Problem:**", "problem"),
    ("**Difficulty:**", "difficulty"),
    ("**First idea:**", "first_idea"),
    ("**Final approach:**", "final_approach"),
    ("**Time complexity:**", "time"),
    ("**Space complexity:**", "space"),
    ("**What went wrong:**", "what_went_wrong"),
    ("**Solved:**", "solved"),
]


@pytest.mark.parametrize(("prefix", "name"), MISSING)
def test_each_missing_field_is_an_error(prefix: str, name: str) -> None:
    r = review_log(replace_line(ENGLISH, prefix, None))
    errors = [f for f in r.findings if f.severity == "error"]
    assert [(f.code, f.problem, f.field) for f in errors] == [("missing_field", 1, name)]
    assert r.points < 6.0
    assert errors[0].message_ko and errors[0].message_en


@pytest.mark.parametrize(("prefix", "name"), MISSING)
def test_placeholder_left_counts_as_missing(prefix: str, name: str) -> None:
    r = review_log(replace_line(ENGLISH, prefix, f"{prefix} <TODO>"))
    assert ("missing_field", name) in [(f.code, f.field) for f in r.findings]
    assert "placeholder" in next(f.message_en for f in r.findings if f.code == "missing_field")


def test_redo_date_required_after_reading_solution() -> None:
    r = review_log(replace_line(ENGLISH, "**Redo date:**", None))
    assert [(f.code, f.problem, f.line) for f in r.findings if f.severity == "error"] == [
        ("redo_date_missing", 2, 14)
    ]
    assert r.points == 5.75


def test_redo_date_on_the_solved_line_counts() -> None:
    text = replace_line(ENGLISH, "**Redo date:**", None)
    text = text.replace("after reading a solution", "after reading a solution, redo on 2026-12-01", 1)
    r = review_log(text)
    assert not [f for f in r.findings if f.severity == "error"]
    assert r.points == 6.0


def test_untouched_template_scores_zero() -> None:
    r = review_log(render_template())
    assert r.points == 0.0 and codes(r) == ["template_untouched"]


@pytest.mark.parametrize("text", ["", "   \n\n"])
def test_empty_log_scores_zero(text: str) -> None:
    r = review_log(text)
    assert r.points == 0.0 and codes(r) == ["empty_log"]


def test_missing_file_scores_zero(tmp_path: Path) -> None:
    r = review_file(tmp_path / "LEETCODE_LOG.md")
    assert r.points == 0.0 and codes(r) == ["missing_file"]


@pytest.mark.parametrize(
    ("value", "code", "points"),
    [
        ("O(n log — halving", "bad_bigo", 5.5),
        ("O() — constant", "bad_bigo", 5.5),
        ("n^2 — two nested loops", "unsure_no_bigo", 6.0),
        ("O(log n)", "no_reason", 5.75),
    ],
)
def test_malformed_time_complexity(value: str, code: str, points: float) -> None:
    r = review_log(replace_line(ENGLISH, "**Time complexity:** O(log n)", f"**Time complexity:** {value}"))
    found = [f for f in r.findings if f.code == code]
    assert found and found[0].line == 9 and found[0].field == "time" and found[0].problem == 1
    assert r.points == points


def test_bad_bigo_message_names_position() -> None:
    r = review_log(replace_line(ENGLISH, "**Time complexity:** O(log n)", "**Time complexity:** O() — why"))
    f = next(f for f in r.findings if f.code == "bad_bigo")
    assert "character 3" in f.message_en and "3번째" in f.message_ko
    # what is wrong, in the reader's language: the grammar's error is a message of vocab.toml, not English
    # inside a Korean sentence
    assert "empty expression" in f.message_en and "괄호 안이 비어 있음" in f.message_ko
    assert "empty" not in f.message_ko and "expression" not in f.message_ko


def test_every_big_o_error_is_said_in_both_languages() -> None:
    from lesson_embedding_pe.leetlog.bigo import ParseError, parse

    for written in ("O(n", "n^2", "O()", "O(log)", "O(n^n)", "O($)", "O(n) x", "O(n/0)", "O(2^n^n)", "O(n #)",
                    "O(n!!)", "O(", "", "O(log log log n)", "O(log(0))", "O(n^)"):
        with pytest.raises(ParseError) as err:
            parse(written)
        said = err.value.said
        assert said.en == err.value.message and said.ko and said.ko != said.en, written
        assert not re.search(r"\b(?:expected|unexpected|missing|supported)\b", said.ko), (written, said.ko)


def test_easy_problem_warns_and_costs_half_point() -> None:
    text = ENGLISH.replace("204. Count Primes", "202. Happy Number").replace(
        "O(n log log n) — sum of n/p over the primes p", "O(log n) — the digit-square sum shrinks fast"
    ).replace("O(n) — one flag per number", "O(1) — Floyd's two pointers")
    r = review_log(text)
    warnings = [f for f in r.findings if f.severity == "warning"]
    assert {f.code for f in warnings} == {"difficulty_mismatch", "not_medium"}
    not_medium = next(f for f in warnings if f.code == "not_medium")
    assert not_medium.problem == 2
    assert "Happy Number" in not_medium.message_en and "Easy" in not_medium.message_en
    # the reason is the practice rule's own: the warm-up, whose code never counts; Medium only in the log
    assert "warm-up, whose code never counts" in not_medium.message_en and "lesson lists it" not in (
        not_medium.message_en)
    assert "몸풀기 문제라 코드는 점수에 들어가지 않고" in not_medium.message_ko
    from lesson_embedding_pe.practice import RULE

    assert "warm up" in RULE[0] and "its code never counts" in RULE[0] and "몸풀기" in RULE[1]
    assert r.points == 5.5


@pytest.mark.parametrize(
    ("value", "code", "expect"),
    [
        # the log names its approach (fast exponentiation, iterative): the claim is held to that one's bound
        ("O(n) — one multiplication per unit of n", "complexity_worse", "whose time complexity is O(log n)"),
        ("O(1) — a constant number of steps", "complexity_inconsistent", "whose time complexity is O(log n)"),
    ],
)
def test_pow_complexity_against_catalog(value: str, code: str, expect: str) -> None:
    r = review_log(replace_line(ENGLISH, "**Time complexity:** O(log n)", f"**Time complexity:** {value}"))
    f = next(f for f in r.findings if f.code == code)
    assert f.severity == "warning" and f.line == 9 and f.field == "time"
    assert expect in f.message_en and "50. Pow(x, n)" in f.message_en
    assert r.points == 5.75


def test_recursive_pow_space_is_accepted() -> None:
    text = replace_line(ENGLISH, "**Space complexity:**", "**Space complexity:** O(log n) — recursion depth")
    assert review_log(text).points == 6.0


def test_duplicate_problem_warns() -> None:
    text = ENGLISH.replace("204. Count Primes", "Pow(x, n)").replace(
        "O(n log log n) — sum of n/p over the primes p", "O(log n) — halving"
    ).replace("O(n) — one flag per number", "O(log n) — recursion depth")
    r = review_log(text)
    assert "duplicate_problem" in codes(r, "warning")
    assert r.points == 5.5


def test_not_math_problem_warns() -> None:
    text = ENGLISH.replace("204. Count Primes", "8. String to Integer (atoi)").replace(
        "O(n log log n) — sum of n/p over the primes p", "O(n) — one pass over the string"
    ).replace("O(n) — one flag per number", "O(1) — a few variables")
    r = review_log(text)
    assert codes(r, "warning") == ["not_math"]
    assert r.points == 5.5


def test_unknown_problem_is_info_only() -> None:
    r = review_log(ENGLISH.replace("204. Count Primes", "9999. Some Future Problem"))
    assert codes(r, "error") == [] and "unknown_problem" in codes(r, "info")
    assert r.points == 6.0


def test_linked_practice_failures() -> None:
    practice = {"my_pow": "my_pow(2.0, -2147483648) raised OverflowError", "is_happy": "is_happy(1) is False"}
    r = review_log(ENGLISH, practice)
    assert len(r.linked_failures) == 1
    link = r.linked_failures[0]
    assert (link.problem, link.function, link.line) == (1, "my_pow", 11)
    assert "negative n" in link.went_wrong and "OverflowError" in link.failure
    assert r.points == 6.0  # practice failures are reported next to the log, not scored here
    assert r.to_dict()["linked_failures"][0]["function"] == "my_pow"


def test_missing_second_problem() -> None:
    first_only = ENGLISH.split("## Problem 2")[0]
    r = review_log(first_only)
    assert codes(r, "error") == ["missing_problem"] and r.points == 3.0


def test_logs_without_headings_split_on_problem_label() -> None:
    text = ENGLISH.replace("## Problem 1\n", "").replace("## Problem 2\n", "")
    r = review_log(text)
    assert r.points == 6.0 and len(r.problems) == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("alone", "alone"),
        ("혼자", "alone"),
        ("without looking at the solution", "alone"),
        ("풀이를 보고", "solution"),
        ("after reading a solution", "solution"),
        ("혼자 못 풀고 해설 참고", "solution"),
        ("혼자 / 풀이를 보고", None),
        ("yes", None),
    ],
)
def test_classify_solved(text: str, expected: str | None) -> None:
    assert classify_solved(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("Medium", "Medium"), ("미디엄", "Medium"), ("easy", "Easy"), ("Easy / Medium", None)],
)
def test_parse_difficulty(text: str, expected: str | None) -> None:
    assert parse_difficulty(text) == expected


def test_mixed_style_log_is_read() -> None:
    text = """\
## 문제 1: 50. Pow(x, n)
난이도 (Difficulty): Medium
**처음 아이디어** — 그냥 n번 곱하기
접근 방법：분할 정복으로 x^(n/2)를 재사용
**Time**: O(log N)
because n halves
공간: O(log n) 재귀 깊이
틀린 점: n이 음수일 때
혼자 풀었나요? 혼자
"""
    entry = parse_log(text).problems[0]
    assert entry.heading == "50. Pow(x, n)"
    assert entry.fields["time"].line == 5 and entry.fields["solved"].value == "혼자"
    r = review_log(text)
    assert [f.code for f in r.findings if f.problem == 1] == []
    assert r.points == 3.0


# --------------------------------------------------------------------------- free-form layouts

HEADINGS_LOG = """\
# LeetCode

### Problem: 12. Integer to Roman (Medium, Math)

I first thought of a chain of if/else per decimal digit.
Then I went greedy over a value table that includes the subtractive pairs (900, 400, 90, 40, 9, 4).

Time: O(1) — num is at most 3999, so the loop runs a bounded number of times.
Space: O(1) — the symbol table has 13 entries.

Mistakes: forgot 4 and 9 at first (IIII instead of IV).
Solved alone.

### Problem: 204. Count Primes (Medium, Math)

First idea: trial division of every k < n up to sqrt(k).
Final approach: sieve of Eratosthenes from p*p, step p.
Time: O(n log log n) — each composite is crossed out once per prime factor.
Space: O(n) — one flag per number below n.
Mistakes: counted n itself; n = 0, 1 must return 0.
Solved after reading the editorial; redo on 2026-10-05
"""

TABLE_LOG = """\
# LeetCode log

| Problem | Difficulty | First idea | Final approach | Time | Space | What went wrong | Solved |
|---|---|---|---|---|---|---|---|
| 50. Pow(x, n) | Medium | multiply x n times | fast exponentiation: square x, halve n; 1/x for n < 0 | O(log n) — n halves each step | O(1) — iterative, a few variables | negative n forgotten at first | alone |
| 204. Count Primes | Medium | trial division | sieve of Eratosthenes from p*p | O(n log log n) — sum of n/p over primes | O(n) — one flag per number | counted n itself | after reading a solution, redo 2026-10-05 |
"""  # noqa: E501


def test_heading_style_log_with_inline_difficulty_gets_full_points() -> None:
    log = parse_log(HEADINGS_LOG)
    first = log.problems[0]
    assert first.heading == "12. Integer to Roman (Medium, Math)"
    assert first.fields["difficulty"].value == "Medium" and first.fields["difficulty"].line == 3
    assert first.fields["first_idea"].line == 5 and first.fields["final_approach"].line == 6
    assert first.fields["time"].line == 8 and first.fields["solved"].value == "Solved alone."
    r = review_log(HEADINGS_LOG)
    assert r.points == 6.0, r.findings
    assert [p.number for p in r.problems] == [12, 204]


def test_table_with_one_row_per_problem_gets_full_points() -> None:
    log = parse_log(TABLE_LOG)
    assert len(log.problems) == 2
    assert (log.problems[1].fields["time"].line == 6
            and log.problems[1].fields["problem"].value == "204. Count Primes")
    r = review_log(TABLE_LOG)
    assert r.points == 6.0, r.findings
    assert codes(r, "error") == [] and codes(r, "warning") == []


@pytest.mark.parametrize("old,new,name", [
    ("| O(1) — iterative, a few variables |", "|  |", "space"),         # an empty cell
    ("| Medium | multiply", "| <Easy/Medium/Hard> | multiply", "difficulty"),  # a placeholder left
])
def test_table_cell_really_missing_loses_points(old: str, new: str, name: str) -> None:
    text = TABLE_LOG.replace(old, new, 1)
    assert text != TABLE_LOG
    r = review_log(text)
    missing = [f for f in r.findings if f.code == "missing_field"]
    assert [(f.problem, f.field, f.line) for f in missing] == [(1, name, 5)]
    assert r.points < 6.0


@pytest.mark.parametrize("drop,name", [
    ("Space: O(1) — the symbol table has 13 entries.\n", "space"),
    ("Then I went greedy over a value table that includes the subtractive pairs (900, 400, 90, 40, 9, 4).\n",
     "final_approach"),
    (" (Medium, Math)", "difficulty"),
    ("Solved alone.\n", "solved"),
])
def test_heading_style_field_really_missing_loses_points(drop: str, name: str) -> None:
    text = HEADINGS_LOG.replace(drop, "", 1)
    assert text != HEADINGS_LOG
    r = review_log(text)
    assert [(f.problem, f.field) for f in r.findings if f.code == "missing_field"] == [(1, name)]
    assert r.points < 6.0


@pytest.mark.parametrize("log", [HEADINGS_LOG, TABLE_LOG], ids=["headings", "table"])
def test_free_form_logs_get_full_log_marks_from_the_grader(tmp_path: Path, log: str) -> None:
    from tests.conftest import grade, task_scores

    for f in (ROOT / "solutions").glob("*.py"):
        (tmp_path / f.name).write_text(f.read_text())
    (tmp_path / "LEETCODE_LOG.md").write_text(log)
    results = grade(tmp_path, keyword="leetcode_log")
    got, top = task_scores(results)["leetcode_log"]
    assert got == top > 0


# --------------------------------------------------------------------------- LaTeX, as Jupyter users type it

LATEX_FORMS = [
    (r"$O(n \log \log n)$", "O(n log log n)"),
    (r"$\mathcal{O}(1)$", "O(1)"),
    (r"\Theta(n)", "Θ(n)"),
    (r"O(\sqrt{n})", "O(√n)"),
    (r"O(n^{2})", "O(n^2)"),
    (r"O(n \cdot m)", "O(n*m)"),
    (r"O(n \times m)", "O(n*m)"),
    (r"O(\lg n)", "O(log n)"),
    (r"$$O(n \log n)$$", "O(n log n)"),
    (r"O\left( n \log n \right)", "O(n log n)"),
    (r"O(n\,\log\,n)", "O(n log n)"),
    (r"O(n \* m)", "O(n*m)"),
    (r"\(O(\log n)\)", "O(log n)"),
    (r"\[ \mathcal{O}(n^2) \]", "O(n^2)"),
    (r"O\(n \log n\)", "O(n log n)"),
    (r"\mathcal O(n)", "O(n)"),
    (r"\operatorname{O}(n)", "O(n)"),
    (r"O\!\left(n\right)", "O(n)"),
    (r"\mathcal{O}\left(\frac{n}{\log n}\right)", "O(n / log n)"),
    (r"O(\sqrt[3]{n})", "O(n^(1/3))"),
    (r"O(\log_{2} n)", "O(log n)"),
    (r"O(\log_2{n})", "O(log n)"),
    (r"O(\log^{2} n)", "O(log^2 n)"),
    (r"O(2^{n})", "O(2^n)"),
    (r"O(n^\frac{1}{2})", "O(n^0.5)"),
    (r"\Theta\big(n\big)", "O(n)"),
    (r"O(\max(m, n))", "O(m + n)"),
    (r"O(\lceil \log n \rceil)", "O(log n)"),
    (r"O(\log |n|)", "O(log n)"),
    (r"O(\lvert n \rvert)", "O(n)"),
    (r"O(n\!)", "O(n!)"),
    ("O(n<sup>2</sup>)", "O(n^2)"),
    ("O(n&middot;m)", "O(n*m)"),
    ("O(n&sup2;)", "O(n^2)"),
    ("O(*n* log *n*)", "O(n log n)"),
    ("O(n로그n)", "O(n log n)"),
    ("O(루트 n)", "O(√n)"),
]


@pytest.mark.parametrize(("written", "plain"), LATEX_FORMS)
def test_latex_bigo_reads_as_the_plain_bigo(written: str, plain: str) -> None:
    assert parse(written) == parse(plain)
    found = bigo.find_all_bigo(f"시간 복잡도는 {written}이다, 매번 절반")
    assert len(found) == 1 and parse(found[0].written) == parse(plain)
    assert found[0].written in written or written.strip("$\\()[] ") in found[0].written


def test_latex_parse_error_points_at_what_was_written() -> None:
    text = r"$\mathcal{O}(n \log)$"
    with pytest.raises(ParseError) as err:
        parse(text)
    assert err.value.position == text.index(")") and err.value.text == text
    assert "argument after 'log'" in err.value.message


def test_plain_text_is_left_as_it_is() -> None:
    from lesson_embedding_pe.leetlog.mathtext import to_plain

    values = [f.value for log in (ENGLISH, KOREAN, HEADINGS_LOG, TABLE_LOG)
              for p in parse_log(log).problems for f in p.fields.values()]
    for text in ("O(n log n) — n halves", "O(n $)", "costs $5, O(n)", *values):
        assert to_plain(text).text == text


def test_find_bigo_quotes_the_latex_as_written() -> None:
    text = r"공간은 $\mathcal{O}(1)$인데 변수 몇 개"
    m = bigo.find_bigo(text)
    assert m is not None and m.written == r"\mathcal{O}(1)" and text[m.start:m.end] == m.written
    assert m.source == "O(1)"


LATEX_ENGLISH = (ENGLISH
                 .replace("O(log n) — n halves", r"$\mathcal{O}(\log n)$ — $n$ halves")
                 .replace("O(1) — a few", r"$O(1)$ — a few")
                 .replace("O(n log log n) — sum", r"$$O\left(n \log \log n\right)$$ — sum")
                 .replace("O(n) — one flag", r"$\Theta(n)$ — one flag"))


def test_latex_log_gets_full_points() -> None:
    assert LATEX_ENGLISH != ENGLISH
    r = review_log(LATEX_ENGLISH)
    assert r.points == 6.0, r.findings
    assert codes(r, "error") == [] and codes(r, "warning") == []
    assert [p.time for p in r.problems] == ["O(log n)", "O(n log log n)"]


def test_latex_markup_alone_is_no_reason() -> None:
    text = replace_line(ENGLISH, "**Time complexity:**", r"**Time:** $\mathcal{O}\left(\log n\right)$")
    r = review_log(text)
    errors = [(f.code, f.field, f.line) for f in r.findings if f.severity == "error"]
    assert errors == [("no_reason", "time", 9)]
    assert r.points == 5.75


def test_latex_bigo_that_does_not_parse_is_quoted_as_written() -> None:
    text = replace_line(ENGLISH, "**Time complexity:**", r"**Time:** $\mathcal{O}(n \log)$ — halving")
    f = next(f for f in review_log(text).findings if f.code == "bad_bigo")
    assert r"'\mathcal{O}(n \log)'" in f.message_en and r"\mathcal{O}(n \log)" in f.message_ko


_latex_exponents = st.fractions(min_value=-3, max_value=3, max_denominator=4)


def _latex_power(p: Fraction) -> str:
    if p.denominator == 1:
        return f"^{{{p.numerator}}}"
    sign = "-" if p < 0 else ""
    return f"^{{{sign}\\frac{{{abs(p.numerator)}}}{{{p.denominator}}}}}"


@st.composite
def latex_bigo(draw: st.DrawFn) -> tuple[Complexity, str]:
    """A complexity and one way a student might typeset it in a Jupyter Markdown cell."""
    c = draw(terms())
    times = draw(st.sampled_from([" ", r" \cdot ", r" \times ", r"\,", r" \* "]))
    parts = []
    for var, g in c.terms[0].factors:
        if g.poly:
            parts.append(f"{var}{_latex_power(g.poly)}")
        if g.log:
            parts.append(f"\\log{_latex_power(g.log)} {var}")
        if g.loglog:
            parts.append(f"\\left(\\log \\log {var}\\right){_latex_power(g.loglog)}")
    inner = times.join(parts) or "1"
    left, right = draw(st.sampled_from([("(", ")"), (r"\left(", r"\right)"), (r"\big(", r"\big)")]))
    notation = draw(st.sampled_from(["O", r"\mathcal{O}", r"\operatorname{O}", r"\Theta"]))
    wrap = draw(st.sampled_from(["${}$", "$${}$$", r"\({}\)", "{}"]))
    return c, wrap.format(f"{notation}{left}{inner}{right}")


@settings(max_examples=200, deadline=None)
@given(latex_bigo())
def test_bigo_in_latex_reads_the_same_as_plain(case: tuple[Complexity, str]) -> None:
    c, written = case
    assert parse(written) == parse(c.render()) == c
    found = bigo.find_all_bigo(f"Time: {written} — because")
    assert [parse(m.written) for m in found] == [c]


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_log_scores_the_same_with_latex_bigo(data: st.DataObject) -> None:
    """Each Big-O of the full-marks log, plain or typeset: the review is the same."""
    forms = {
        "O(log n)": [r"$O(\log n)$", r"$\mathcal{O}(\log n)$", r"\Theta(\lg n)",
                     r"$O\left(\log_{2} n\right)$"],
        "O(1)": [r"$O(1)$", r"$\mathcal{O}(1)$", r"$$\Theta(1)$$"],
        "O(n log log n)": [r"$O(n \log \log n)$", r"$\mathcal{O}(n\,\log\log n)$", r"O(n \cdot \lg \lg n)"],
        "O(n)": [r"$O(n)$", r"$\Theta(n)$", r"\(\mathcal{O}(n)\)"],
    }
    text = ENGLISH
    for plain, options in forms.items():
        text = text.replace(f"** {plain} —", f"** {data.draw(st.sampled_from([plain, *options]))} —")
    r = review_log(text)
    assert r.points == 6.0, (text, r.findings)
    assert codes(r, "error") == [] and codes(r, "warning") == []


# --------------------------------------------------------------------------- prose, as a TA reads it

PROSE_KO = r"""# LeetCode 기록

첫 번째 문제는 LeetCode 50번 Pow(x, n)이고 난이도는 Medium이다. 처음엔 반복문으로 x를 n번 곱했는데 n이 2^31까지라 시간 초과가 나서 분할 정복으로 n을 절반씩 줄이는 빠른 거듭제곱으로 바꿨다.
시간 복잡도는 $O(\log n)$이고 매 단계 n이 절반이 되기 때문이다. 공간은 $\mathcal{O}(1)$인데 변수 몇 개만 쓰기 때문이다.
음수 지수를 처리하지 않아서 처음에 틀렸다. 혼자 풀었다.

두 번째 문제는 204번 Count Primes (Medium)이다. 처음 아이디어는 모든 수를 루트까지 나눠 보는 것이었는데 너무 느려서 결국 에라토스테네스의 체로 풀었다.
시간 복잡도는 $O(n \log \log n)$인데 각 합성수가 소인수마다 한 번씩 지워지기 때문이고, 공간 복잡도는 $O(n)$으로 n 크기의 불리언 배열을 쓰기 때문이다.
n = 0, 1일 때 인덱스 에러가 났다. 풀이를 보고 풀었고 2026-10-05에 다시 풀 예정이다.
"""  # noqa: E501

PROSE_EN = r"""# My LeetCode log

The first problem was 50. Pow(x, n), a Medium one. I first tried multiplying x by itself n times, then switched to fast exponentiation that squares x and halves n, which runs in $O(\log n)$ time and $O(1)$ space because n halves every step and only a few variables are kept.
I forgot negative n at first and got 2^-2 wrong. I solved it on my own.

The second problem was 204. Count Primes (Medium). I first tried trial division up to sqrt(k) for every k, then used the sieve of Eratosthenes, which runs in O(n log log n) time and O(n) space because each composite is crossed out once per prime factor and there is one flag per number.
n = 0 and n = 1 crashed the indexing. I solved it after reading the editorial and will redo it on 2026-10-05.
"""  # noqa: E501

PROSE_KO_HEADED = r"""# LeetCode 기록

## 문제 1: 50. Pow(x, n)

난이도는 Medium이다. 처음에는 x를 n번 곱하는 브루트포스를 생각했다. 그런데 n이 최대 2^31이라 시간 초과가 났다.
그래서 n을 절반씩 줄이는 분할 정복으로 바꿨다. 시간 복잡도는 $O(\log n)$이다. 매 단계 n이 절반이 되기 때문이다.
공간 복잡도는 $O(1)$로, 변수 몇 개만 쓴다. 음수 지수를 처음에 빠뜨려서 틀렸다. 혼자 풀었다.

## 문제 2: 204. Count Primes

난이도: Medium. 처음 아이디어는 각 수를 루트까지 나눠 보는 것이었다. 결국 에라토스테네스의 체를 썼다.
시간은 O(n log log n)인데 합성수가 소인수마다 한 번씩 지워지기 때문이고 공간은 O(n)인데 n 크기 배열 때문이다.
n이 0이나 1일 때 인덱스 에러가 났다. 해설을 보고 풀었다. 2026-10-05에 다시 풀 것.
"""  # noqa: E501


@pytest.mark.parametrize("log", [PROSE_KO, PROSE_EN, PROSE_KO_HEADED], ids=["ko", "en", "ko-headings"])
def test_prose_log_is_read_field_by_field_for_full_points(log: str) -> None:
    parsed = parse_log(log)
    assert len(parsed.problems) == 2
    for p in parsed.problems:
        assert {n for n, f in p.fields.items() if f.filled} >= {
            "difficulty", "first_idea", "final_approach", "time", "space", "what_went_wrong", "solved"}
    r = review_log(log)
    assert r.points == 6.0, r.findings
    assert codes(r, "error") == [] and codes(r, "warning") == []
    assert [p.number for p in r.problems] == [50, 204]
    assert [p.solved for p in r.problems] == ["alone", "solution"]
    assert [p.time for p in r.problems] == ["O(log n)", "O(n log log n)"]


def test_prose_fields_carry_their_own_lines() -> None:
    p1, p2 = parse_log(PROSE_KO).problems
    assert (p1.line, p2.line) == (3, 7)
    assert p1.fields["first_idea"].value.startswith("처음엔 반복문으로")
    assert p1.fields["final_approach"].value.startswith("분할 정복으로")
    assert p1.fields["time"].line == 4 and "절반이 되기 때문" in p1.fields["time"].value
    assert p1.fields["what_went_wrong"].line == 5 and "음수 지수" in p1.fields["what_went_wrong"].value
    assert p2.fields["redo_date"].value == "2026-10-05" and p2.fields["redo_date"].line == 9
    fields = parse_log(PROSE_EN).problems[0].fields
    first, final = fields["first_idea"], fields["final_approach"]
    assert first.value == "I first tried multiplying x by itself n times"
    assert final.value.startswith("then switched to fast exponentiation")


def test_brief_example_sentence_reads_time_and_space_and_asks_for_reasons() -> None:
    log = ("## 문제 1: 50. Pow(x, n) (Medium)\n\n"
           "시간 복잡도는 O(log n)이고 공간은 O(1)이다. "
           "처음엔 x를 n번 곱했는데 시간 초과가 나서 분할 정복으로 바꿨다. 혼자 풀었다.\n")
    r = review_log(log)
    assert [p.time for p in r.problems] == ["O(log n)"] and [p.space for p in r.problems] == ["O(1)"]
    errors = [(f.code, f.field, f.line) for f in r.findings if f.problem == 1 and f.severity == "error"]
    assert errors == [("no_reason", "time", 3), ("no_reason", "space", 3)]
    f = next(f for f in r.findings if f.code == "no_reason")
    quote = "시간 복잡도는 O(log n)이고 공간은 O(1)이다."
    assert quote in f.message_en and quote in f.message_ko and "time complexity" in f.message_en


@pytest.mark.parametrize(("old", "new", "name", "line", "quoted", "points"), [
    (" and $O(1)$ space", "", "space", 3, "which runs in $O(\\log n)$ time", 5.25),
    (" I solved it on my own.", "", "solved", 4, "I forgot negative n at first", 5.75),
    ("I first tried multiplying x by itself n times, then switched to", "I used", "first_idea", 3,
     "I used fast exponentiation", 5.75),
    (", a Medium one", "", "difficulty", 3, "50. Pow(x, n)", 5.75),
    ("I forgot negative n at first and got 2^-2 wrong. ", "", "what_went_wrong", 3, "I first tried", 5.75),
])
def test_prose_log_missing_field_is_named_and_quotes_the_line(
    old: str, new: str, name: str, line: int, quoted: str, points: float
) -> None:
    text = PROSE_EN.replace(old, new, 1)
    assert text != PROSE_EN
    r = review_log(text)
    errors = [f for f in r.findings if f.severity == "error"]
    assert [(f.code, f.problem, f.field) for f in errors] == [("missing_field", 1, name)]
    f = errors[0]
    assert f.line == line and quoted in f.message_en and quoted in f.message_ko
    assert f"line {line}" in f.message_en and f"{line}행" in f.message_ko
    assert r.points == points


def test_korean_prose_missing_space_and_solved() -> None:
    text = PROSE_KO.replace(" 공간은 $\\mathcal{O}(1)$인데 변수 몇 개만 쓰기 때문이다.", "")
    text = text.replace(" 혼자 풀었다.", "")
    r = review_log(text)
    errors = [(f.code, f.problem, f.field) for f in r.findings if f.severity == "error"]
    assert errors == [("missing_field", 1, "space"), ("missing_field", 1, "solved")]
    space = next(f for f in r.findings if f.field == "space")
    assert "시간 복잡도는 $O(\\log n)$이고" in space.message_ko and "'공간복잡도'" in space.message_ko
    assert "'Space complexity'" in space.message_en
    assert r.points == 5.0


def test_paragraph_after_an_answered_label_is_prose() -> None:
    log = PROSE_KO_HEADED.replace("난이도는 Medium이다. 처음에는", "난이도: Medium\n\n처음에는", 1)
    p = parse_log(log).problems[0]
    assert p.fields["difficulty"].value == "Medium"
    assert p.fields["first_idea"].value.startswith("처음에는 x를")
    assert review_log(log).points == 6.0


def test_a_sentence_with_time_in_it_is_not_a_label() -> None:
    log = ("## Problem 1: 50. Pow(x, n) (Medium)\n\n"
           "My first idea was brute force in O(n) time, multiplying x n times.\n")
    p = parse_log(log).problems[0]
    assert p.fields["first_idea"].line == 3
    assert "time" not in p.fields  # the first idea's complexity is not the answer's


def test_unrelated_prose_starts_no_problem() -> None:
    log = ("# Notes\n\nThe frequencies are a power of two apart; training took a long time.\n\n" + PROSE_EN)
    parsed = parse_log(log)
    assert [p.mention for p in parsed.problems] == [50, 204]
    assert review_log(log).points == 6.0


def test_template_logs_read_no_prose() -> None:
    """The template's own layouts score as before: prose reading adds nothing to them."""
    for log in (ENGLISH, KOREAN, TABLE_LOG):
        assert all(f.label != "sentence" for p in parse_log(log).problems for f in p.fields.values())


NOTEBOOK_LATEX_LOG = r"""# LeetCode 기록

## 문제 1

- **문제:** 50. Pow(x, n)
- **난이도:** Medium
- **처음 아이디어:** 반복문으로 $x$를 $n$번 곱하기.
- **최종 접근:** 분할 정복: $x^{n} = \left(x^{n/2}\right)^{2}$, 반복문으로 비트 단위 처리.
- **시간복잡도:** $\mathcal{O}(\log n)$ — 매 단계 $n$이 절반으로 줄어든다.
- **공간복잡도:** $O(1)$ — 변수 몇 개만 쓴다.
- **틀린 이유:** 음수 지수에서 $x$를 $1/x$로 바꾸는 것을 빠뜨려 $2^{-2}$가 4가 나왔다.
- **풀이 방식:** 혼자 풀었음

## 문제 2

- **문제:** 204. Count Primes
- **난이도:** Medium
- **처음 아이디어:** 각 수 $k$를 $\sqrt{k}$까지 나눠 보기: $O(n\sqrt{n})$.
- **최종 접근:** 에라토스테네스의 체. $p \cdot p$부터 $p$ 간격으로 지운다.
- **시간복잡도:** $$O\left(n \log \log n\right)$$ — 각 합성수는 소인수마다 한 번씩만 지워진다.
- **공간복잡도:** $\Theta(n)$ — $n$ 크기의 불리언 배열.
- **틀린 이유:** 경계값 $n = 0, 1$에서 인덱스 에러.
- **풀이 방식:** 풀이를 보고 이해한 뒤 다시 구현 (2026-10-05)
"""


@pytest.mark.parametrize("log", [NOTEBOOK_LATEX_LOG, PROSE_KO], ids=["latex", "prose"])
def test_notebook_log_cell_in_latex_or_prose_gets_full_log_marks(tmp_path: Path, log: str) -> None:
    """A Jupyter submission (examples/notebook.ipynb) whose log cell is typeset or written as prose."""
    from tests.conftest import grade, task_scores

    nb = json.loads((ROOT / "examples" / "notebook.ipynb").read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"]
             if c["cell_type"] == "markdown" and "LeetCode 기록" in "".join(c["source"])]
    assert len(cells) == 1
    cells[0]["source"] = log.splitlines(keepends=True)
    path = tmp_path / "notebook.ipynb"
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    results = grade(path, keyword="leetcode_log")
    got, top = task_scores(results)["leetcode_log"]
    assert got == top > 0
    assert results["artifacts"]["leetcode_log"]["points"] == 6.0


_log_pieces = st.sampled_from([
    "## 문제 1", "### Problem 2: 204. Count Primes", "첫 번째 문제는 50번 Pow(x, n)이다.", "- **Time:** ",
    r"$\mathcal{O}(", r"\log n", ")$", r"\left(", r"\right)", "{", "}", "$", "$$", "\\", r"\frac{n}{", "^{2}",
    "시간 복잡도는 ", "공간은 ", "O(n", ") ", "because ", "때문이다. ", "처음엔 ", "then ", "혼자 풀었다. ",
    "after reading the editorial ", "2026-10-05 ", "\n", "\n\n",
    "| Problem | Time | Space |\n|---|---|---|\n",
    "<sup>", "</sup>", "&middot;", "*", "**", r"\*", "~", "|", "```\n",
])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(_log_pieces, st.text(max_size=8)), max_size=40))
def test_review_never_crashes_on_any_text(pieces: list[str]) -> None:
    r = review_log("".join(pieces))
    assert 0.0 <= r.points <= MAX_POINTS
    assert all(f.message_en and f.message_ko for f in r.findings)


def test_paragraph_continuing_an_answer_stays_in_it() -> None:
    text = replace_line(ENGLISH, "**Time complexity:**", "**Time:** O(log n)\n\nbecause n halves every step")
    assert parse_log(text).problems[0].fields["time"].value == "O(log n)\n\nbecause n halves every step"
    assert review_log(text).points == 6.0


def test_intro_sentence_naming_the_problems_then_labels() -> None:
    text = ENGLISH.replace("## Problem 1\n", "This week I solved LeetCode 50 and 204.\n")
    text = text.replace("## Problem 2\n", "")
    parsed = parse_log(text)
    assert [p.fields["problem"].value for p in parsed.problems] == ["50. Pow(x, n)", "204. Count Primes"]
    assert review_log(text).points == 6.0


def test_jupyter_html_line_breaks_and_bold_tags() -> None:
    """Jupyter users join lines with <br> and bold with <b>: the fields are the same."""
    text = ENGLISH.replace("**Time complexity:** O(log n) — n halves every iteration\n**Space complexity:**",
                           "<b>Time complexity:</b> $O(\\log n)$ — n halves every iteration<br>"
                           "**Space complexity:**")
    assert text != ENGLISH
    p1 = parse_log(text).problems[0]
    assert p1.fields["time"].line == p1.fields["space"].line == 9
    r = review_log(text)
    assert r.points == 6.0, r.findings


def test_prose_naming_the_problem_by_its_title_alone() -> None:
    log = PROSE_EN.replace("The first problem was 50. Pow(x, n), a Medium one.", "Pow(x, n) is a Medium one.")
    log = log.replace("The second problem was 204. Count Primes (Medium).", "Then Count Primes, also Medium.")
    assert [p.mention for p in parse_log(log).problems] == [50, 204]
    assert review_log(log).points == 6.0


def test_template_missing_field_message_has_no_prose_quote() -> None:
    r = review_log(replace_line(KOREAN, "- 틀린 이유: 한 번에", None))
    f = next(f for f in r.findings if f.code == "missing_field")
    assert f.field == "what_went_wrong" and "sentences" not in f.message_en and "서술한" not in f.message_ko


# Sentences a student might write for problem 1, per field; any order, any mix of them, is the same log.
_PROSE_SENTENCES = {
    "ko": {
        "problem": ["첫 번째 문제는 LeetCode 50번 Pow(x, n)이다.", "50번 Pow(x, n) 문제를 풀었다.",
                    "Pow(x, n)을 풀었다."],
        "difficulty": ["난이도는 Medium이다.", "난이도는 중간이었다.", "Medium 문제다."],
        "approach": ["처음엔 x를 n번 곱했는데 너무 느려서 분할 정복으로 바꿨다.",
                     "처음 아이디어는 x를 n번 곱하는 것이었다. 결국 빠른 거듭제곱으로 풀었다."],
        "time": [r"시간 복잡도는 $O(\log n)$인데 n이 매번 절반이 되기 때문이다.",
                 r"시간은 $\mathcal{O}(\log n)$이다. 매 단계 n이 절반으로 줄기 때문이다.",
                 "시간 복잡도는 O(log n)으로, 반복마다 n이 반으로 준다."],
        "space": [r"공간 복잡도는 $O(1)$인데 변수 몇 개만 쓰기 때문이다.",
                  "공간은 O(1)로 변수 몇 개만 쓴다."],
        "wrong": ["음수 지수를 처리하지 않아서 틀렸다.", "n이 음수일 때 실수했다."],
        "solved": ["혼자 풀었다.", "스스로 풀었다."],
    },
    "en": {
        "problem": ["The first problem was 50. Pow(x, n).", "I solved LeetCode 50, Pow(x, n).",
                    "Pow(x, n) was my first problem."],
        "difficulty": ["It is a Medium problem.", "Its difficulty is Medium."],
        "approach": ["I first tried multiplying x by itself n times, then switched to fast exponentiation.",
                     "My first idea was brute force multiplication. "
                     "Then I used fast exponentiation by squaring."],
        "time": [r"The time complexity is $O(\log n)$ because n halves every step.",
                 r"It runs in $\Theta(\log n)$ time since n halves each iteration."],
        "space": [r"The space complexity is $O(1)$ because only a few variables are kept.",
                  r"It uses $\mathcal{O}(1)$ extra space: just a few variables."],
        "wrong": ["I forgot negative n at first.", "Negative exponents tripped me up."],
        "solved": ["I solved it alone.", "I solved it on my own."],
    },
}


@st.composite
def prose_logs(draw: st.DrawFn) -> str:
    lang = _PROSE_SENTENCES[draw(st.sampled_from(["ko", "en"]))]
    order = draw(st.permutations(["difficulty", "approach", "time", "space", "wrong", "solved"]))
    parts = [draw(st.sampled_from(lang["problem"]))] + [draw(st.sampled_from(lang[k])) for k in order]
    first = draw(st.sampled_from([" ", "\n"])).join(parts)
    second = draw(st.sampled_from([PROSE_KO.split("\n\n")[2], PROSE_EN.split("\n\n")[2]]))
    return f"# LeetCode\n\n{first}\n\n{second}"


@settings(max_examples=60, deadline=None)
@given(prose_logs())
def test_prose_in_any_order_and_wording_gets_full_points(log: str) -> None:
    r = review_log(log)
    assert r.points == 6.0, [(f.code, f.problem, f.field) for f in r.findings if f.severity != "info"]


_SENTENCE_FIELDS = {"difficulty": {"difficulty"}, "approach": {"first_idea", "final_approach"},
                    "time": {"time"}, "space": {"space"}, "wrong": {"what_went_wrong"}, "solved": {"solved"}}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["ko", "en"]), st.permutations(list(_SENTENCE_FIELDS)),
       st.sampled_from(list(_SENTENCE_FIELDS)), st.data())
def test_prose_missing_any_field_names_exactly_that_field(lang: str, order: list[str], drop: str,
                                                          data: st.DataObject) -> None:
    sentences = _PROSE_SENTENCES[lang]
    parts = [data.draw(st.sampled_from(sentences["problem"]))]
    parts += [data.draw(st.sampled_from(sentences[k])) for k in order if k != drop]
    r = review_log("# LeetCode\n\n" + " ".join(parts) + "\n\n" + PROSE_EN.split("\n\n")[2])
    errors = [f for f in r.findings if f.severity == "error"]
    assert {f.field for f in errors} == _SENTENCE_FIELDS[drop]
    assert all(f.code == "missing_field" and f.problem == 1 and f.line == 3 for f in errors)
    assert all("line 3" in f.message_en and "3행" in f.message_ko for f in errors)


# --------------------------------------------------------------------------- read as a TA reads it (issue 27)

def _log(first: str, second: str, lang: str = "ko") -> str:
    """Two problems: labels for what is not under test, ``first`` / ``second`` the lines that are."""
    if lang == "ko":
        head = ("- 문제: {p}\n- 난이도: Medium\n- 처음 아이디어: 단순 반복으로 풀었다\n"
                "- 최종 접근: 개선한 방법으로 바꿨다\n- 틀린 이유: 경계값을 빠뜨렸다\n- 풀이 방식: 혼자\n")
    else:
        head = ("- Problem: {p}\n- Difficulty: Medium\n- First idea: a plain loop\n"
                "- Final approach: the improved method\n- What went wrong: missed an edge case\n"
                "- Solved: alone\n")
    return (f"## 1\n{head.format(p='50. Pow(x, n)')}{first}\n\n"
            f"## 2\n{head.format(p='204. Count Primes')}{second}\n")


CATALOG_CODES = {"complexity_worse", "complexity_inconsistent", "space_exceeds_time", "incomparable"}


def _codes(review: object, *codes: str) -> list[tuple[int | None, str | None, str]]:
    return [(f.problem, f.field, f.code) for f in review.findings if f.code in codes]  # type: ignore[attr-defined]


@pytest.mark.parametrize("pow_lines,primes_lines", [
    # Korean: the reason first, closed by a connective ending
    ("지수가 매번 절반이 되므로 시간 복잡도는 O(log n)이다.\n반복문이라 공간 복잡도는 O(1)이다.",
     "각 합성수를 소인수마다 한 번씩 지우기 때문에 시간 복잡도는 O(n log log n)이다.\n"
     "체 배열이 n칸이라서 공간 복잡도는 O(n)이다."),
    ("n을 반으로 나누니까 시간 복잡도는 O(log n)이다. 변수 세 개만 쓰므로 공간 복잡도는 O(1)이다.",
     "배수를 지워 나가서 시간 복잡도는 O(n log log n)이다. 체 배열이 n칸이라 공간 복잡도는 O(n)이다."),
    # English: since / because / as, before or after the claim
    ("Since the exponent halves, the time is O(log n).\n"
     "The space is O(1) because only three variables are kept.",
     "As each composite is crossed out once per prime factor, the time complexity is O(n log log n).\n"
     "The space is O(n), since the sieve keeps one flag per number."),
], ids=["ko-connectives", "ko-one-line", "en-since-because-as"])
def test_a_reason_on_either_side_of_the_claim_is_a_reason(pow_lines: str, primes_lines: str) -> None:
    lang = "en" if pow_lines.isascii() else "ko"
    r = review_log(_log(pow_lines, primes_lines, lang))
    assert _codes(r, "no_reason", "missing_field") == []
    assert [(p.time, p.space) for p in r.problems] == [("O(log n)", "O(1)"), ("O(n log log n)", "O(n)")]
    assert r.points == MAX_POINTS


def test_a_claim_with_no_reason_either_side_still_has_none() -> None:
    r = review_log(_log("시간 복잡도는 O(log n)이다. 공간 복잡도는 O(1)이다.",
                        "The time is O(n log log n). The space is O(n).", "ko"))
    assert sorted(_codes(r, "no_reason")) == [(1, "space", "no_reason"), (1, "time", "no_reason"),
                                              (2, "space", "no_reason"), (2, "time", "no_reason")]


@pytest.mark.parametrize("line", [
    "시간 복잡도는 O(n log log n), 공간 복잡도는 O(n)이다.",
    "공간 복잡도는 O(n), 시간 복잡도는 O(n log log n)이다.",
    "시간과 공간 복잡도는 각각 O(n log log n), O(n)이다.",
    "It runs in O(n log log n) time, O(n) space.",
    "Space and time are O(n) and O(n log log n).",
    "- 시간복잡도 / 공간복잡도: O(n log log n) / O(n)",
    "- Time: O(n log log n), Space: O(n)",
    "- **Time & space:** O(n log log n), O(n)",
])
def test_one_clause_one_claim_time_and_space_each_to_its_own(line: str) -> None:
    """The misquote of the issue: 'space complexity O(n log log n)' for a student who wrote O(n)."""
    r = review_log(_log("- 시간복잡도: O(log n) — 절반씩\n- 공간복잡도: O(1) — 변수 몇 개", line))
    assert (r.problems[1].time, r.problems[1].space) == ("O(n log log n)", "O(n)")
    assert _codes(r, *CATALOG_CODES) == []
    for f in r.findings:  # a sentence may be quoted whole, but the space is never said to be the time's
        assert "as O(n log log n)" not in f.message_en or f.field == "time", f.message_en


def test_one_line_holding_problem_and_difficulty() -> None:
    log = ("## 1\nProblem: 50. Pow(x, n)  Difficulty: Medium\n"
           "## 2\n- 난이도: Medium, 번호: 204\n")
    entries = parse_log(log).problems
    assert [(e.fields["problem"].value, e.fields["difficulty"].value) for e in entries] == [
        ("50. Pow(x, n)", "Medium"), ("204", "Medium")]


SHORTHAND = {
    "en": """## Problem 1
Problem: 50. Pow(x, n)
Difficulty: Medium
Idea: multiply x by itself n times
Final: fast exponentiation by squaring, halving n each round
Time: O(log n) - n halves each round
Space: O(1) - three variables
Bug: forgot 1/x for a negative n
Solved: alone

## Problem 2
Problem: 204. Count Primes
Diff: Medium
Intuition: trial division up to sqrt(k)
Final: sieve of Eratosthenes from p*p
Runtime: O(n log log n) - the sum of n/p over the primes
Memory: O(n) - one flag per number
Mistake: counted n itself
Solved: after reading the editorial, redo 2026-10-05
""",
    "ko": """## 문제 1
문제: 50. Pow(x, n)
난이도: Medium
아이디어: x를 n번 곱하기
최종: 분할 정복으로 n을 절반씩 줄이기
시간: O(log n) - n이 매번 절반
공간: O(1) - 변수 세 개
버그: 음수 지수에서 1/x를 빠뜨림
혼자: 예, 혼자 풀었음

## 문제 2
문제: 204. Count Primes
난이도: Medium
발상: 각 수를 제곱근까지 나눠 보기
최종: 에라토스테네스의 체
시간: O(n log log n) - 소수 p마다 n/p번
메모리: O(n) - 수마다 플래그 하나
실수: n 자신을 셌음
풀이 여부: 풀이를 보고 풀었음, 다시 풀 날 2026-10-05
""",
}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_labels_as_students_abbreviate_them(lang: str) -> None:
    r = review_log(SHORTHAND[lang])
    assert [(f.problem, f.field, f.code) for f in r.findings if f.severity == "error"] == []
    assert r.points == MAX_POINTS
    entry = parse_log(SHORTHAND[lang]).problems[0]
    assert entry.fields["final_approach"].value.startswith(("fast exponentiation", "분할 정복"))


def test_catalog_messages_quote_the_span_read_with_its_line() -> None:
    log = _log("- 시간복잡도: $\\mathcal{O}(n)$ — n번 곱함\n- 공간복잡도: O(1) — 변수 몇 개",
               "- Time complexity: O(n^{2}) — two loops\n- Space complexity: O(n) — the sieve")
    r = review_log(log)
    lines = log.splitlines()
    worse = {f.problem: f for f in r.findings if f.code == "complexity_worse"}
    assert set(worse) == {1, 2}
    assert '"\\mathcal{O}(n)" (line 8)' in worse[1].message_en
    assert '8행의 "\\mathcal{O}(n)"' in worse[1].message_ko
    assert '"O(n^{2})" (line 18)' in worse[2].message_en and "O(n^2)" not in worse[2].message_en
    for f in worse.values():
        assert f.message_en.split('"')[1] in lines[f.line - 1]


def test_no_check_quotes_a_complexity_the_student_did_not_write() -> None:
    """A sentence holding both: each check quotes what the student wrote for it, on the line it names."""
    log = _log("- 시간복잡도: O(log n) — 절반\n- 공간복잡도: O(1) — 변수",
               "시간 복잡도는 O(n^2), 공간 복잡도는 O(n log n)이다.")
    r = review_log(log)
    lines = log.splitlines()
    quoted = {f.field: re.findall(r'"([^"]*O\([^"]*)" \(line (\d+)\)', f.message_en)
              for f in r.findings if f.code in CATALOG_CODES}
    assert quoted == {"time": [("O(n^2)", "18")], "space": [("O(n log n)", "18")]}
    assert all(q in lines[int(n) - 1] for found in quoted.values() for q, n in found)


# Big-O notations the parser reads as the same complexity (LATEX_FORMS above for the full list).
NOTATIONS = {
    "O(log n)": ["O(log n)", r"$O(\log n)$", r"$\mathcal{O}(\log n)$", r"\Theta(\log n)", r"O(\lg n)",
                 r"O(\log_{2} n)", "O(log(n))"],
    "O(1)": ["O(1)", r"$\mathcal{O}(1)$", "Θ(1)", r"$O(1)$"],
    "O(n)": ["O(n)", r"$O(n)$", r"\Theta(n)", r"$\mathcal{O}(n)$"],
    "O(n log log n)": ["O(n log log n)", r"$O(n \log \log n)$", r"O\left(n \log \log n\right)",
                       r"O(n\,\log\log n)"],
}
KNOWN = {"50. Pow(x, n)": ("O(log n)", "O(1)"), "204. Count Primes": ("O(n log log n)", "O(n)"),
         "202. Happy Number": ("O(log n)", "O(1)"), "12. Integer to Roman": ("O(1)", "O(1)")}
# How a student may write the two claims: labels, one line, prose either way round, reasons either side.
ORDERS = [
    "- 시간복잡도: {t} — 이유가 있음\n- 공간복잡도: {s} — 이유가 있음",
    "- Space complexity: {s} — a reason\n- Time complexity: {t} — a reason",
    "- 시간복잡도 / 공간복잡도: {t} / {s} — 이유가 있음",
    "- Time: {t}, Space: {s}",
    "시간 복잡도는 {t}, 공간 복잡도는 {s}이다.",
    "공간 복잡도는 {s}, 시간 복잡도는 {t}이다.",
    "반복 횟수가 그만큼이라 시간 복잡도는 {t}이다. 변수가 그만큼이므로 공간 복잡도는 {s}이다.",
    "Since the loop runs that often, the time is {t}. The space is {s} because of the table.",
    "It runs in {t} time and {s} space.",
    "시간과 공간 복잡도는 각각 {t}, {s}이다.",
]


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_known_complexities_in_any_notation_and_order_draw_no_catalog_complaint(data: st.DataObject) -> None:
    entries = []
    for title in data.draw(st.permutations(list(KNOWN)))[:2]:
        t, s = KNOWN[title]
        order = data.draw(st.sampled_from(ORDERS))
        text = order.format(t=data.draw(st.sampled_from(NOTATIONS[t])),
                            s=data.draw(st.sampled_from(NOTATIONS[s])))
        entries.append((title, t, s, text))
    log = "".join(f"## 문제 {i}\n- 문제: {title}\n- 난이도: Medium\n{text}\n\n"
                  for i, (title, _t, _s, text) in enumerate(entries, 1))
    r = review_log(log)
    assert _codes(r, *CATALOG_CODES) == [], log
    read = [(p.time, p.space) for p in r.problems]
    assert len(read) == 2 and all(a is not None and b is not None for a, b in read), log
    assert all(compare(parse(a), parse(t)) == 0 and compare(parse(b), parse(s)) == 0
               for (a, b), (_, t, s, _) in zip(read, entries, strict=True)), (read, log)
    lines = log.splitlines()
    for f in r.findings:  # whatever a message quotes as a Big-O is on the line it names
        for quoted in re.findall(r'"([^"]*[OΘ][^"]*)" \(line (\d+)\)', f.message_en):
            assert quoted[0] in lines[int(quoted[1]) - 1], (quoted, log)


# --------------------------------------------------------------------------- the log against the code

def _solutions_with_stubs(tmp_path: Path, *stubs: str) -> Path:
    import ast

    out = tmp_path / "sub"
    out.mkdir()
    for f in (ROOT / "solutions").glob("*.py"):
        (out / f.name).write_text(f.read_text())
    source = (out / "leetcode.py").read_text()
    lines = source.splitlines(keepends=True)
    defs = [n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name in stubs]
    for node in sorted(defs, key=lambda n: -n.lineno):
        lines[node.body[0].lineno - 1:node.end_lineno] = [f'    raise NotImplementedError("{node.name}")\n']
    (out / "leetcode.py").write_text("".join(lines))
    return out


def test_coverage_reads_which_practice_functions_are_stubs() -> None:
    from lesson_embedding_pe.leetlog.code.coverage import unsolved

    exercises = (ROOT / "exercises" / "leetcode.py").read_text()
    assert unsolved({"leetcode": exercises}) == dict.fromkeys(("my_pow", "count_primes", "is_happy",
                                                               "int_to_roman"), "stub")
    assert unsolved({"leetcode": (ROOT / "solutions" / "leetcode.py").read_text()}) == {}
    assert unsolved({"leetcode": "def my_pow(x, n):\n    return x ** n\n"}) == {
        "count_primes": "missing", "is_happy": "missing", "int_to_roman": "missing"}
    assert unsolved({"embedding": "x = 1"}) is None and unsolved({"leetcode": "def ("}) is None
    # a notebook: a stub it defines counts; one it does not define may be in a file it imports
    assert unsolved({"notebook": "def my_pow(x, n):\n    raise NotImplementedError\n"}) == {"my_pow": "stub"}


def test_a_log_of_a_problem_the_code_leaves_unsolved_loses_the_coverage_points(tmp_path: Path) -> None:
    from tests.conftest import failed_messages, grade, task_scores

    sub = _solutions_with_stubs(tmp_path, "is_happy", "int_to_roman")
    log = ENGLISH.replace("204. Count Primes", "12. Integer to Roman").replace(
        "O(n log log n) — sum of n/p over the primes p", "O(1) — at most 15 symbols").replace(
        "O(n) — one flag per number", "O(1) — a fixed table")
    (sub / "LEETCODE_LOG.md").write_text(log)
    results = grade(sub, hidden=False, keyword="leetcode_log")
    failed = [t["id"] for t in results["tests"] if t["task"] == "leetcode_log" and t["status"] != "passed"]
    assert failed == ["public/test_log.py::test_log[problem2-problem]"]
    en, ko = failed_messages(results, "leetcode_log"), failed_messages(results, "leetcode_log", "ko")
    assert "the log covers 12. Integer to Roman; leetcode.py leaves int_to_roman unsolved" in en
    assert "LEETCODE_LOG.md line 16" in en and "12. Integer to Roman" in ko and "int_to_roman" in ko
    score, top = task_scores(results)["leetcode_log"]
    assert top - score == 0.5  # the problem group: the log covers a problem the code does not solve
    # the log says why: solved on LeetCode only, in either language (the grader once, the review for both)
    said = {why: log.replace("**Solved:** after reading a solution (editorial)",
                             f"**Solved:** after reading a solution (editorial). {why}")
            for why in ("Solved on LeetCode only; my leetcode.py does the other two.",
                        "LeetCode에서만 풀었다.")}
    stubs = {"is_happy": "stub", "int_to_roman": "stub"}
    assert [f.code for f in review_log(log, unsolved=stubs).findings] == ["not_in_code"]
    assert all(review_log(text, unsolved=stubs).findings == [] for text in said.values())
    (sub / "LEETCODE_LOG.md").write_text(next(iter(said.values())))
    results = grade(sub, hidden=False, keyword="leetcode_log")
    assert task_scores(results)["leetcode_log"][0] == top, failed_messages(results, "leetcode_log")


LESSON_WORDING = """## 문제 1
- 문제: 50. Pow(x, n)
- 난이도: Medium
- 접근: 처음엔 x를 n번 곱하는 브루트포스를 떠올렸고, 최종적으로 분할 정복으로 n을 절반씩 줄였다.
- 시간복잡도 / 공간복잡도: O(log n) / O(1) — n이 매번 절반이 되고 변수 몇 개만 쓴다
- 틀린 이유: 음수 지수에서 1/x로 바꾸는 것을 빠뜨렸다
- 풀이 방식: 혼자

## 문제 2
- 문제: 204. Count Primes
- 난이도: Medium
- 접근: 처음에는 각 수를 제곱근까지 나눠 봤다. 결국 에라토스테네스의 체로 바꿨다.
- 시간복잡도 / 공간복잡도: O(n log log n) / O(n) — 소수 p마다 n/p번 지우고, 수마다 플래그 하나
- 틀린 이유: n 자신을 셌다
- 풀이 방식: 풀이를 보고 (2026-10-05에 다시 풀기)
"""


def test_the_lessons_own_labels_read_as_the_fields_they_name() -> None:
    """/work/shared/lesson: '접근: 처음 떠올린 방법과 최종 방법', '시간복잡도 / 공간복잡도: Big-O와 이유'."""
    r = review_log(LESSON_WORDING)
    assert [(f.problem, f.field, f.code) for f in r.findings if f.severity == "error"] == []
    assert r.points == MAX_POINTS
    first = parse_log(LESSON_WORDING).problems[0]
    assert first.fields["first_idea"].value.startswith("처음엔 x를 n번 곱하는")
    assert first.fields["final_approach"].value.startswith("최종적으로 분할 정복")
    # one approach only: the first idea is still missing, and named
    one = LESSON_WORDING.replace("처음엔 x를 n번 곱하는 브루트포스를 떠올렸고, ", "")
    assert [(f.problem, f.field) for f in review_log(one).findings if f.code == "missing_field"] == [
        (1, "first_idea")]


def test_a_bare_shorthand_label_is_an_empty_field_not_a_crash() -> None:
    """'문제번호' alone (a shorthand label with nothing after it), found by the fuzz test above."""
    r = review_log("문제번호")
    assert r.points == 0.0 and all(f.message_en and f.message_ko for f in r.findings)


def test_unsure_complexity_in_words_keeps_its_points_and_says_a_ta_reads_it() -> None:
    """Issue 33: 'log n time' is a complexity in words: unsure (a TA reads it), never a deduction."""
    r = review_log(replace_line(ENGLISH, "**Time complexity:** O(log n)",
                                "**Time complexity:** log n time, since n halves every step"))
    unsure = [f for f in r.findings if f.severity == "unsure"]
    assert [f.code for f in unsure] == ["unsure_no_bigo"] and not r.errors
    assert "TA" in unsure[0].message_en and "조교" in unsure[0].message_ko
    assert r.points == review_log(ENGLISH).points


def test_plainly_absent_complexity_is_still_a_sure_error() -> None:
    r = review_log(replace_line(ENGLISH, "**Time complexity:** O(log n)", "**Time complexity:** ok"))
    assert any(f.code in ("no_bigo", "no_reason") and f.severity == "error" for f in r.findings)


# Issue 33 (a first slice of the generator): a complexity field written as students write it, claim
# in O() or in words, reason before or after it, in English or Korean, is never marked down.
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_CLAIMS = ("O(log n)", "log n time", "logarithmic time", "O(\\log n)")
_REASONS_EN = ("because n halves every step", "since n halves every step", "as n halves every step")
_REASONS_KO = ("n이 매번 절반이 되기 때문이다", "n이 매번 절반이 되므로", "n이 매번 절반이 되니까")


@settings(max_examples=150, deadline=None, print_blob=True)
@given(st.sampled_from(_CLAIMS), st.sampled_from(_REASONS_EN + _REASONS_KO), st.booleans())
def test_generated_time_field_is_never_marked_down(claim: str, reason: str, before: bool) -> None:
    value = f"{reason}, {claim}" if before else f"{claim} — {reason}"
    r = review_log(replace_line(ENGLISH, "**Time complexity:** O(log n)", f"**Time complexity:** {value}"))
    assert not [f for f in r.findings if f.severity == "error" and f.field == "time"], value
    assert r.points == review_log(ENGLISH).points, value


@pytest.mark.parametrize("heading", ["문제 1 (Problem 1): 50. Pow(x, n)",
                                     "문제 1 / Problem 1: 50. Pow(x, n)"])
def test_a_slot_heading_glossed_in_the_other_language_names_the_problem_after_it(heading: str) -> None:
    """The slot said in both languages, in parentheses or after a slash: slot 1, problem 50 (the slash's was
    'number 1 does not match the title', a sure warning)."""
    from lesson_embedding_pe.leetlog.parser import problem_heading

    assert problem_heading(heading) == (1, "50. Pow(x, n)")


@pytest.mark.parametrize(("english", "duplicate"), [("O(log n) — n halves", False),
                                                    ("O(n) — n halves", True)])
def test_a_field_in_both_languages_is_one_answer_unless_they_differ(english: str, duplicate: bool) -> None:
    """'- 시간복잡도: …' over '- Time complexity: …' with the same Big-O: a translation; a different one is a
    second answer, still a duplicate."""
    text = f"## 50. Pow(x, n)\n- 시간복잡도: O(log n) — n이 절반씩\n- Time complexity: {english}\n"
    assert [d.line for d in parse_log(text).problems[0].duplicates] == ([3] if duplicate else [])
