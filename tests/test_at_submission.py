"""A deduction a public run already knows the hidden checks will take is shown with its amount wherever a
student reads a score, and that amount is what the hidden run takes (report/pending.py).

The submission is the reference whose LeetCode log names 202. Happy Number (Easy) as its second problem:
its public log checks pass, and the hidden task-fit check takes 0.5 at submission. Only the log is
graded (-k leetcode_log): a second or two per grade.
"""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from grader.jupyter.check import CheckResult
from grader.report.pending import pending
from grader.report.render import render_html, render_markdown
from grader.report.terminal import summary_renderables, watch_lines
from grader.report.text import text_summary
from lesson_embedding_pe.leetlog.review import TASK_FIT_PENALTY
from tests.conftest import ROOT, computed_once, grade


def _easy_log(folder: Path) -> Path:
    sub = folder / "sub"
    shutil.copytree(ROOT / "solutions", sub)
    log = (sub / "LEETCODE_LOG.md").read_text(encoding="utf-8")
    head, second = log.split("## Problem 2", 1)
    second = second.replace("204. Count Primes", "202. Happy Number").replace(
        "- **Difficulty:** Medium", "- **Difficulty:** Easy", 1)
    second = re.sub(r"(- \*\*Time complexity:\*\*) [^\n]*",
                    r"\1 O(log n): the digit-square sum of n has O(log n) digits.", second)
    second = re.sub(r"(- \*\*Space complexity:\*\*) [^\n]*", r"\1 O(1): two pointers keep two numbers.",
                    second)
    (sub / "LEETCODE_LOG.md").write_text(head + "## Problem 2" + second, encoding="utf-8")
    return sub


@pytest.fixture(scope="module")
def easy(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    def both() -> dict:
        sub = _easy_log(tmp_path_factory.mktemp("easy"))
        return {"public": grade(sub, hidden=False, keyword="leetcode_log"),
                "hidden": grade(sub, hidden=True, keyword="leetcode_log")}
    return computed_once(tmp_path_factory, "easy_log_at_submission", both)


def _terminal(results: dict, lang: str) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    for item in summary_renderables(results, lang, "sub"):
        console.print(item)
    return console.file.getvalue()


def test_the_amount_shown_is_what_the_hidden_run_takes(easy):
    public, hidden = easy["public"], easy["hidden"]
    log = public["tasks"]["leetcode_log"]
    assert log["score"] == log["max_score"], "every public log check passes"
    shown = pending(public, "en")
    assert shown and [i["points"] for i in shown["items"]] == [TASK_FIT_PENALTY]
    full = hidden["tasks"]["leetcode_log"]
    assert full["max_score"] - full["score"] == shown["points"] == 0.5
    assert pending(hidden, "en") is None, "a run with the hidden suite has taken it already"


@pytest.mark.parametrize("lang,head,tag", [
    ("en", "When you submit, the hidden checks take −0.5 more", "−0.5 when you submit"),
    ("ko", "숨은 검사에서 0.5점이 더 깎입니다", "제출할 때 −0.5"),
])
def test_every_place_a_score_is_read_shows_it_with_its_amount(easy, lang, head, tag):
    public, hidden = easy["public"], easy["hidden"]
    result = CheckResult(public, lang, None)
    html = render_html(public, lang, "sub")
    places = {"terminal": _terminal(public, lang), "summary.txt": text_summary(public, lang, "sub"),
              "feedback.html": html, "feedback.md": render_markdown(public, lang, "sub"),
              "check()": result._repr_html_(), "check() text": repr(result),
              "grade --watch": "\n".join(watch_lines(public, lang, "sub"))}
    for place, text in places.items():
        assert head in text and "Happy Number" in text, place
        # no "nothing to fix" beside a deduction still to come
        assert "Nothing to fix" not in text and "고칠 것이 없습니다" not in text, place
    # the log block: its total, the problem's row and the finding carry the amount
    block = html[html.index('id="log-points"'):]
    assert block.count(tag) == 3, block
    for text in (render_html(hidden, lang, "sub"), _terminal(hidden, lang)):
        assert head not in text and tag not in text


def test_a_big_o_warning_carries_the_points_its_hidden_check_takes():
    """A time complexity worse than the best known warns on a public run; the hidden catalog check takes
    its group's points, and that is the amount shown (one number: loggrade.HIDDEN_GROUPS)."""
    from lesson_embedding_pe.leetlog import review_log
    from lesson_embedding_pe.loggrade import HIDDEN_GROUPS, at_submission

    log = (ROOT / "solutions" / "LEETCODE_LOG.md").read_text(encoding="utf-8")
    worse = log.replace("- **Time complexity:** O(log n) — n is halved",
                        "- **Time complexity:** O(n) — n is halved", 1)
    assert worse != log
    entries = at_submission(review_log(worse))
    catalog = next(g for g in HIDDEN_GROUPS if g.name == "catalog")
    assert [(e["problem"], e["group"], e["points"]) for e in entries] == [(1, "catalog", catalog.points)]
    assert "complexity_worse" in entries[0]["codes"] and "O(n)" in entries[0]["en"]
    assert at_submission(review_log(log)) == []  # the reference's log loses nothing at submission
