"""Which student modules `student.probe(name)` imports first (``Layout.probe_modules``, and a probe's own
list in ``Layout.probe_imports``): the kit names no probe of any lesson, the lesson declares them."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from grader.engine.lessons import installed, load_lesson
from grader.engine.student import Student
from grader.paths import RUNTIME_DIR


class FakeClient:
    """The worker client, as far as ``Student.probe`` reaches it: it records what is imported and asked."""

    generation = 0

    def __init__(self, staging: Path) -> None:
        self.sub_dir = staging
        self.failed_imports: dict[str, Exception] = {}
        self.imported: list[str] = []
        self.asked: list[str] = []

    def ensure_module(self, module: str) -> None:
        self.imported.append(module)

    def request(self, header: dict[str, Any], args: tuple, kwargs: dict,
                timeout: float | None = None) -> None:
        self.asked.append(header["name"])


@pytest.fixture
def staging(tmp_path: Path) -> Path:
    (tmp_path / "helpers.py").write_text("X = 1\n", encoding="utf-8")
    (tmp_path / "layer.py").write_text("import helpers\n", encoding="utf-8")
    (tmp_path / "other.py").write_text("Y = 2\n", encoding="utf-8")
    return tmp_path


def _student(staging: Path, **layout: Any) -> tuple[Student, FakeClient]:
    client = FakeClient(staging)
    return Student(client, {"reasons": []}, **layout), client  # type: ignore[arg-type]


def test_a_probe_imports_the_layouts_probe_modules_with_what_they_import(staging: Path) -> None:
    student, client = _student(staging, probe_modules=("layer",))
    student.probe("module_summary", None)
    assert client.imported == ["helpers", "layer"]
    assert client.asked == ["seed", "module_summary"]


def test_a_probe_the_lesson_lists_imports_its_own_modules_only(staging: Path) -> None:
    student, client = _student(staging, probe_modules=("layer",),
                               probe_imports={"stand_in": (), "other_probe": ("other",)})
    student.probe("stand_in", 10)
    assert client.imported == []
    student.probe("other_probe")
    assert client.imported == ["other"]
    student.probe("module_summary", None)  # a probe not listed: the layout's probe_modules
    assert client.imported == ["other", "helpers", "layer"]


def test_a_sibling_student_keeps_the_probes_imports(staging: Path) -> None:
    student, _ = _student(staging, probe_modules=("layer",), probe_imports={"stand_in": ()})
    sibling_client = FakeClient(staging)
    sibling = student.on(sibling_client)  # type: ignore[arg-type]
    sibling.probe("stand_in")
    assert sibling_client.imported == [] and sibling_client.asked == ["seed", "stand_in"]


def _probe_names(path: Path | None) -> set[str]:
    """The probes a file defines (``probe_<name>`` functions), read with ast."""
    if path is None:
        return set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name.removeprefix("probe_") for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("probe_")}


@pytest.mark.parametrize("lesson", sorted(installed()))
def test_a_lessons_probe_imports_name_its_probes_and_its_modules(lesson: str) -> None:
    declared = load_lesson(installed()[lesson].module)
    probes = _probe_names(declared.probes) | _probe_names(RUNTIME_DIR / "probes.py")
    for name, modules in declared.layout.probe_imports.items():
        assert name in probes, f"{lesson}: probe_imports names {name!r}, a probe no file defines"
        assert set(modules) <= set(declared.layout.modules), (name, modules)
