"""Issue 43: a complexity claim held to what the student's own function does, counted
(leetlog/code/costmeter.py).

The unit tests run the worker's probe (probes.py ``probe_practice_cost``) here, on the corpus' own code
(tests/leetlog_cases/*.py, written for these tests), through a stand-in for the worker's ``resolve``; the
one real grade at the end runs it where a submission's code runs, in the sandboxed worker.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from lesson_embedding_pe import probes
from lesson_embedding_pe.leetlog import parse, review_log
from lesson_embedding_pe.leetlog.code import costmeter
from lesson_embedding_pe.leetlog.code.costmeter import FITS, OVER, UNDER, Measurement, Run
from lesson_embedding_pe.leetlog.review import MAX_POINTS
from lesson_embedding_pe.logta import _group_of, check_key
from tests.conftest import ROOT, grade

CASES = Path(__file__).resolve().parent / "leetlog_cases"


class _Worker:
    """The worker's ``resolve``, here: the module imported from a file of the corpus."""

    def __init__(self, path: Path) -> None:
        spec = importlib.util.spec_from_file_location(f"costmeter_case_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        self.module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.module)

    def resolve(self, target: str) -> Any:
        return getattr(self.module, target.split(".")[-1])


class _Student:
    """``student.probe`` calling the lesson's probe in this process (what the worker runs)."""

    def __init__(self, path: Path) -> None:
        self.worker = _Worker(path)

    def probe(self, name: str, *args: Any, timeout: float | None = None) -> Any:
        return getattr(probes, f"probe_{name}")(self.worker, *args)


def _measure(path: Path, function: str) -> Measurement:
    return costmeter.measure(_Student(path), "leetcode", function, path.read_text(encoding="utf-8"))


def _review(case: str) -> Any:
    code = CASES / f"{case}.py"
    source = code.read_text(encoding="utf-8")
    student = _Student(code)
    return review_log((CASES / f"{case}.md").read_text(encoding="utf-8"), sources={"leetcode": source},
                      measure=lambda fn: costmeter.measure(student, "leetcode", fn, source))


def _sure(review: Any) -> list[tuple[int, str, str]]:
    return sorted((f.problem, f.field, f.code) for f in review.findings if f.severity in ("error", "warning"))


def test_the_counted_copy_counts_loops_calls_and_builtins_and_computes_the_same() -> None:
    source = (CASES / "pow_loop_n.py").read_text(encoding="utf-8")
    counted = costmeter.counted_source(source)
    assert counted is not None
    assert "_gk_loop(range(n))" in counted and "_gk_enter()" in counted and "_gk_exit()" in counted
    assert "_gk_made([True] * n)" in counted and "sum(_gk_elems(is_prime))" in counted
    worker = _Worker(CASES / "pow_loop_n.py")
    [run] = probes.probe_practice_cost(worker, "leetcode.count_primes", counted, "count_primes", [[100]],
                                       10**6, 10**6)
    assert run["status"] == "ok" and run["depth"] == 1 and run["peak"] >= 100
    # the copy computes what the student's code computes (counters that count nothing)
    home = dict(vars(worker.module)) | {name: (lambda value=None: value) for name in (
        "_gk_loop", "_gk_elems", "_gk_made", "_gk_tick", "_gk_enter", "_gk_exit")}
    exec(compile(counted, "counted", "exec"), home)
    assert home["count_primes"](100) == worker.module.count_primes(100) == 25
    assert home["my_pow"](2.0, -2) == 0.25
    assert costmeter.counted_source("def broken(:\n") is None


def test_counts_are_deterministic_and_a_runaway_call_is_stopped_at_the_budget() -> None:
    first, again = (_measure(CASES / "pow_loop_n.py", "my_pow") for _ in range(2))
    assert first.runs == again.runs and first.usable
    assert [r.steps for r in first.runs[:3]] == [101, 201, 401]
    worker = _Worker(CASES / "pow_loop_n.py")
    counted = costmeter.counted_source((CASES / "pow_loop_n.py").read_text(encoding="utf-8"))
    [run] = probes.probe_practice_cost(worker, "leetcode.my_pow", counted, "my_pow", [[1.0, 10**9]], 10,
                                       5_000)
    assert run["status"] == "budget" and run["steps"] == 5_001


def test_a_recursion_n_deep_is_measured_until_pythons_limit() -> None:
    found = _measure(CASES / "pow_recursive_n1.py", "my_pow")
    assert [(r.n, r.depth) for r in found.runs if r.status == "ok"] == [(100, 101), (200, 201), (400, 401),
                                                                        (800, 801)]
    assert found.runs[-1].n == 1_000 and found.runs[-1].status == "recursion"
    assert costmeter.judge(parse("O(1)"), "space", found).verdict == OVER  # type: ignore[union-attr]
    assert costmeter.judge(parse("O(n)"), "space", found).verdict == FITS  # type: ignore[union-attr]
    assert costmeter.judge(parse("O(n)"), "time", found).verdict == FITS  # type: ignore[union-attr]


def test_each_size_runs_afresh_under_pythons_own_recursion_limit() -> None:
    """A cache or memo filled at the last size does not carry over (the depth of an @cache halving
    recursion grows with log n at every size), a raised recursion limit does not let a recursion n deep run
    past Python's own, and the process keeps its limit; numpy's scalar slice writes count the elements
    written."""
    cached = _measure(CASES / "pow_cache_decorator_en.py", "my_pow")
    assert [r.depth for r in cached.runs if r.n in (1_000, 2_000, 256_000)] == [12, 13, 20]
    limit = sys.getrecursionlimit()
    raised = _measure(CASES / "pow_recursion_limit_raised_en.py", "my_pow")  # its import sets 1,000,000
    found, _ = sys.getrecursionlimit(), sys.setrecursionlimit(limit)
    assert found == 1_000_000  # what the probe found, put back after each call
    assert [(r.n, r.status) for r in raised.runs][-2:] == [(800, "ok"), (1_000, "recursion")]
    numpy_sieve = _measure(CASES / "sieve_numpy_ko.py", "count_primes")
    assert costmeter.judge(parse("O(n log log n)"), "time", numpy_sieve).verdict == FITS  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("points", "claim", "verdict"),
    [
        ([(n, n + 1) for n in (1_000, 2_000, 8_000, 64_000)], "O(log n)", OVER),  # doubles with n
        ([(n, n + 1) for n in (1_000, 2_000, 8_000, 64_000)], "O(n)", FITS),
        ([(n, n.bit_length()) for n in (1_000, 2_000, 8_000, 64_000)], "O(log n)", FITS),
        ([(n, n.bit_length()) for n in (1_000, 2_000, 8_000, 64_000)], "O(1)", OVER),  # log n: not O(1)
        ([(n, n.bit_length()) for n in (1_000, 2_000, 8_000, 64_000)], "O(n)", UNDER),  # loose, not refuted
        ([(n, 7) for n in (1_000, 2_000, 8_000, 64_000)], "O(1)", FITS),
        ([(n, int(n ** 0.5)) for n in (1_000, 2_000, 8_000, 64_000)], "O(√n)", FITS),
        ([(n, int(n ** 0.75)) for n in (1_000, 2_000, 8_000, 64_000)], "O(n)", "between"),
        # trial division's steps as counted (n^1.3 at these sizes), logged as the sieve's bound
        ([(1_000, 6_286), (2_000, 15_396), (4_000, 37_952), (8_000, 94_779), (16_000, 238_677)],
         "O(n log log n)", OVER),
    ],
    ids=["linear-vs-log", "linear-vs-n", "log-vs-log", "log-vs-1", "log-vs-n", "flat-vs-1", "sqrt",
         "between", "trial-division-vs-sieve"],
)
def test_a_claim_against_counts(points: list[tuple[int, int]], claim: str, verdict: str) -> None:
    assert costmeter.judge_series(parse(claim), "steps", points).verdict == verdict


