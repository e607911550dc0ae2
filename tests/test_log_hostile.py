"""A log built to hurt the reader gets a review, never a crash, and costs no more than its length says:
runs of blanks read as a blank, braces nested past any formula read as the characters they are, and a
file of megabytes is read up to review.READ_AT_MOST with a warning that says so (bench/bench_log_hostile.py
measures the time)."""

from __future__ import annotations

from pathlib import Path

from lesson_embedding_pe.leetlog import review_log
from lesson_embedding_pe.leetlog.review import READ_AT_MOST

ROOT = Path(__file__).resolve().parents[1]
LOG = (ROOT / "examples" / "reference" / "LEETCODE_LOG.md").read_text(encoding="utf-8")


def _verdict(text: str) -> tuple[float, list[tuple[str, str | None, str]]]:
    review = review_log(text)
    return review.points, [(f.code, f.field, f.message_en) for f in review.findings]


def _in_first_claim(run: str) -> str:
    assert "O(log n)" in LOG
    return LOG.replace("O(log n)", "O(log n)" + run, 1)


def test_a_run_of_blanks_reads_as_a_blank() -> None:
    assert _verdict(_in_first_claim(" " * 30_000)) == _verdict(_in_first_claim(" ")) == _verdict(LOG)
    assert _verdict(_in_first_claim("\t" * 30_000)) == _verdict(LOG)


def test_braces_nested_past_any_formula_are_read_not_a_crash() -> None:
    # a recursion 2,000 deep stopped the whole log review ("a grader problem"), 0 of its points
    points, findings = _verdict(_in_first_claim(" $\\mathcal{" * 2_000 + "{" * 2_000))
    assert points == _verdict(LOG)[0]
    assert all(code != "bad_bigo" for code, _, _ in findings)


def test_a_log_past_the_limit_is_read_up_to_it_and_says_so() -> None:
    filler = "Notes I kept while practising, copied here in full.\n" * (2 * READ_AT_MOST // 50)
    review = review_log(LOG + "\n" + filler)
    assert review.points == review_log(LOG).points
    cut = [f for f in review.findings if f.code == "log_cut"]
    assert len(cut) == 1 and cut[0].severity == "warning"
    length = f"{len(LOG) + 1 + len(filler):,}"
    assert length in cut[0].message_en and length in cut[0].message_ko
    assert cut[0].line is not None and cut[0].line <= READ_AT_MOST // 50 + LOG.count("\n") + 1


def test_unclosed_comments_and_line_breaks_by_the_thousand_leave_the_log_its_points() -> None:
    assert _verdict(_in_first_claim(" —" + "<br>" * 10_000))[0] == _verdict(LOG)[0]
    # an unclosed comment hides what follows, as a Markdown renderer does: never more than the log had
    assert _verdict(_in_first_claim(" <!--" * 10_000))[0] <= _verdict(LOG)[0]
