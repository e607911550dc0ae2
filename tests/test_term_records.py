"""The term's records, fast: the roster read by header or by content, every file of a student
agreeing with the gradebook after each kind of decision and its undo, a missing student excused, a
merge that refuses conflicting TA decisions.  The class is tests/decisions_class.py's (already-graded
results, no grading runs); tests/test_decisions.py runs the roster and a rerun on a real batch.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
from pathlib import Path

import pytest

from grader.cli import main as grade_cli
from grader.instructor import merge as merge_command
from grader.instructor.batch.roster import RosterError, read_roster
from grader.instructor.term.errors import TermError
from grader.instructor.term.records import ADJUSTMENTS, REVIEWS, Decision, write_reviews
from grader.report import write_reports
from grader.report.text import text_summary
from tests.decisions_class import FINDING_SIGNAL, HELD, MAX, Student, write_class

FOLDERS = {"alice", "bob", "carol"}


@pytest.mark.parametrize(("text", "column"), [
    ("id,name,submission\n1,Alice Kim,alice\n2,Bob Lee,bob\n", "submission"),  # the order
    ("submission,id\nalice,1\nbob,2\n", "submission"),
    ("id,name\n1,alice\n2,bob\n", "name"),  # a name column holding the folder names
    ("학번,이름,제출물\n1,김민준,alice.zip\n2,이서연,bob\n", "제출물"),
    ("Student ID,Full Name,GitHub\n1,Alice Kim,alice\n2,Bob Lee,bob\n", "GitHub"),
    ("1,alice\n2,bob\n", "column 2"),  # no header: the column whose values are folders
])
def test_roster_columns_by_header_in_any_order_or_by_content(tmp_path: Path, text: str, column: str) -> None:
    (tmp_path / "roster.csv").write_text(text, encoding="utf-8")
    roster = read_roster(tmp_path / "roster.csv", FOLDERS)
    assert roster.ids == {"alice": "1", "bob": "2"} and roster.submission_column == column
    assert roster.matched(FOLDERS) == 2 and "2 of 2 students matched" in roster.said(FOLDERS)


def test_roster_column_named_or_refused(tmp_path: Path) -> None:
    (tmp_path / "roster.csv").write_text("sid,handle,nick\n1,alice,al\n", encoding="utf-8")
    assert read_roster(tmp_path / "roster.csv", FOLDERS, "nick").ids == {"al": "1"}  # as told
    assert read_roster(tmp_path / "roster.csv", FOLDERS).ids == {"alice": "1"}  # found by content
    with pytest.raises(RosterError, match="not a column"):
        read_roster(tmp_path / "roster.csv", FOLDERS, "login")


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = grade_cli(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def klass(tmp_path: Path) -> Path:
    """ann (8 of 10), cy flagged (2 points withheld, verdict passed), and zoe on the roster only; each
    graded student's pages and summary.txt written as a batch's child writes them."""
    out = write_class(tmp_path / "class", [Student("ann", 8.0), Student("cy", 8.0, True, (FINDING_SIGNAL,))])
    manifest = json.loads((out / "batch-manifest.json").read_text())
    manifest.update(roster={"ann": "a1", "cy": "c1", "zoe": "z1"}, roster_missing=["zoe"])
    (out / "batch-manifest.json").write_text(json.dumps(manifest))
    for name in ("ann", "cy"):
        results = dict(json.loads((out / name / "results.json").read_text()), suites=["public"], duration=1.0)
        (out / name / "results.json").write_text(json.dumps(results))
        write_reports(results, out / name, "en", "")
        (out / name / "summary.txt").write_text(text_summary(results, "en", ""), encoding="utf-8")
    return out


def _files(out: Path, name: str) -> dict:
    """What every file of one student says of their total, and the gradebook's row."""
    book = {r["submission"]: r for r in csv.DictReader(io.StringIO(
        (out / "gradebook.csv").read_text(encoding="utf-8-sig")))}
    rows = {r["submission"]: r for r in json.loads((out / "class.json").read_text())["rows"]}
    d = out / name
    return {"book": book[name], "class": rows[name], "results": json.loads((d / "results.json").read_text()),
            "gs": json.loads((d / "gradescope.json").read_text()),
            "md": (d / "feedback.md").read_text(encoding="utf-8"),
            "html": (d / "feedback.html").read_text(encoding="utf-8"),
            "txt": (d / "summary.txt").read_text(encoding="utf-8"),
            "summary": (out / "summary.html").read_text(encoding="utf-8")}


def _agree(out: Path, name: str, total: str, task: str) -> dict:
    """Every file of ``name`` leads with ``total`` of MAX and shows its task at ``task``."""
    f = _files(out, name)
    assert f["book"]["total"] == total and f["book"]["pe"] == task
    assert str(f["class"]["total"]) in (total, f"{float(total):.1f}" if total != "EX" else "EX")
    assert f"{f['class']['tasks']['pe']:g}" == task
    final = f["results"].get("final") or {"total": f["results"]["score"]}  # none: no term, no step
    assert f"{final['total']}".removesuffix(".0") == total
    assert f"— {total} / {MAX:g}" in f["md"] and f"| {task} / {MAX:g} |" in f["md"]
    assert f'id="score">{total} <span' in f["html"]
    assert f"  {total} / {MAX:g}  [" in f["txt"] and f"{task} / {MAX:g}" in f["txt"]
    if total == "EX":
        assert "score" not in f["gs"] and f["gs"]["extra_data"] == {"excused": True}
    else:
        assert f["gs"]["score"] == float(total)
    return f


