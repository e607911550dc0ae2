"""`grade new-lesson`: the package it writes installs, is listed, grades its reference full and its stubs 0,
catches its wrong example, is released (`grade release --lesson`) and graded by ``check()`` in the
release's notebook, with no file of the kit changed."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pace
import pytest
import venvs

from grader.instructor.new_lesson import main as new_lesson
from tests.conftest import ROOT
from tests.test_release import gradescope_layout, run_autograder


def kit_files() -> dict[str, tuple[int, int]]:
    """Every source file of the kit and its lessons, with its size and modification time."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for d in ("grader", "lessons")
            for p in (ROOT / d).rglob("*.py") if "__pycache__" not in p.parts}


def test_a_bad_name_or_a_full_folder_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert new_lesson(["Rope!", "--out", str(tmp_path / "a")]) == 2
    assert "is not a lesson name" in capsys.readouterr().err and not (tmp_path / "a").exists()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "mine.txt").write_text("keep me")
    assert new_lesson(["rope", "--out", str(tmp_path / "b")]) == 2
    assert "is not empty" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "b").iterdir()] == ["mine.txt"]


def test_the_new_lesson_installs_and_grades_as_written() -> None:
    before = kit_files()
    folder = Path(tempfile.mkdtemp(prefix="gk-new-lesson-"))
    folder.chmod(0o755)  # the worker's uid may enter it, as a course's checkout
    try:
        lesson = folder / "rope"
        assert new_lesson(["rope", "--out", str(lesson), "--title", "Rotary position embedding"]) == 0
        venv = folder / "venv"
        venvs.add_source(venvs.make_venv(venv), ROOT)  # the kit, from the checkout as the author has it
        python = str(venv / "bin" / "python")
        pip = subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "-e", str(lesson)],
                             capture_output=True, text=True, timeout=pace.seconds(600))
        assert pip.returncode == 0, pip.stderr[-2000:]

        # the author's shell: none of the suite's GK_LESSON (tests/conftest.py), whose lesson this venv lacks
        shell = {k: v for k, v in os.environ.items() if k != "GK_LESSON"}

        def grade(*args: str) -> subprocess.CompletedProcess:
            return subprocess.run([python, "-m", "grader.cli", *args], cwd=lesson, capture_output=True,
                                  text=True, timeout=pace.seconds(600), env=shell)

        listed = json.loads(grade("lessons", "--json").stdout)
        rope = next(row for row in listed if row["name"] == "rope")
        assert "Rotary position embedding" in json.dumps(rope)
        def scored(out: Path) -> tuple[float, float]:
            results = json.loads((out / "results.json").read_text(encoding="utf-8"))
            return results["score"], results["max_score"]

        # The stubs graded as a student grades them (`grade FOLDER`, public suite) ...
        done = grade("lesson_rope/exercises", "--lesson", "rope", "--out", str(folder / "stubs"), "-q",
                     "--lang", "en")
        assert done.returncode in (0, 1), done.stderr[-2000:]
        scores = {"stubs": scored(folder / "stubs")}
        # ... and the reference and the wrong example as a class (`grade batch`, hidden suite): each graded
        # once, its own results beside the gradebook's row
        klass = folder / "class"
        shutil.copytree(lesson / "lesson_rope" / "solutions", klass / "ada")
        shutil.copytree(lesson / "examples" / "wrong", klass / "bo")
        done = grade("batch", str(klass), "--lesson", "rope", "--out", str(folder / "batch"), "-q", "-j", "2")
        assert done.returncode == 0, done.stderr[-2000:]
        scores["reference"] = scored(folder / "batch" / "ada")
        scores["wrong"] = scored(folder / "batch" / "bo")
        assert scores["reference"][0] == scores["reference"][1] == 10
        assert scores["stubs"][0] == 0 < scores["stubs"][1]
        assert 0 < scores["wrong"][0] < scores["wrong"][1]
        rows = {r["submission"]: r for r in csv.DictReader(
            (folder / "batch" / "gradebook.csv").read_text(encoding="utf-8-sig").splitlines())}
        assert (float(rows["ada"]["total"]), float(rows["bo"]["total"])) == (10.0, scores["wrong"][0])

        # The Gradescope bundle of the lesson, run as Gradescope runs it on the reference (its run_autograder
        # with the author's Python, which has the kit and the lesson: setup.sh installs them on Gradescope)
        bundle = folder / "autograder.zip"
        done = grade("gradescope-bundle", str(bundle), "--lesson", "rope", "--lang", "en")
        assert done.returncode == 0, done.stderr[-2000:]
        root = gradescope_layout(folder, bundle, lesson / "lesson_rope" / "solutions")
        ran = run_autograder(root, python)
        assert ran.returncode == 0, (ran.stdout + ran.stderr)[-2000:]
        gs = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
        assert gs["score"] == 10 == sum(t["max_score"] for t in gs["tests"]), gs.get("output", "")[:1500]

        release = folder / "release"
        done = grade("release", str(release), "--lesson", "rope")
        assert done.returncode == 0, done.stderr[-2000:]
        assert (release / "lesson.ipynb").is_file() and (release / "exercises" / "rope.py").is_file()
        assert not (release / "lesson_rope" / "solutions").exists()
        assert not (release / "lesson_rope" / "suites" / "hidden").exists()
        # check() in the release, as in its notebook: the lesson comes from the release's [tool.grade]; the
        # notebook of the stubs scores 0, the same notebook built from the solutions full (public suite)
        checked = subprocess.run([python, "-c", (
            "import json, sys; from pathlib import Path; from grader import check; import lesson_rope\n"
            "lesson_rope.LESSON.release.write_notebook(Path(sys.argv[1]), Path('solved.ipynb'))\n"
            "print(json.dumps([(r.score, r.max_score, r.results.get('kind')) for r in "
            "(check(path='lesson.ipynb', lang='en'), check(path='solved.ipynb', lang='en'))]))"),
            str(lesson / "lesson_rope" / "solutions")],
            cwd=release, capture_output=True, text=True, timeout=pace.seconds(600), env=shell)
        assert checked.returncode == 0, checked.stderr[-2000:]
        stubs, solved = json.loads(checked.stdout.strip().splitlines()[-1])
        assert stubs == [0.0, 5.0, "notebook"] and solved == [5.0, 5.0, "notebook"]
        assert kit_files() == before  # no file of the kit or its lessons changed
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_scaffold_declares_a_release_and_a_notebook(tmp_path: Path) -> None:
    """``lesson_package`` on the written folder (not installed): the release ships the package without its
    reference and hidden suite, its README names the lesson, its notebook holds each graded definition."""
    import importlib.util
    import sys

    import nbformat

    from grader.author import Lesson, ReleaseHooks

    lesson_dir = tmp_path / "rope"
    assert new_lesson(["rope", "--out", str(lesson_dir)]) == 0
    spec = importlib.util.spec_from_file_location("lesson_rope", lesson_dir / "lesson_rope" / "__init__.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["lesson_rope"] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop("lesson_rope", None)
    lesson, package = module.LESSON, lesson_dir / "lesson_rope"
    assert isinstance(lesson, Lesson) and isinstance(lesson.release, ReleaseHooks)
    assert lesson.grade.use_solutions == module.REFERENCE.use  # the reference learns the folder in use
    assert lesson.home_modules == {"row_means": "rope", "Centered": "rope"}
    assert (lesson.exercises, lesson.solutions, lesson.suites) == (
        package / "exercises", package / "solutions", package / "suites")
    ships = {p.relative_to(package).as_posix() for p in lesson.release.student_files()}
    private = {p.relative_to(package).as_posix() for p in lesson.release.private_files()}
    assert {"__init__.py", "exercises/rope.py", "suites/public/test_rope.py", "NOTES.md"} <= ships
    assert private == {"solutions/rope.py", "suites/hidden/test_rope.py"} and not ships & private
    readme = lesson.release.readme
    assert "grade --lesson rope" in readme and "## English" in readme and "check()" in readme
    assert lesson.release.write_notebook is not None
    nb = nbformat.read(str(lesson.release.write_notebook(lesson.exercises, tmp_path / "lesson.ipynb")), 4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "def row_means" in code and "class Centered" in code and 'if __name__ == "__main__":' in code
    assert module.REFERENCE.load().row_means(__import__("torch").ones(2, 3)).tolist() == [1.0, 1.0]
