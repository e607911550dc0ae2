"""The reference solutions, loaded in the grader process to compute expectations.

Loaded from ``solutions/`` by path under private module names, so they never
collide with anything called ``embedding`` elsewhere.  Absent from the student
release: only hidden tests use them (public tests use snapshots and properties).
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType, SimpleNamespace

from lesson_embedding_pe.paths import SOLUTIONS as DEFAULT_SOLUTIONS

SOLUTIONS = DEFAULT_SOLUTIONS


def set_solutions_dir(path: Path) -> None:
    """Use the solutions in ``path`` (e.g. decrypted from a hidden archive) from now on."""
    global SOLUTIONS
    if Path(path) != SOLUTIONS:
        SOLUTIONS = Path(path)
        load.cache_clear()


def available() -> bool:
    return (SOLUTIONS / "embedding.py").is_file()


@cache
def load() -> SimpleNamespace:
    """``ref.embedding``, ``ref.reversal``, ``ref.leetcode`` from solutions/."""
    if not available():
        raise FileNotFoundError(f"reference solutions not found in {SOLUTIONS}")
    embedding = _load("embedding")
    # reversal.py does `from embedding import ...`: point that at the reference.
    saved = sys.modules.get("embedding")
    sys.modules["embedding"] = embedding
    try:
        reversal = _load("reversal")
    finally:
        if saved is None:
            sys.modules.pop("embedding", None)
        else:
            sys.modules["embedding"] = saved
    return SimpleNamespace(embedding=embedding, reversal=reversal, leetcode=_load("leetcode"))


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_gk_reference_{name}", SOLUTIONS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