def test_every_file_agrees_after_each_decision_and_its_undo(klass: Path) -> None:
    out = klass
    assert _cli("term", str(out), "-q")[0] == 0  # the first render: the pages for the student's copy
    held = f"{8.0 - HELD:g}"
    _agree(out, "cy", held, held)
    # an accept restores the withheld points: the headline, the task table, the task column agree
    assert _cli("review", str(out), "cy", "--accept", "--reason", "signal is a timer only", "-q")[0] == 0
    f = _agree(out, "cy", "8", "8")
    assert "review accepted" in f["book"]["steps"] and "review accepted" in f["md"]
    assert "<td>8</td>" in f["summary"] or ">8<" in f["summary"]  # the class's task mean is 8 (both 8)
    # withdrawn: pending again everywhere, and the student reads no correction, only the pending review
    code, said, _ = _cli("review", str(out), "cy", "--withdraw", "--reason", "accepted by mistake")
    assert code == 0 and "withdrew the accept" in said and "pending again" in said
    f = _agree(out, "cy", held, held)
    assert "accepted by mistake" not in f["md"] + f["html"] + f["txt"] + json.dumps(f["results"])
    assert "withdrawn" in f["book"]["note"] and "accepted by mistake" in f["book"]["note"]  # the record
    assert "review pending" in f["book"]["steps"]
    # an excusal: EX on every page and file; withdrawn, the number again and no trace for the student
    assert _cli("adjust", str(out), "ann", "--excuse", "--reason", "medical leave", "-q")[0] == 0
    f = _agree(out, "ann", "EX", "8")
    assert "EX: excused by the instructor" in f["gs"]["output"] and f["class"]["excused"] is True
    assert '>a1</a></td>\n<td class="n">EX <span' in f["summary"]  # the class page's Everyone table
    assert _cli("adjust", str(out), "ann", "1.5", "--reason", "regrade request", "-q")[0] == 0
    code, said, _ = _cli("adjust", str(out), "ann", "--withdraw", "--reason", "entered twice by mistake")
    assert code == 0 and "withdrew the points 1.5" in said  # the latest that counts: the 1.5
    _agree(out, "ann", "EX", "8")
    rows = list(csv.DictReader(io.StringIO((out / ADJUSTMENTS).read_text())))
    excusal = next(r for r in rows if r["kind"] == "excused")
    assert _cli("adjust", str(out), "ann", "--withdraw", excusal["when"], "--reason", "wrong student",
                "-q")[0] == 0
    f = _agree(out, "ann", "8", "8")
    for text in ("entered twice by mistake", "wrong student", "medical leave", "regrade request"):
        assert text not in f["md"] + f["html"] + f["txt"] + json.dumps(f["results"]) + f["gs"]["output"]
    assert len(list(csv.DictReader(io.StringIO((out / ADJUSTMENTS).read_text())))) == 4  # all kept
    assert _cli("adjust", str(out), "ann", "--withdraw", "--reason", "x", "-q")[0] == 2  # nothing left


def test_a_missing_student_can_be_excused_or_scored_and_is_exported_so(klass: Path, tmp_path: Path) -> None:
    out = klass
    assert _cli("term", str(out), "-q")[0] == 0
    assert _files(out, "ann")["book"]["total"] == "8"
    assert _cli("adjust", str(out), "zoe", "--excuse", "--reason", "joined late", "-q")[0] == 0
    rows = {r["submission"]: r for r in json.loads((out / "class.json").read_text())["rows"]}
    assert (rows["zoe"]["status"], rows["zoe"]["total"]) == ("missing", "EX")
    assert _cli("review", str(out), "zoe", "--accept", "--reason", "x", "-q")[0] == 2  # nothing to review
    assert _cli("adjust", str(out), "zoe", "--withdraw", "--reason", "she did sit it", "-q")[0] == 0
    assert _cli("adjust", str(out), "zoe", "--set", "5", "--reason", "oral exam", "-q")[0] == 0
    assert _files(out, "ann")["summary"]  # the class page renders a missing student's set score
    assert _cli("review", str(out), "cy", "--accept", "--reason", "ok", "-q")[0] == 0
    moodle = tmp_path / "moodle.csv"
    code, _, err = _cli("export", "moodle", str(out), "--item", "HW1", "--out", str(moodle))
    assert code == 0, err
    sent = {r["idnumber"]: r["HW1"] for r in csv.DictReader(io.StringIO(moodle.read_text()))}
    assert sent == {"a1": "8", "c1": "8", "z1": "5"}


