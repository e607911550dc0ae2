"""Where the kit's parts live, and the one way results are written to disk.

Every module that needs the kit root or the templates imports them from here, so a move of the tree
changes one file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
KIT_ROOT = PACKAGE.parent
RUNTIME_DIR = PACKAGE / "runtime"
# An installed wheel carries the top-level templates/ inside the package (setup.py).
KIT_DATA = PACKAGE / "kitdata"
TEMPLATES = KIT_DATA / "templates" if (KIT_DATA / "templates").is_dir() else KIT_ROOT / "templates"
BUILD_FILES = KIT_DATA if (KIT_DATA / "pyproject.toml").is_file() else KIT_ROOT  # pyproject.toml, setup.py
# No lesson's folder is named here: each lesson is a package that declares its own (grader/engine/lessons.py).

def write_atomic(path: Path, data: str | bytes, encoding: str = "utf-8") -> None:
    """Write ``path`` so that a reader (or a crash at any moment) sees the old file or the new one,
    never half of either: a temporary file in the same folder, flushed, then renamed over it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode(encoding) if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
