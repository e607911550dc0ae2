"""The reference solution, loaded in the grader process to compute expectations for the hidden suite.

Loaded by path under a private module name, so it never collides with the student's ``attention``.
The engine hands over the folder in use once per grade (``Lesson.use_solutions``): the package's own
``solutions/`` by default, a sealed archive's copy when grading from one.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from lesson_attention.paths import SOLUTIONS
from lesson_attention.tasks import MODULE

_FOLDER: list[Path] = [SOLUTIONS]


def set_solutions_dir(path: Path) -> None:
    """Use the reference in ``path`` from now on (the engine calls it once per grade)."""
    if Path(path) != _FOLDER[0]:
        _FOLDER[0] = Path(path)
        load.cache_clear()


def folder() -> Path:
    return _FOLDER[0]


@cache
def load() -> ModuleType:
    """The reference ``attention`` module."""
    path = _FOLDER[0] / f"{MODULE}.py"
    if not path.is_file():
        raise FileNotFoundError(f"reference solution not found: {path}")
    spec = importlib.util.spec_from_file_location("_gk_reference_attention", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