def test_issue_cases_get_a_tas_verdict_from_the_measured_code() -> None:
    """The issue's families, claims held to the code as it runs: the numbers shown in both languages."""
    loop = _review("pow_loop_n")
    assert _sure(loop) == [(1, "time", "complexity_inconsistent")] and loop.points == MAX_POINTS - 0.25
    [f] = [f for f in loop.findings if f.code == "complexity_inconsistent"]
    assert "n = 1,000 → 1,001 steps; n = 2,000 → 2,001 steps" in f.message_en and "O(n)" in f.message_en
    assert "n = 1,000 → 1,001단계; n = 2,000 → 2,001단계" in f.message_ko
    assert loop.problems[0].held_by == {"time": "measured", "space": "measured"}
    assert loop.measured["my_pow"]["runs"][4] == {"n": 1_000, "steps": 1_001, "depth": 1,
                                                  "peak": loop.measured["my_pow"]["runs"][4]["peak"],
                                                  "status": "ok"}
    # x * pow(x, n - 1) with "O(1) space": the space claim is not met (depth n), the time claim O(n) is
    rec = _review("pow_recursive_n1")
    assert _sure(rec) == [(1, "space", "complexity_inconsistent")] and rec.points == MAX_POINTS - 0.25
    [f] = [f for f in rec.findings if f.code == "complexity_inconsistent"]
    assert "n = 800 → recursion depth 801" in f.message_en and "RecursionError" in f.message_en
    assert "재귀 깊이 801" in f.message_ko
    assert rec.problems[0].held_by == {"time": "measured", "space": "measured"}
    # a segmented sieve with O(√n) space: met, as measured; Roman by per-digit tables (not measured): met, by
    # the approach the log names
    sieve = _review("sieve_segmented")
    assert sieve.points == MAX_POINTS and _sure(sieve) == []
    assert sieve.problems[0].held_by["space"] == "measured"
    roman = _review("roman_tables")
    assert roman.points == MAX_POINTS and _sure(roman) == []
    assert roman.problems[0].held_by == {"time": "catalog", "space": "catalog"}
    assert roman.measured["int_to_roman"]["why"][0] == "num is at most 3,999 on LeetCode"


