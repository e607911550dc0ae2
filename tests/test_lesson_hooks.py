"""The lesson hooks behind the instructor's tools and check(): a release built from ``Lesson.release`` for
this course's lesson too (its package inside the kit), a sealed pack of the lesson's own hidden suite and
reference, check()'s task and log names from the lesson, a batch's warm-up from ``GradeHooks.warm_up``."""

from __future__ import annotations

import importlib.util
import io
import sys
import tarfile
import types
from dataclasses import replace
from pathlib import Path

import pytest

from grader.engine.lesson_api import GradeHooks, Layout, Lesson, Task
from grader.engine.lessons import load_lesson, select
from grader.instructor import hidden_pack
from grader.instructor.batch.jobs import warm_lesson
from grader.instructor.lesson_release import WARM_GRADER, lesson_pyproject, write_lesson_release
from grader.instructor.release import student_pyproject
from grader.jupyter import check as check_module
from grader.jupyter.check import CheckResult, no_match, render_html

KEY = "test-passphrase-0123456789abcdef"
LESSON_MODULE = "lesson_embedding_pe"  # the course's lesson's package (lessons/embedding-pe)
PE = "embedding-pe"  # its name, the one this checkout's pyproject.toml names
HAS_ATTENTION = importlib.util.find_spec("lesson_attention") is not None
needs_attention = pytest.mark.skipif(not HAS_ATTENTION, reason="pip install lessons/attention")


def _register(monkeypatch: pytest.MonkeyPatch, name: str, lesson: Lesson) -> str:
    module = types.ModuleType(name)
    module.LESSON = lesson  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, name, module)
    load_lesson.cache_clear()
    return name


# -- a batch's warm-up ---------------------------------------------------------------------------------


def test_a_batch_runs_the_lessons_warm_up_and_a_lesson_without_one_needs_none(monkeypatch) -> None:
    calls: list[str] = []
    base = Lesson(name="Toy", tasks=(Task("t", "T", "T"),), layout=Layout(modules=("toy",)))
    warming = GradeHooks(warm_up=lambda: calls.append("warm"))
    warmed = _register(monkeypatch, "gk_toy_warmed", replace(base, grade=warming))
    plain = _register(monkeypatch, "gk_toy_plain", base)
    warm_lesson(warmed)
    warm_lesson(plain)
    assert calls == ["warm"]
    load_lesson.cache_clear()


def test_this_lessons_warm_up_fills_the_experiments_cache() -> None:
    from lesson_embedding_pe import experiment

    experiment.expected_max_count.cache_clear()
    warm_up = load_lesson(LESSON_MODULE).grade.warm_up
    assert warm_up is not None
    warm_up()
    assert experiment.expected_max_count.cache_info().currsize > 0


# -- the sealed pack ---------------------------------------------------------------------------------


def _members(archive: Path) -> set[str]:
    payload = hidden_pack.open_sealed(archive.read_bytes(), KEY)
    with tarfile.open(fileobj=io.BytesIO(payload)) as tar:
        return {m.name for m in tar.getmembers()}


def test_pack_hidden_checks_the_reference_by_the_lessons_modules(tmp_path, monkeypatch) -> None:
    lesson = load_lesson(LESSON_MODULE)
    assert hidden_pack.holds_reference(lesson.solutions, lesson.layout.modules)
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / f"{lesson.layout.modules[0]}.py").write_text("x = 1\n")
    assert not hidden_pack.holds_reference(partial, lesson.layout.modules)
    monkeypatch.setenv("GK_HIDDEN_KEY", KEY)
    assert hidden_pack.main([str(tmp_path / "a.gkpack"), "--solutions", str(partial)]) == 2
    assert not (tmp_path / "a.gkpack").exists()
    monkeypatch.setenv("GK_HIDDEN_KEY", KEY)
    assert hidden_pack.main([str(tmp_path / "b.gkpack")]) == 0  # the default lesson's own folders
    names = _members(tmp_path / "b.gkpack")
    assert {f"solutions/{m}.py" for m in lesson.layout.modules} <= names
    assert {f"hidden/{p.name}" for p in (lesson.suites / "hidden").glob("test_*.py")} <= names


@needs_attention
def test_pack_hidden_seals_another_lessons_suite_and_reference(tmp_path, monkeypatch) -> None:
    lesson = select("attention").load()
    monkeypatch.setenv("GK_HIDDEN_KEY", KEY)
    assert hidden_pack.main([str(tmp_path / "att.gkpack"), "--lesson", "attention"]) == 0
    names = _members(tmp_path / "att.gkpack")
    assert {f"solutions/{m}.py" for m in lesson.layout.modules} <= names
    assert {f"hidden/{p.name}" for p in (lesson.suites / "hidden").glob("test_*.py")} <= names
    assert not any(n.startswith("solutions/embedding") for n in names)


# -- check() ------------------------------------------------------------------------------------------


