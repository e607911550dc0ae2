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


LESSON = Lesson(
    name="Arithmetic warm-up",
    tasks=(Task("double", "Doubling", "두 배", ("double",)),
           Task("notes", "Notes", "노트", document="notes.md")),
    layout=Layout(modules=("arith",), log_name="notes.md"),
    grade=GradeHooks(use_solutions=USED.append),
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

from grader.engine.lesson_api import GradeHooks, Layout, Lesson, Prefetch, ReportHooks, Task


def use(folder: Path) -> None:
    pass


LESSON = Lesson(name="Misspelt", tasks=(Task("t", "T", "T"),), layout=Layout(modules=("m",)), {field})
"""


@pytest.mark.parametrize(("field", "says"), [
    # a misspelled hook: said where the lesson is declared, by the phase's dataclass
    ("grade=GradeHooks(use_solution=use)", r"GradeHooks.__init__\(\) got an unexpected keyword argument "
                                           "'use_solution'"),
    # a hook of another phase, a value that is no function, a prefetch that is not one object
    ("grade=GradeHooks(sections=use)", "unexpected keyword argument 'sections'"),
    ("grade=GradeHooks(warm_up=True)", "GradeHooks: warm_up= takes a function, not a bool"),
    ("grade=GradeHooks(prefetch=use)", "GradeHooks: prefetch= takes a Prefetch, not a function"),
    ("grade=GradeHooks(prefetch=Prefetch(start=use))", "missing 1 required positional argument: 'reads'"),
    # an unknown field of the declaration, and a hook object of the wrong phase
    ("grading=GradeHooks(use_solutions=use)", "unexpected keyword argument 'grading'"),
    ("report=GradeHooks(use_solutions=use)",
     r"report= is a GradeHooks, not a ReportHooks\(sections=\.\.\., "),
    ("report=ReportHooks(figure_texts=use, cause_of=use)", "unexpected keyword argument 'cause_of'"),
])
def test_a_misspelled_hook_or_unknown_field_is_one_line_at_load(field: str, says: str, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the registry, as `grade --lesson NAME` loads it: one line naming the lesson and the name."""
    from grader.engine.lessons import LessonRef
    from grader.engine.options import UsageProblem

    name = f"misspelt_{abs(hash(field))}"
    (tmp_path / f"{name}.py").write_text(HOOKS.format(field=field), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UsageProblem, match=says) as caught:
        LessonRef("misspelt", name).load()
    assert str(caught.value).startswith(f"lesson 'misspelt' ({name}) cannot be loaded: TypeError: ")
    assert "\n" not in str(caught.value)


def test_hooks_default_to_nothing() -> None:
    """A lesson that declares no hooks: every hook is None, and the kit's call sites skip it."""
    from dataclasses import fields

    from grader.engine.lesson_api import Causes, GradeHooks, ReleaseHooks, ReportHooks

    for hooks in (GradeHooks(), ReportHooks()):
        assert all(getattr(hooks, f.name) is None for f in fields(hooks))
    with pytest.raises(TypeError, match="student_files"):
        ReleaseHooks()  # type: ignore[call-arg]  # a release says what ships: no default
    with pytest.raises(TypeError, match="explained_by= needs link_text="):
        Causes(cause_of=lambda row: None, explained_by=lambda row: None)
    with pytest.raises(TypeError, match="readme= is text"):
        ReleaseHooks(student_files=list, private_files=list, readme=lambda: "")  # type: ignore[arg-type]
