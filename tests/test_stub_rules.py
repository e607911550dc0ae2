"""The public suite checks what the stubs' docstrings spell out, and the hidden suite calls every LeetCode
function past its small cases: each rule broken in a real submission (the reference with one
edit, or a corpus case), graded by the real grader, loses points with a message saying the rule, in both
languages.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import CORPUS, ROOT, grade


def variant(tmp_path: Path, file: str, old: str, new: str) -> Path:
    """solutions/ with one edit in ``file``."""
    out = tmp_path / "sub"
    shutil.copytree(ROOT / "solutions", out)
    text = (out / file).read_text(encoding="utf-8")
    assert old in text, old
    (out / file).write_text(text.replace(old, new, 1), encoding="utf-8")
    return out


def failing(results: dict, words_en: str, words_ko: str) -> list[dict]:
    """The failed checks saying ``words_en`` (and ``words_ko`` in Korean); asserts there is one."""
    found = [t for t in results["tests"] if t["status"] != "passed" and words_en in t["messages"]["en"]]
    assert found, [t["messages"]["en"] for t in results["tests"] if t["status"] != "passed"]
    assert all(words_ko in t["messages"]["ko"] for t in found), [t["messages"]["ko"] for t in found]
    return found


def test_t_equal_to_max_len_works_and_longer_raises(tmp_path: Path) -> None:
    sub = variant(tmp_path, "embedding.py", "if T > self.max_len:", "if T >= self.max_len:")
    results = grade(sub, hidden=False, keyword="test_too_long_is_index_error")
    (check,) = failing(results, "T == max_len is allowed", "T == max_len은 허용")
    assert check["id"].startswith("public/") and check["score"] == 0


@pytest.mark.parametrize("case,test,words_en,words_ko", [
    ("bug_unknown_mode_silent", "test_unknown_mode_is_value_error", "ValueError", "ValueError"),
    ("bug_reversal_causal_mask", "test_no_causal_mask", "causal mask", "causal 마스크"),
    ("bug_leetcode_primes_inclusive", "count_primes", "count_primes(13): expected 5; found 6",
     "count_primes(13)"),
])
def test_the_public_suite_catches_what_the_stub_says(case: str, test: str, words_en: str,
                                                     words_ko: str) -> None:
    results = grade(CORPUS / case, hidden=False, keyword=test)
    checks = failing(results, words_en, words_ko)
    assert all(t["id"].startswith("public/") for t in checks)


def test_my_pow_by_pythons_power_loses_the_public_points(tmp_path: Path) -> None:
    source = (ROOT / "solutions" / "leetcode.py").read_text(encoding="utf-8")
    start = source.index("def my_pow")
    end = source.index("\ndef ", start + 1)
    one_line = 'def my_pow(x: float, n: int) -> float:\n    """x to the n."""\n    return x ** n\n\n'
    sub = tmp_path / "sub"
    shutil.copytree(ROOT / "solutions", sub)
    (sub / "leetcode.py").write_text(source[:start] + one_line + source[end + 1:], encoding="utf-8")
    results = grade(sub, hidden=False, keyword="my_pow")
    checks = failing(results, "my_pow hands the power to Python (`x ** n`",
                     "my_pow가 거듭제곱을 파이썬에 맡깁니다")
    assert len(checks) == 2 and "repeated squaring" in checks[0]["messages"]["en"]
    # the reference (repeated squaring) keeps its points: the rule refuses Python's power, not a square
    assert grade(ROOT / "solutions", hidden=False, keyword="my_pow")["score"] == 2.0


def test_the_hidden_suite_times_out_a_count_primes_that_hangs_past_small_n(tmp_path: Path) -> None:
    """Right for every n the public and the old hidden cases used below 17, hanging above: the mid-size
    prime case (997) loses its points too, not only the 5,000,000 one."""
    doc = '    """Number of primes strictly below n (sieve of Eratosthenes)."""\n'
    sub = variant(tmp_path, "leetcode.py", doc, doc + "    while n >= 17:\n        pass\n")
    results = grade(sub, hidden=True, keyword="test_edge_cases and count_primes")
    lost = {t["id"] for t in results["tests"] if t["status"] != "passed"}
    assert any("count_primes(997,)" in i for i in lost), lost
    assert any("count_primes(5000000,)" in i for i in lost), lost
    assert not any("count_primes(2,)" in i or "count_primes(3,)" in i for i in lost), lost
    # the timeout says what timed out, in both languages
    (mid,) = [t for t in results["tests"] if "count_primes(997,)" in t["id"]]
    assert "`count_primes(997)` gave no answer within" in mid["messages"]["en"], mid["messages"]["en"]
    assert "`count_primes(997)`이" in mid["messages"]["ko"], mid["messages"]["ko"]
