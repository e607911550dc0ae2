"""Where in the student's source a failed test points: ``location`` in results.json.

A failure whose traceback reached the student's code already carries that line
(the worker reports it). Every other failure (a wrong value, a missing buffer)
points at the definition of the function or class under test, found here with
``ast`` in the trusted process: the submitted source is parsed, never run.
A notebook's definitions are found in the staged ``notebook.py`` and reported
as the notebook's cell.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from pathlib import Path

from grader.core.text import read_python
from grader.engine.lesson_api import Task
from grader.engine.lessons import load_lesson
from grader.engine.results import ResultsView

NOTEBOOK_PY = "notebook.py"
_CELL = re.compile(r"^# --- cell (\d+) ---$")


def definitions(source: str) -> dict[str, int]:
    """Top-level function and class names -> their ``def``/``class`` line (first one wins)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.setdefault(node.name, node.lineno)
    return found


def _cells(source: str) -> list[tuple[int, int]]:
    """(first line, cell number) of each cell marker in a staged notebook."""
    return [(i, int(m.group(1))) for i, line in enumerate(source.splitlines(), 1) if (m := _CELL.match(line))]


def _cell_of(cells: list[tuple[int, int]], line: int) -> int | None:
    current = None
    for start, number in cells:
        if start <= line:
            current = number
    return current


class Locator:
    """Definitions of every staged module, read once per submission."""

    def __init__(self, staging: Path, notebook_name: str | None, tasks: Sequence[Task]) -> None:
        self.notebook_name = notebook_name
        # What each task tests when the test's id names nothing more precise (the lesson's Task.symbols),
        # and the document a task grades instead of code (Task.document) where the submission has it.
        self.symbols = {t.name: t.symbols for t in tasks}
        self.graded_documents = {t.name: t.document for t in tasks if t.document}
        self.documents = {name: doc for name, doc in self.graded_documents.items()
                          if (staging / doc).is_file()}
        self.defs: dict[str, tuple[str, int]] = {}
        self.cells: list[tuple[int, int]] = []
        for path in sorted(staging.glob("*.py")):
            try:
                source = read_python(path)
            except OSError:
                continue
            if path.name == NOTEBOOK_PY:
                self.cells = _cells(source)
            for name, line in definitions(source).items():
                self.defs.setdefault(name, (path.name, line))

    def _shown(self, file: str, line: int) -> dict:
        """A location as the student sees it: a notebook line becomes its cell."""
        if file == NOTEBOOK_PY and self.notebook_name:
            cell = _cell_of(self.cells, line)
            return {"file": self.notebook_name, "line": line, **({"cell": cell} if cell else {})}
        return {"file": file, "line": line}

    def for_test(self, test: dict) -> dict | None:
        """The definition under test for a failure with no traceback line."""
        task = str(test.get("task") or "")
        if task in self.graded_documents:
            return {"file": self.documents[task], "line": 1} if task in self.documents else None
        name = str(test.get("id", "")).split("::")[-1]
        # a symbol the test's name spells (test_count_params_..., [my_pow-...]) beats the task's default
        named = sorted((s for s in self.defs if re.search(rf"(?<![A-Za-z]){re.escape(s)}(?![A-Za-z])", name)),
                       key=len, reverse=True)
        for symbol in named + list(self.symbols.get(task, ())):
            if symbol in self.defs:
                return self._shown(*self.defs[symbol])
        return None


def add_locations(results: ResultsView, staging: Path, notebook_name: str | None = None,
                  tasks: Sequence[Task] | None = None) -> None:
    """Give every failed test a ``location``; the worker's traceback line is kept where there is one.
    ``tasks``: the lesson's (default: the lesson chosen here, lessons.choose)."""
    locator = Locator(staging, notebook_name, load_lesson().tasks if tasks is None else tasks)
    for test in results.get("tests", []):
        if test.get("status") == "passed":
            continue
        loc = test.get("location")
        if loc and loc.get("file"):
            if loc["file"] == NOTEBOOK_PY:
                test["location"] = locator._shown(NOTEBOOK_PY, int(loc.get("line") or 0))
            continue
        found = locator.for_test(test)
        if found:
            test["location"] = found