def test_counts_between_fitting_and_contradicting_go_to_a_ta_and_take_nothing() -> None:
    runs = [Run(n, int(n ** 0.75), 1, 64) for n in (100, 1_000, 8_000, 64_000)]
    log = (CASES / "pow_loop_n.md").read_text(encoding="utf-8").replace("O(log n)", "O(n)", 1)
    r = review_log(log, sources={"leetcode": (CASES / "pow_loop_n.py").read_text(encoding="utf-8")},
                   measure=lambda fn: Measurement(fn, runs) if fn == "my_pow" else None)
    [f] = [f for f in r.findings if f.severity == "unsure"]
    assert (f.problem, f.field, f.code) == (1, "time", "unsure_measured") and r.points == MAX_POINTS
    assert _group_of(f.code, f.field or "") == "catalog" and check_key(vars(f)) == "problem1/time/measured"


def test_nothing_measured_leaves_the_logs_words_and_says_so() -> None:
    """Without counts the code is not read: the claim goes by the approach the log names (none here, so
    every described one), never sure against the student without evidence; a finding says why."""
    def unmeasured(fn: str) -> Measurement:
        return Measurement(fn, why=("the function could not be run (ImportFailed)", "함수를 실행하지 못함"))

    code = (CASES / "pow_loop_n.py").read_text(encoding="utf-8")
    log = (CASES / "pow_loop_n.md").read_text(encoding="utf-8")
    r = review_log(log, sources={"leetcode": code}, measure=unmeasured)
    assert r.points == MAX_POINTS and _sure(r) == [] and r.problems[0].held_by["time"] == "catalog"
    loose = review_log(log.replace("O(log n) — the loop is fast", "O(n) — one multiplication per unit of n"),
                       sources={"leetcode": code}, measure=unmeasured)
    [f] = [f for f in loose.findings if f.code == "complexity_worse"]
    assert "my_pow was not measured: the function could not be run (ImportFailed)" in f.message_en


def test_a_real_grade_measures_the_students_function_in_the_worker(tmp_path: Path) -> None:
    """The reference with my_pow looping n times, its log still saying O(log n): the hidden catalog check
    fails with the counts the worker measured; the reference's count_primes is measured and met."""
    sub = tmp_path / "sub"
    shutil.copytree(ROOT / "solutions", sub, ignore=shutil.ignore_patterns("__pycache__"))
    code = (sub / "leetcode.py").read_text(encoding="utf-8")
    start, end = code.index("    result = 1.0\n    while n:"), code.index("    return result\n")
    (sub / "leetcode.py").write_text(
        code[:start] + "    result = 1.0\n    for _ in range(n):\n        result *= x\n" + code[end:],
        encoding="utf-8")
    results = grade(sub, keyword="leetcode_log")
    log = results["artifacts"]["leetcode_log"]
    assert [p["held_by"] for p in log["problems"]] == [{"time": "measured", "space": "measured"}] * 2
    assert log["measured"]["my_pow"]["runs"][4]["steps"] == 1_001
    failed = [t for t in results["tests"] if t["task"] == "leetcode_log" and t["status"] != "passed"]
    assert [t["id"].split("::")[-1] for t in failed] == ["test_log[problem1-catalog]"]
    assert "n = 1,000 → 1,001 steps; n = 2,000 → 2,001 steps" in failed[0]["messages"]["en"]
    assert "1,001단계" in failed[0]["messages"]["ko"]


_OPERATORS_AND_BINDINGS = '''
class Solution:
    def countPrimes(self, n: int) -> int:
        nums = list(range(n))
        nums.remove(n - 1)
        seen = set(nums)
        seen.remove(0)
        return (1 << (64 * n)).bit_length()


count_primes = Solution().countPrimes
'''


def test_operators_a_sequences_remove_and_a_name_bound_to_a_method_are_counted(tmp_path: Path) -> None:
    """Round 9: an operator's result is made (a big int's 64-bit words), a list's remove searches it (a
    set's hashes), and 'count_primes = Solution().countPrimes' is counted through the counted class."""
    path = tmp_path / "leetcode.py"
    path.write_text(_OPERATORS_AND_BINDINGS, encoding="utf-8")
    counted = costmeter.counted_source(_OPERATORS_AND_BINDINGS)
    assert counted is not None
    assert "_gk_made(1 << _gk_made(64 * n))" in counted and "_gk_scan(nums).remove(" in counted
    assert "def count_primes(*args, **kwargs):" in counted
    assert costmeter.hidden(_OPERATORS_AND_BINDINGS, "count_primes") is None
    [run] = probes.probe_practice_cost(_Worker(path), "leetcode.count_primes", counted, "count_primes",
                                       [[100]], 10**6, 10**6)
    # two calls entered (the bound name's and the method's); list(range(n)), the list's remove, set(nums) of
    # the 99 left, the int's n words; the set's remove none
    assert run["status"] == "ok" and run["steps"] == 2 + 100 + 100 + 99 + 100
