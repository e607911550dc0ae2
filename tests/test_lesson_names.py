"""The kit names no lesson: a lesson's task, module and function names appear only inside that lesson's own
folders (its package under lessons/, the suites, exercises and solutions it declares), strings included,
docstrings and comments aside. Each lesson is a package of its own (lessons/embedding-pe, lessons/attention):
a kit file under grader/ that names one holds code that belongs in that lesson's package.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from functools import cache
from pathlib import Path

import pytest

from grader.engine.lessons import installed
from grader.paths import PACKAGE

ROOT = PACKAGE.parent

def lesson_names(module: str) -> set[str]:
    """What names a lesson: its tasks, the modules a student writes, the definitions its tasks test."""
    from grader.engine.lessons import load_lesson

    lesson = load_lesson(module)
    names = {t.name for t in lesson.tasks} | set(lesson.layout.modules)
    names |= {symbol for t in lesson.tasks for symbol in t.symbols}
    if lesson.layout.log_name:
        names.add(lesson.layout.log_name)
    return names


def own_folders(module: str) -> list[Path]:
    """Where a lesson may name itself: its package and the folders it declares."""
    import importlib.util

    from grader.engine.lessons import load_lesson

    lesson = load_lesson(module)
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    origin = Path(spec.origin).resolve()
    folders = [origin.parent if spec.submodule_search_locations else origin]
    folders += [p.resolve() for p in (lesson.suites, lesson.exercises, lesson.solutions) if p is not None]
    return folders


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


@cache
def _words(path: Path) -> frozenset[str]:
    """Every identifier and every word inside a string of ``path``, comments and docstrings left out."""
    text = path.read_text(encoding="utf-8")
    skip = _docstring_lines(ast.parse(text))
    words: set[str] = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.start[0] in skip and tok.type == tokenize.STRING:
            continue
        if tok.type == tokenize.NAME:
            words.add(tok.string)
        elif tok.type in (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)):
            words.update(re.findall(r"[A-Za-z_][\w-]*(?:\.md)?", tok.string))  # "embedding-pe" is one word
    return frozenset(words)


def leaking_files(lesson: str) -> dict[str, list[str]]:
    """Kit files outside ``lesson``'s folders that name it → the names they hold."""
    module = installed()[lesson].module
    names, own = lesson_names(module), own_folders(module)
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        resolved = path.resolve()
        if any(resolved == folder or folder in resolved.parents for folder in own):
            continue
        hits = sorted(names & _words(path))
        if hits:
            found[path.relative_to(ROOT).as_posix()] = hits
    return found


@pytest.mark.parametrize("lesson", sorted(installed()))
def test_no_kit_file_names_a_lesson(lesson: str) -> None:
    found = leaking_files(lesson)
    assert not found, (
        f"these kit files name the lesson {lesson!r} outside its package; move that code into "
        f"the lesson (docs/authors.md): {found}"
    )


def test_the_scan_sees_names_in_code_and_strings_not_in_comments_or_docstrings(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Docs name sinusoidal_pe."""\n# a comment: TinyLM\nx = "grade -k weight_tying"\n'
        "def f():\n    '''count_params in a docstring'''\n    return make_batch\n",
        encoding="utf-8",
    )
    assert {"weight_tying", "make_batch"} <= _words(sample)
    assert not {"sinusoidal_pe", "TinyLM", "count_params"} & _words(sample)


HEX_COLOUR = re.compile(r"#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?")


def named_colours(path: Path) -> list[str]:
    """The names ``path`` gives a colour of its own in a dict literal (``{"sin": "#1f77b4"}``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            found += [key.value for key, value in zip(node.keys, node.values, strict=True)
                      if isinstance(key, ast.Constant) and isinstance(key.value, str)
                      and isinstance(value, ast.Constant) and isinstance(value.value, str)
                      and HEX_COLOUR.fullmatch(value.value)]
    return found


def test_the_kits_reports_colour_no_series_by_name() -> None:
    """The kit's palette is a sequence (report/plots.py ``PALETTE``); a colour kept for a named series (a
    lesson's modes) is the lesson's, handed in (``plots.colour(..., fixed)``, ``ClassCharts.dots``)."""
    found = {path.relative_to(ROOT).as_posix(): names for path in sorted((PACKAGE / "report").rglob("*.py"))
             if (names := named_colours(path))}
    assert not found, f"the kit's report code keeps colours by name; move them into the lesson: {found}"


def test_the_colour_scan_sees_a_named_palette(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('A = {"sin": "#1f77b4", "x": 1}\nB = ("#2ca02c",)\nC = {"fill": "none"}\n',
                      encoding="utf-8")
    assert named_colours(sample) == ["sin"]