def _empty(tasks: list[str] | None) -> dict:
    results: dict = {"score": 0.0, "max_score": 0.0, "tests": [], "tasks": {}}
    if tasks is not None:
        results["lesson"] = {
            "name": "toy",
            "module": "toy",
            "version": "1",
            "title": {"en": "T", "ko": "T"},
            "tasks": [{"name": t, "en": t, "ko": t} for t in tasks],
        }
    return results


def test_check_names_the_tasks_of_the_lesson_it_graded() -> None:
    three = _empty(["alpha", "beta", "gamma"])
    english = "No test matched this task name: try alpha, beta or gamma."
    assert no_match(CheckResult(three, "en", "x")) == english
    assert no_match(CheckResult(three, "ko", "x")) == (
        "이 과제 이름에 맞는 테스트가 없습니다: alpha, beta, gamma 중 하나를 쓰세요."
    )
    assert no_match(CheckResult(_empty(["solo"]), "en", "x")) == "No test matched this task name: try solo."
    assert "try alpha, beta or gamma." in render_html(CheckResult(three, "en", "x"))


def test_check_falls_back_to_the_lesson_it_would_grade_here() -> None:
    names = select(None, Path.cwd()).load().task_names
    expected = ", ".join(names[:-1]) + " or " + names[-1]
    said = no_match(CheckResult(_empty(None), "en", "x"))
    assert said == f"No test matched this task name: try {expected}."


class _Shell:
    def __init__(self, cells: list[str]) -> None:
        self.history_manager = types.SimpleNamespace(input_hist_raw=["", *cells])
        self.user_ns: dict = {}


def _kernel(monkeypatch: pytest.MonkeyPatch, cells: list[str]) -> None:
    shell = _Shell([*cells, "check()"])
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))


def test_check_takes_the_log_the_lesson_declares_beside_the_kernels_cells(tmp_path, monkeypatch) -> None:
    lesson = load_lesson(LESSON_MODULE)
    log_name = lesson.layout.log_name
    assert log_name is not None
    monkeypatch.chdir(tmp_path)
    (tmp_path / log_name).write_text("# my log\n", encoding="utf-8")
    symbol = next(iter(lesson.home_modules))
    _kernel(monkeypatch, [f"def {symbol}(*args):\n    return None\n"])
    staged = check_module._kernel_submission(tmp_path / "sub", PE)
    assert staged is not None and staged.notebook is None and staged.log_file == log_name
    folder = staged.folder
    assert (folder / "kernel.ipynb").is_file()
    assert (folder / log_name).read_text(encoding="utf-8") == "# my log\n"


@needs_attention
def test_check_copies_no_log_for_a_lesson_that_declares_none(tmp_path, monkeypatch) -> None:
    lesson = select("attention").load()
    assert lesson.layout.log_name is None
    monkeypatch.chdir(tmp_path)
    stray = load_lesson(LESSON_MODULE).layout.log_name
    (tmp_path / stray).write_text("# another lesson's log\n", encoding="utf-8")
    symbol = next(iter(lesson.home_modules))
    _kernel(monkeypatch, [f"def {symbol}(*args):\n    return None\n"])
    staged = check_module._kernel_submission(tmp_path / "sub", "attention")
    assert staged is not None and staged.log_file is None
    assert sorted(p.name for p in staged.folder.iterdir()) == ["kernel.ipynb"]


# -- the release ------------------------------------------------------------------------------------


def test_this_lessons_release_goes_through_its_release_hook(tmp_path) -> None:
    """The default lesson is released like any other: its README and notebook come from its
    ``Lesson.release``, its package lands beside the kit cut to ``student_files()``, and the pyproject
    registers it once and no other lesson."""
    lesson = load_lesson(LESSON_MODULE)
    assert lesson.release is not None
    files = lesson.release.student_files()
    dropped = next(f for f in files if f.name == "notebook.py")
    cut = replace(lesson.release, student_files=lambda: [f for f in files if f != dropped])  # one file fewer
    out = tmp_path / "copy"
    write_lesson_release(out, PE, LESSON_MODULE, replace(lesson, release=cut))
    package = out / "lesson_embedding_pe"
    assert package.is_dir() and not (package / "notebook.py").exists()
    assert (package / "__init__.py").is_file() and (out / "lesson.ipynb").is_file()
    # the lesson's README, then the kit's own paragraph on the warm grader every lesson's students meet
    assert (out / "README.md").read_text(encoding="utf-8") == (
        lesson.release.readme.rstrip("\n") + "\n\n" + WARM_GRADER)
    pyproject = lesson_pyproject(PE, LESSON_MODULE)
    assert pyproject.startswith(student_pyproject(PE).split("[tool.grade]")[0].rstrip()[:200])
    assert (out / "pyproject.toml").read_text(encoding="utf-8").count('"lesson_embedding_pe"') == 1
    assert "lesson_attention" not in pyproject and not (out / "lesson_attention").exists()
    assert not (out / "solutions").exists() and not (package / "suites" / "hidden").exists()
    assert not (package / "solutions").exists() and not (package / "exercises").exists()
