"""`grade export canvas|moodle` on a real batch, checked against the importers' own rules.

canvas_reads() below follows Canvas's GradebookImporter (app/models/gradebook_importer.rb:
row_has_student_headers?, update_column_count, last_student_info_column, the "Points
Possible" row, NON_ASSIGNMENT_COLUMN_HEADERS): what it would take as student columns and
as assignments. moodle_reads() follows Moodle's CSV grade import (grade/import/csv): one
header row, an identifier column mapped to a user field, numeric grades.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pace
import pytest

from tests import batch_cli

ROOT = Path(__file__).resolve().parents[1]
NON_ASSIGNMENT = ("Current Score", "Current Points", "Current Grade", "Final Score", "Final Points",
                  "Final Grade", "Override Score", "Override Grade", "Override Status")

CANVAS_EXPORT = """Student,ID,SIS User ID,SIS Login ID,Section,Lesson 3: embeddings (4471),Quiz 1 (4402),\
Current Score,Final Grade
    Points Possible,,,,,94.5,10,(read only),(read only)
"Kim, Alice",101,2024001,a001,Section 1,,8,80,B
"Lee, Bob",102,s-bob,blee,Section 1,,9,90,A
"Park, Frank",103,2024003,fpark,Section 2,,7,70,C
"""


def canvas_reads(text: str) -> dict:
    """What Canvas's importer takes from a CSV, or raises like it ("Invalid header row")."""
    rows = [r for r in csv.reader(io.StringIO(text)) if r and not re.fullmatch(r"[;, ]*", ",".join(r))]
    header = rows[0]
    if not (len(header) > 3 and "Student" in header[0] and "ID" in header[1]):
        raise ValueError("Invalid header row")
    student_columns = 3
    if re.search(r"SIS\s+Login\s+ID", header[2]):
        student_columns += 1
    elif re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3]):
        student_columns += 2 + (1 if re.search(r"Integration\s+ID", header[4]) else 0)
    if "Section" not in header[student_columns - 1]:
        raise ValueError("Invalid header row")
    assignments = [h for h in header[student_columns:] if not any(n in h for n in NON_ASSIGNMENT)]
    points, students = None, []
    for r in rows[1:]:
        if "Points Possible" in r[0]:
            points = r
        else:
            students.append(r)
    return {"student_columns": header[:student_columns], "assignments": assignments, "points": points,
            "students": students, "header": header}


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real batch: alice (the solutions), bob (the buggy example), carol (stub), erin on the roster only."""
    tmp = tmp_path_factory.mktemp("export")
    subs = tmp / "subs"
    subs.mkdir()
    shutil.copytree(ROOT / "solutions", subs / "alice", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "examples" / "buggy", subs / "bob", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "exercises", subs / "carol", ignore=shutil.ignore_patterns("__pycache__"))
    roster = tmp / "roster.csv"
    roster.write_text("submission,id\nalice,a001\nbob,s-bob\ncarol,c-carol\nerin,e-erin\n")
    out = tmp / "out"
    proc = subprocess.run([sys.executable, "-m", "grader.cli", "batch", str(subs), "--out", str(out),
                           "--public-only", "-k", "test_pe", "--roster", str(roster), "-j", "2", "-q",
                           "--lang", "en"],
                          cwd=ROOT, capture_output=True, text=True, timeout=pace.seconds(600))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return out


def run_export(*args: str) -> subprocess.CompletedProcess:
    """`grade export ARGS` (in-process, as tests/batch_cli.py runs the commands that grade nothing)."""
    return batch_cli.grade("export", *args, ok=False)


def totals(batch: Path) -> dict[str, str]:
    with open(batch / "gradebook.csv", encoding="utf-8-sig", newline="") as fh:
        return {r["submission"]: r["total"] for r in csv.DictReader(fh)}


def test_the_batch_gradebook_is_what_canvas_rejects(batch: Path) -> None:
    with pytest.raises(ValueError, match="Invalid header row"):
        canvas_reads((batch / "gradebook.csv").read_text(encoding="utf-8-sig"))


def test_canvas_export_imports_as_is(batch: Path, tmp_path: Path) -> None:
    gradebook = tmp_path / "canvas.csv"
    gradebook.write_text(CANVAS_EXPORT)
    out = tmp_path / "import.csv"
    # Canvas's assignment is worth 94.5, the kit's totals 6: refused, both languages, nothing written
    proc = run_export("canvas", str(batch), "--gradebook", str(gradebook), "--assignment",
                      "Lesson 3: embeddings", "--out", str(out))
    assert proc.returncode == 2 and "is worth 94.5 points; the kit's totals are out of 6" in proc.stderr
    assert "--scale로" in proc.stderr and not out.exists()
    proc = run_export("canvas", str(batch), "--gradebook", str(gradebook), "--assignment",
                      "Lesson 3: embeddings", "--out", str(out), "--send-anyway")  # knowingly, as is
    assert proc.returncode == 0, proc.stderr
    read = canvas_reads(out.read_text())
    assert read["student_columns"] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    # exactly one column: the existing assignment's
    assert read["assignments"] == ["Lesson 3: embeddings (4471)"]
    assert read["header"] == [*read["student_columns"], "Lesson 3: embeddings (4471)"]  # nothing else
    want = totals(batch)
    by_login = {r[3]: r[5] for r in read["students"]}
    assert by_login["a001"] == want["alice"]                 # SIS Login ID = roster id
    assert by_login["blee"] == want["bob"]                   # SIS User ID = roster id
    assert by_login["fpark"] == ""                           # Canvas student without a submission: left blank
    # Canvas's own: importing never changes the assignment
    assert float(read["points"][5]) == 94.5
    assert len(read["students"]) == 3                        # every Canvas student, none dropped
    # listed on both sides, never silently dropped
    assert "Park, Frank" in proc.stderr and "carol" in proc.stderr
    side = (tmp_path / "import.csv.unmatched.csv").read_text()
    assert "Park, Frank" in side and "carol (c-carol)" in side
    assert "is worth 94.5 points; the kit's totals are out of 6" in proc.stderr  # still said
    proc = run_export("canvas", str(batch), "--gradebook", str(gradebook), "--assignment",
                      "Lesson 3: embeddings", "--out", str(out), "--scale")
    assert proc.returncode == 0, proc.stderr
    scaled = {r[3]: r[5] for r in canvas_reads(out.read_text())["students"]}
    assert float(scaled["a001"]) == pytest.approx(round(float(want["alice"]) * 94.5 / 6, 2))


def test_canvas_export_rejects_what_is_not_a_canvas_gradebook(batch: Path, tmp_path: Path) -> None:
    proc = run_export("canvas", str(batch), "--gradebook", str(batch / "gradebook.csv"), "--assignment", "x",
                      "--out", str(tmp_path / "o.csv"))
    assert proc.returncode == 2 and "not a Canvas gradebook export" in proc.stderr
    assert not (tmp_path / "o.csv").exists()


def test_moodle_export(batch: Path, tmp_path: Path) -> None:
    people = tmp_path / "people.csv"
    people.write_text("firstname,lastname,username,email,idnumber\nAlice,Kim,a001,alice@uni.example,2024001\n"
                      "Bob,Lee,blee,bob@uni.example,s-bob\nDan,Cho,dcho,dan@uni.example,2024009\n")
    out = tmp_path / "moodle.csv"
    proc = run_export("moodle", str(batch), "--item", "Lesson 3", "--people", str(people), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.reader(io.StringIO(out.read_text())))
    # one header row, identifiers, one grade item
    assert rows[0] == ["username", "email", "idnumber", "Lesson 3"]
    want = totals(batch)
    got = {r[0]: r[3] for r in rows[1:]}
    assert got == {"a001": want["alice"], "blee": want["bob"], "dcho": ""}
    assert all(re.fullmatch(r"\d+(\.\d+)?|", g) for g in got.values())  # numbers with a point, or empty
    assert "Dan" in proc.stderr and "carol" in proc.stderr
    # without a participants file, the roster ids are the identifiers; erin (roster only) is listed, blank
    proc = run_export("moodle", str(batch), "--item", "Lesson 3", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    got = {r[0]: r[3] for r in list(csv.reader(io.StringIO(out.read_text())))[1:]}
    assert got["a001"] == want["alice"] and got["c-carol"] == want["carol"] and got["e-erin"] == ""
    assert "erin" in proc.stderr


@pytest.fixture(scope="module")
def ungraded_batch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real batch the kit could not grade: tim (the solutions, but for a function that never returns)
    under a 1 s limit times out; nora has no Python file at all and is unreadable."""
    tmp = tmp_path_factory.mktemp("ungraded")
    subs = tmp / "subs"
    subs.mkdir()
    shutil.copytree(ROOT / "solutions", subs / "tim", ignore=shutil.ignore_patterns("__pycache__"))
    # the solutions alone may grade within the second on a quiet machine: this one never does
    with open(subs / "tim" / "embedding.py", "a", encoding="utf-8") as fh:
        fh.write("\n\ndef sinusoidal_pe(max_len, d_model):\n    while True:\n        pass\n")
    (subs / "nora").mkdir()
    (subs / "nora" / "notes.txt").write_text("I will send the code tomorrow\n")
    out = tmp / "out"
    proc = subprocess.run([sys.executable, "-m", "grader.cli", "batch", str(subs), "--out", str(out),
                           "--public-only", "-k", "test_pe", "--timeout", "1", "-j", "2", "-q",
                           "--lang", "en"],
                          cwd=ROOT, capture_output=True, text=True, timeout=pace.seconds(600))
    statuses = {r["submission"]: r["status"] for r in csv.DictReader(
        io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8-sig")))}
    assert statuses == {"tim": "timeout", "nora": "unreadable"}, proc.stdout[-2000:] + proc.stderr[-2000:]
    return out


def test_an_ungraded_submission_is_not_exported_as_a_score(ungraded_batch: Path, tmp_path: Path) -> None:
    gradebook = tmp_path / "canvas.csv"
    gradebook.write_text("Student,ID,SIS User ID,SIS Login ID,Section,Lesson 3\n"
                         "    Points Possible,,,,,6\nTim,1,tim,tim,S1,\nNora,2,nora,nora,S1,\n")
    out = tmp_path / "import.csv"
    canvas = ("canvas", str(ungraded_batch), "--gradebook", str(gradebook), "--assignment", "Lesson 3",
              "--out", str(out))
    for args in (canvas, ("moodle", str(ungraded_batch), "--item", "Lesson 3", "--out", str(out))):
        proc = run_export(*args)
        # refused like a pending review: each student named with the status, the retry suggested
        assert proc.returncode == 2 and not out.exists(), proc.stderr
        assert "tim: status timeout: the grade ran out of time" in proc.stderr
        assert "nora: status unreadable: the submission could not be read" in proc.stderr
        assert f"grade batch SUBMISSIONS --out {ungraded_batch} --retry" in proc.stderr
        assert "상태 timeout: 채점 시간이 초과되었습니다" in proc.stderr
    proc = run_export(*canvas, "--send-anyway")  # knowingly: 0 each, and still said
    assert proc.returncode == 0, proc.stderr
    sent = {r[3]: r[5] for r in canvas_reads(out.read_text())["students"]}
    assert sent == {"tim": "0", "nora": "0"}
    assert "sent anyway (--send-anyway): tim: status timeout" in proc.stderr