def test_export_lists_every_blocker_in_one_run(klass: Path, tmp_path: Path) -> None:
    out = klass
    (tmp_path / "policy.toml").write_text('due = 2026-03-10T23:59:00+09:00\n', encoding="utf-8")
    assert _cli("term", str(out), "--policy", str(tmp_path / "policy.toml"), "-q")[0] == 0
    assert _cli("adjust", str(out), "ann", "3", "--above-max", "--reason", "best write-up", "-q")[0] == 0
    code, _, err = _cli("export", "moodle", str(out), "--item", "HW1", "--out", str(tmp_path / "m.csv"))
    assert code == 2 and not (tmp_path / "m.csv").exists()
    assert f"grade review {out} c1 --accept|--reject" in err  # cy's pending review, with its command
    assert f"grade term {out} --submitted-at" in err  # the unknown times
    assert "total 11 is above the maximum 10" in err  # Moodle's maximum
    assert "4 total(s) are not final yet" in err  # ann's and cy's unknown times, cy's review, ann's 11


def test_merge_refuses_conflicting_ta_decisions_naming_both(tmp_path: Path) -> None:
    one, two = (write_class(tmp_path / n, [Student("bob", 10.0)]) for n in ("one", "two"))
    write_reviews(one / REVIEWS, [Decision("bob", "take", "not O(...)", "2026-03-12T10:00:00+00:00", "h1", "",
                                           "", "problem1/time")])
    write_reviews(two / REVIEWS, [Decision("bob", "confirm", "reads fine", "2026-03-12T11:00:00+00:00", "h1",
                                           "", "", "problem1/time")])
    with pytest.raises(TermError) as refused:
        merge_command.merge([one, two], tmp_path / "merged")
    said = str(refused.value)
    assert "bob (check problem1/time)" in said and "take of 2026-03-12T10:00:00+00:00 (not O(...))" in said
    assert "confirm of 2026-03-12T11:00:00+00:00 (reads fine)" in said and "--prefer" in said
    assert not (tmp_path / "merged").exists()
    count, warnings = merge_command.merge([one, two], tmp_path / "merged", prefer=two)
    assert count == 1 and any("dropped the take" in w for w in warnings)


def test_the_times_counter_says_what_changed(tmp_path: Path) -> None:
    from datetime import datetime

    from grader.instructor.term.times import merge_times

    def at(day: int) -> datetime:
        return datetime.fromisoformat(f"2026-03-{day:02d}T20:00:00+09:00")

    stored = tmp_path / "submitted_at.csv"
    first, _ = merge_times(stored, {"ann": at(10), "cy": at(11)}, "times.csv")
    assert first.words().startswith("2 added, 0 changed, 0 unchanged, 0 kept")
    again, replaced = merge_times(stored, {"ann": at(10), "cy": at(11)}, "times.csv")
    assert again.words().startswith("0 added, 0 changed, 2 unchanged, 0 kept") and not replaced
    fix, replaced = merge_times(stored, {"cy": at(12), "di": at(10)}, "fix.csv")
    assert fix.words().startswith("1 added, 1 changed, 0 unchanged, 1 kept") and len(replaced) == 1


def test_an_import_crash_is_said_once_not_as_every_test(tmp_path: Path) -> None:
    from grader.engine.classmodel import load_graded
    from grader.report.classpages import gradebook_csv, test_rates

    out = write_class(tmp_path / "class", [Student("ann", 8.0), Student("bo", 0.0)])
    why = ("embedding.py could not be imported: SyntaxError: invalid syntax (line 3). Every test of this "
           "file fails")
    results = json.loads((out / "bo" / "results.json").read_text())
    results["tests"] = [dict(t, status="failed", score=0.0, message=why, id=f"public/test_pe.py::test_{i}",
                             messages={"en": why, "ko": "import 실패"})
                        for i, t in enumerate(results["tests"] * 30)]
    (out / "bo" / "results.json").write_text(json.dumps(results))
    model = load_graded(out)
    bo = model.row("bo")
    assert bo is not None and bo.graded
    assert bo.reason == ("graded: could not be imported: embedding.py could not be imported: SyntaxError: "
                         "invalid syntax (line 3).")
    rates = test_rates(model.rows)
    assert [r["id"] for r in rates].count("could not be imported / import 실패") == 1
    assert not any(r["id"].startswith("public/test_pe.py::test_") and r["n"] > 1 for r in rates)
    assert "could not be imported" in gradebook_csv(model)


def test_the_gradebook_grows_while_the_batch_runs(tmp_path: Path) -> None:
    from grader.instructor.batch import GrowingGradebook

    out = write_class(tmp_path / "class", [Student("ann", 8.0)])
    grow = GrowingGradebook(out, every=0.0)  # the batch calls it after each published submission
    grow()
    assert [r["submission"] for r in csv.DictReader(io.StringIO(
        (out / "gradebook.csv").read_text(encoding="utf-8-sig")))] == ["ann"]
    write_class(out, [Student("ann", 8.0), Student("bo", 6.0)])
    grow()
    assert "bo" in (out / "gradebook.csv").read_text(encoding="utf-8-sig")
    assert not (out / "summary.html").exists()  # the pages wait for the end
