"""A second lesson, written in a temporary folder, graded by the same engine: nothing in engine/ names
this kit's lesson (grader/engine/lesson_api.py, README "Adding a lesson")."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from grader.engine.lessons import load_lesson
from grader.engine.runner import GradeOptions, grade_path

LESSON = '''
from pathlib import Path

from grader.engine.lesson_api import GradeHooks, Layout, Lesson, Task

USED: list[Path] = []  # the reference folders the engine handed over, one per grade


class Grading(GradeHooks):
    def use_solutions(self, folder: Path) -> None:
        USED.append(folder)


LESSON = Lesson(
    name="Arithmetic warm-up",
    tasks=(Task("double", "Doubling", "두 배", ("double",)),
           Task("notes", "Notes", "노트", document="notes.md")),
    layout=Layout(modules=("arith",), log_name="notes.md"),
    grade=Grading(),
)
'''

SUITE = '''
import pytest

from grader.core.feedback import expect


@pytest.mark.task("double", points=2)
def test_double(student):
    value = student.call("arith.double", 21)
    expect(value == 42, f"double(21): expected 42; found {value!r}.",
           f"double(21): 42여야 하는데 {value!r}입니다.")


@pytest.mark.task("double", points=1)
def test_double_negative(student):
    value = student.call("arith.double", -3)
    expect(value == -6, f"double(-3): expected -6; found {value!r}.",
           f"double(-3): -6이어야 하는데 {value!r}입니다.")


@pytest.mark.task("notes", points=1)
def test_notes_written(submission):
    expect(bool((submission.log_text or "").strip()), "notes.md is empty.", "notes.md가 비어 있습니다.")
'''


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    package = tmp_path / "lessons" / "arith_lesson"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(LESSON), encoding="utf-8")
    suites = tmp_path / "suites"
    (suites / "public").mkdir(parents=True)
    (suites / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n", encoding="utf-8")
    (suites / "public" / "test_arith.py").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    monkeypatch.syspath_prepend(str(package.parent))
    yield "arith_lesson", suites
    load_lesson.cache_clear()
    sys.modules.pop("arith_lesson", None)


def _submit(folder: Path, body: str, notes: str = "") -> Path:
    folder.mkdir()
    (folder / "arith.py").write_text(body, encoding="utf-8")
    if notes:
        (folder / "notes.md").write_text(notes, encoding="utf-8")
    return folder


def test_a_second_lesson_is_graded_by_the_same_engine(toy: tuple[str, Path], tmp_path: Path) -> None:
    module, suites = toy
    options = GradeOptions(lesson=module, suites_dir=suites, solutions_dir=tmp_path / "reference")
    right = grade_path(_submit(tmp_path / "right", "def double(x):\n    return 2 * x\n", "Doubled."), options)
    assert (right["score"], right["max_score"]) == (4.0, 4.0)
    assert list(right["tasks"]) == ["double", "notes"]  # the lesson's tasks, in its order

    wrong_body = "\n\ndef double(x):\n    return x + x if x < 0 else x + 2\n"
    wrong = grade_path(_submit(tmp_path / "wrong", wrong_body), options)
    assert (wrong["score"], wrong["max_score"]) == (1.0, 4.0)  # only double(-3) right; no notes
    by_name = {t["id"].split("::")[-1]: t for t in wrong["tests"]}
    assert by_name["test_double"]["status"] == "failed"
    assert "expected 42; found 23" in by_name["test_double"]["message"]
    assert by_name["test_double"]["location"] == {"file": "arith.py", "line": 3}  # from Task.symbols
    assert by_name["test_notes_written"]["status"] == "failed"
    assert "location" not in by_name["test_notes_written"]  # a document task: no notes.md to point at

    lesson = sys.modules[module]
    assert lesson.USED == [tmp_path / "reference"] * 2  # the hook ran once per grade


def test_a_task_the_lesson_does_not_declare_stops_the_run(toy: tuple[str, Path], tmp_path: Path) -> None:
    module, suites = toy
    (suites / "public" / "test_extra.py").write_text(
        "import pytest\n\n@pytest.mark.task('sinusoidal_pe')\ndef test_other(student):\n    pass\n",
        encoding="utf-8")
    with pytest.raises(RuntimeError, match="unknown task 'sinusoidal_pe'"):
        grade_path(_submit(tmp_path / "sub", "def double(x):\n    return 2 * x\n"),
                   GradeOptions(lesson=module, suites_dir=suites))


def test_a_module_without_a_lesson_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "not_a_lesson.py").write_text("LESSON = 'nope'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(TypeError, match="not_a_lesson declares no LESSON"):
        load_lesson("not_a_lesson")


HOOKS = """
from pathlib import Path

from grader.engine.lesson_api import GradeHooks, Layout, Lesson, Task


class Grading(GradeHooks):
    def {hook}(self, folder: Path) -> None:
        pass


LESSON = Lesson(name="Misspelt", tasks=(Task("t", "T", "T"),), layout=Layout(modules=("m",)), {field})
"""


@pytest.mark.parametrize(("hook", "field", "says"), [
    # a misspelled hook: said where the class is written, with the phase's hooks
    ("use_solution", "grade=Grading()", r"Grading: 'use_solution' is no GradeHooks hook \(its hooks: "),
    # an unknown field of the declaration, and a hook object of the wrong phase
    ("use_solutions", "grading=Grading()", "unexpected keyword argument 'grading'"),
    ("use_solutions", "report=Grading()", "report= is a Grading, not a ReportHooks"),
])
def test_a_misspelled_hook_or_unknown_field_is_one_line_at_load(hook: str, field: str, says: str,
                                                                tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the registry, as `grade --lesson NAME` loads it: one line naming the lesson and the name."""
    from grader.engine.lessons import LessonRef
    from grader.engine.options import UsageProblem

    name = f"misspelt_{abs(hash((hook, field)))}"
    (tmp_path / f"{name}.py").write_text(HOOKS.format(hook=hook, field=field), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UsageProblem, match=says) as caught:
        LessonRef("misspelt", name).load()
    assert str(caught.value).startswith(f"lesson 'misspelt' ({name}) cannot be loaded: TypeError: ")
    assert "\n" not in str(caught.value)


def test_hooks_default_to_nothing() -> None:
    """A lesson that declares no hooks: every phase's methods do nothing (the kit calls them unasked)."""
    from grader.engine.lesson_api import GradeHooks, ReleaseHooks, ReportHooks

    grade, report, release = GradeHooks(), ReportHooks(), ReleaseHooks()
    assert grade.prefetch(None, {}, [], filtered=False) is False and grade.reads_prefetch(None) is False
    assert grade.use_solutions(Path(".")) is None and grade.warm_up() is None
    assert list(grade.ta_checks({"tests": []})) == []  # always sure: no check for a TA
    assert list(report.sections({}, "en")) == [] and report.figure_texts({}, "en") is None
    assert report.cause_of({}) is None and report.explained_by({}) is None
    assert release.readme() == "" and list(release.student_files()) == []
    assert release.write_notebook(Path("."), Path("x.ipynb")) is None
