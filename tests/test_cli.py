
"""The `grade` command line as a student meets it: help and usage errors printed once, and `grade` run
from inside the exercises folder (`cd exercises && grade`) grading it, with the reports outside it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pace

ROOT = Path(__file__).resolve().parent.parent


def _grade(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    path = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    env = {**os.environ, "PYTHONPATH": path}
    return subprocess.run([sys.executable, "-m", "grader.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=pace.seconds(300))


def test_help_and_usage_errors_are_printed_once(tmp_path: Path) -> None:
    shown = _grade("--help", cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout.count("usage: grade") == 1, shown.stdout
    assert shown.stdout.count("--fail-under SCORE") == 2  # once in the usage line, once in the list
    # the subcommands, each by its name as typed (never broken at its dash)
    commands = shown.stdout.split("commands (grade COMMAND --help):")[1].replace("\n", " ")
    assert {"batch", "release", "gradescope-bundle", "new-lesson", "lessons"} <= {
        c.strip() for c in commands.split(",")}
    batch = _grade("batch", "--help", cwd=tmp_path)
    assert batch.returncode == 0 and batch.stdout.count("usage: grade batch") == 1, batch.stdout
    wrong = _grade("--lang", "fr", cwd=tmp_path)
    assert wrong.returncode == 2
    assert wrong.stderr.count("invalid choice: 'fr'") == 1 and wrong.stderr.count("usage: grade") == 1, (
        wrong.stderr)
    assert not (tmp_path / "reports").exists()


def test_grade_inside_the_exercises_folder_grades_it_and_writes_outside(tmp_path: Path) -> None:
    exercises = tmp_path / "exercises"
    shutil.copytree(ROOT / "solutions", exercises, ignore=shutil.ignore_patterns("__pycache__"))
    before = sorted(p.name for p in exercises.iterdir())
    proc = _grade("-k", "count_params", "--lang", "en", cwd=exercises)
    assert proc.returncode == 0, proc.stderr
    # said in the run's language only
    assert "reports in ../reports, outside it" in proc.stderr and "../reports에" not in proc.stderr
    korean = _grade("-k", "count_params", "--lang", "ko", cwd=exercises)
    assert "제출물 밖인 ../reports에" in korean.stderr and "outside it" not in korean.stderr
    assert sorted(p.name for p in exercises.iterdir()) == before  # no reports/ to ship in the zip
    results = json.loads((tmp_path / "reports" / "results.json").read_text(encoding="utf-8"))
    assert results["submission"] == "exercises" and results["suites"] == ["public"]
    assert results["max_score"] > 0 and results["score"] == results["max_score"]
    assert {t["task"] for t in results["tests"]} == {"weight_tying"}
    # From the parent, as before: ./exercises into ./reports, and nothing said about it.
    parent = _grade("-k", "count_params", "--lang", "en", "-q", cwd=tmp_path)
    assert parent.returncode == 0 and "outside it" not in parent.stderr
    again = json.loads((tmp_path / "reports" / "results.json").read_text(encoding="utf-8"))
    assert again["score"] == results["score"] and again["submission"] == "exercises"


def test_a_path_that_does_not_exist_writes_no_page_and_suggests_k_for_a_task(tmp_path: Path) -> None:
    """`grade sinusoidal_pe` (the student forgot -k): one line in the run's language, exit 2, and no
    page that would say "0 / 0, every test passed" about something never graded."""
    for lang, words in (("en", "grade -k sinusoidal_pe"), ("ko", "`sinusoidal_pe`만 채점하려면")):
        proc = _grade("sinusoidal_pe", "--lang", lang, cwd=tmp_path)
        assert proc.returncode == 2 and words in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert not (tmp_path / "reports").exists()
    proc = _grade("no_such_folder", "--lang", "en", cwd=tmp_path)
    assert proc.returncode == 2 and "does not exist" in proc.stderr and "-k" not in proc.stderr
    assert not list(tmp_path.rglob("*.html"))
