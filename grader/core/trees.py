"""The files of a folder tree in a stable order, for the stamps that say whether code changed (the warm
grader's, grader/daemon/place.py, and a reused grade's key, grader/engine/reuse.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator


def tree_files(tree: str | os.PathLike[str]) -> Iterator[tuple[str, os.stat_result]]:
    """(path, stat) of every file under ``tree``, sorted; compiled caches (``__pycache__``, .pyc) left out
    since they change without the code changing, and a file gone meanwhile skipped."""
    for root, dirs, files in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(root, name)
            try:
                yield path, os.stat(path)
            except OSError:
                continue
