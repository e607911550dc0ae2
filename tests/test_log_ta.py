"""Sure or ask, end to end: a log part the reader cannot place costs nothing, the student is told a TA
reads it, and the class summary lists it for the TA (lesson_embedding_pe/leetlog/unsure.py)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

from grader.cli import main as grade_cli
from tests.conftest import ROOT


def test_an_unsure_log_part_costs_nothing_and_reaches_the_ta(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    shutil.copytree(ROOT / "solutions", subs / "bob", ignore=shutil.ignore_patterns("__pycache__"))
    log = subs / "bob" / "LEETCODE_LOG.md"
    log.write_text(log.read_text(encoding="utf-8").replace("O(log n)", "log n time", 1), encoding="utf-8")
    out = tmp_path / "out"
    assert grade_cli(["batch", str(subs), "--out", str(out), "--public-only", "-k", "leetcode_log", "-j", "1",
                      "-q", "--lang", "en"]) == 0
    results = json.loads((out / "bob" / "results.json").read_text(encoding="utf-8"))
    task = results["tasks"]["leetcode_log"]
    assert task["score"] == task["max_score"] > 0  # no point taken for what the reader could not place
    unsure = [f for f in results["artifacts"]["leetcode_log"]["findings"] if f["severity"] == "unsure"]
    assert [f["field"] for f in unsure] == ["time"]
    html = (out / "bob" / "feedback.html").read_text(encoding="utf-8")
    assert "A TA will read 1 part(s) of your log" in html and "a TA reads this" in html
    md = (out / "bob" / "feedback.md").read_text(encoding="utf-8")
    assert "A TA will read 1 part(s) of your log" in md
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert "LeetCode log parts a TA reads" in summary and "log n time" in summary
    book = list(csv.DictReader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8-sig"))))
    assert float(book[0]["leetcode_log"]) == task["max_score"]
