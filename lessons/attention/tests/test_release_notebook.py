"""The lesson's notebook form graded by the engine, and what its student release holds."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import nbformat
import pytest

from grader.author import NotebookTexts, build_notebook
from grader.engine.lessons import load_lesson
from grader.engine.runner import GradeOptions, grade_path
from lesson_attention import LESSON, paths, texts

TASKS = LESSON.task_names
release = LESSON.release


def _notebook(source_dir: Path):
    return build_notebook(source_dir / "causal_attention.py", TASKS,
                          NotebookTexts(texts.INTRO, texts.STEPS, texts.TRY_IT))


@pytest.fixture(autouse=True, scope="module")
def _forget_lesson():
    yield
    load_lesson.cache_clear()


def _grade(path: Path, hidden: bool) -> dict:
    options = GradeOptions(lesson="lesson_attention", suites_dir=paths.SUITES, solutions_dir=paths.SOLUTIONS,
                           hidden=hidden)
    return grade_path(path, options)


def test_the_notebook_of_the_solutions_gets_full_marks(tmp_path: Path) -> None:
    nb = release.write_notebook(paths.SOLUTIONS, tmp_path / "lesson.ipynb")
    results = _grade(nb, hidden=True)
    assert (results["score"], results["max_score"]) == (35.0, 35.0)
    assert results["kind"] == "notebook"


def test_the_notebook_of_the_stubs_is_not_attempted(tmp_path: Path) -> None:
    nb = release.write_notebook(paths.EXERCISES, tmp_path / "lesson.ipynb")
    results = _grade(nb, hidden=False)
    assert (results["score"], results["max_score"]) == (0.0, 16.0)
    assert all(t["message"].startswith("Not attempted yet") for t in results["tests"])


def test_the_notebook_holds_each_stub_as_written() -> None:
    nb = _notebook(paths.EXERCISES)
    source = (paths.EXERCISES / "causal_attention.py").read_text(encoding="utf-8")
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            assert ast.get_source_segment(source, node) in code
    steps = [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "markdown"][1:]
    assert [s.split(" — ")[0] for s in steps] == [f"## {n}단계 · Step {n}" for n in (1, 2, 3)]
    try_it = nb.cells[-1].source
    assert 'if __name__ == "__main__":' in try_it  # never runs while grading
    nbformat.validate(nb)
    assert LESSON.notebook_top_level_calls == frozenset()  # nothing in this lesson trains
    assert LESSON.home_modules == dict.fromkeys(TASKS, "causal_attention")


def test_the_release_ships_no_reference_and_no_hidden_test() -> None:
    ships = {p.relative_to(paths.PACKAGE).as_posix() for p in release.student_files()}
    private = {p.relative_to(paths.PACKAGE).as_posix() for p in release.private_files()}
    assert {"exercises/causal_attention.py", "NOTES.md", "suites/pytest.ini",
            "suites/public/test_attention.py", "checks.py", "report.py"} <= ships
    assert {"solutions/causal_attention.py", "suites/hidden/test_attention.py"} <= private
    assert not ships & private
    # A line of the reference or the hidden tests that the stubs and the public suite do not share (30
    # characters or more, not an import) is in none of the shipped files, the README or the notebook.
    def lines(files: list[Path]) -> set[str]:
        return {line.strip() for p in files for line in p.read_text(encoding="utf-8").splitlines()}

    baseline = lines([*paths.EXERCISES.glob("*.py"), *(paths.SUITES / "public").glob("*.py")])
    distinctive = {line for line in lines(release.private_files())
                   if len(line) >= 30 and not line.startswith(("import ", "from ")) and line not in baseline}
    assert len(distinctive) > 50  # the scan has something to look for
    cells = "\n".join(c.source for c in _notebook(paths.EXERCISES).cells).splitlines()
    shipped = lines([p for p in release.student_files() if p.suffix in (".py", ".md", ".ini")])
    generated = {line.strip() for line in [*texts.README.splitlines(), *cells]}
    leaks = sorted(distinctive & (shipped | generated))
    assert leaks == []


def test_the_readme_names_every_task_and_the_lesson_flag_in_both_languages() -> None:
    korean, english = texts.README.split("\n## English\n")
    for text in (korean, english):
        assert "grade --lesson attention" in text and '[tool.grade] lesson = "attention"' in text
        for task in TASKS:
            assert task in text
    assert re.search(r"[가-힣]", korean) and not re.search(r"[가-힣]", english)
    assert release.readme == texts.README
    assert sys.modules["lesson_attention"].LESSON.layout.modules == ("causal_attention",)


def test_the_readme_and_stub_name_the_notes_where_a_student_copy_holds_them():
    """The copy holds the package beside its README: a path the texts name is a file of the package."""
    stub = (paths.EXERCISES / "causal_attention.py").read_text(encoding="utf-8")
    for text in (texts.README, stub):
        named = set(re.findall(r"[\w/]*NOTES\.md", text))
        assert named == {"lesson_attention/NOTES.md"}, named
    assert (paths.PACKAGE / "NOTES.md").is_file()
