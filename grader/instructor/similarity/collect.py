"""The code of a submission, as `grade similarity` compares it: its .py files and its notebooks' code cells.

`grade batch` keeps a copy beside each result (``DIR/<name>/code/``), so a similarity run needs only the
batch folder, a merged folder of shards included. The submission is read as data, never run: no symbolic
link is followed, a zip is read member by member, and the limits are the grader's own
(grader/engine/submission.py).
"""

from __future__ import annotations

import json
import stat
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from grader.core.text import as_python
from grader.engine.submission import MAX_FILE_BYTES, MAX_ZIP_MEMBERS, MAX_ZIP_RATIO, _source_root, _zip_prefix

CODE_DIR = "code"
MAX_FILES = 64
MAX_TOTAL_BYTES = 4 * 1024 * 1024


def notebook_code(data: bytes) -> str | None:
    """The code cells of a notebook, each under a `# In[N]` line; IPython's %/! lines become comments
    (the tokenizer ignores them, the line numbers stay). None when it is not a readable notebook."""
    try:
        nb = json.loads(data.decode("utf-8-sig"))
        cells = nb.get("cells") if isinstance(nb, dict) else None
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(cells, list):
        return None
    parts = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        lines = [f"# {line}" if line.lstrip().startswith(("%", "!")) else line for line in text.splitlines()]
        parts.append(f"# In[{number}]\n" + "\n".join(lines) + "\n")
    return "\n".join(parts)


def _decode(name: str, data: bytes) -> tuple[str, str] | None:
    """(kept name, text) for a .py file or a notebook; None for anything else or what is not text."""
    if name.endswith(".ipynb"):
        text = notebook_code(data)
        return None if text is None else (name + ".py", text)  # kept as NAME.ipynb.py: its code cells
    if name.endswith(".py"):  # read as the grader stages it (a BOM, CRLF or a cp949 cookie hides no copy)
        text = as_python(data).text
        return None if text is None else (name, text)
    return None


def _code_name(name: str) -> bool:
    return name.endswith((".py", ".ipynb")) and not name.startswith(".")


def _from_folder(root: Path, modules: Sequence[str]) -> dict[str, bytes]:
    """The files the grader reads: those at the root, or in exercises/ (a copy of the kit's layout) where
    it holds one of the graded lesson's ``modules``."""
    base = _source_root(root, tuple(modules))
    return {p.name: p.read_bytes() for p in sorted(base.iterdir())
            if _code_name(p.name) and p.is_file() and not p.is_symlink()
            and p.stat().st_size <= MAX_FILE_BYTES}


def _from_zip(path: Path) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        return found
    with archive:
        for m in archive.infolist()[:MAX_ZIP_MEMBERS]:
            rel = PurePosixPath(m.filename.replace("\\", "/"))
            if (m.is_dir() or rel.is_absolute() or ".." in rel.parts or stat.S_ISLNK(m.external_attr >> 16)
                    or (rel.parts and rel.parts[0] == "__MACOSX") or not _code_name(rel.name)):
                continue
            ratio = m.file_size / m.compress_size if m.compress_size else 0.0
            bomb = ratio > MAX_ZIP_RATIO and m.file_size > 64 * 1024
            if m.file_size > MAX_FILE_BYTES or bomb:
                continue
            try:
                with archive.open(m) as fh:
                    data = fh.read(MAX_FILE_BYTES + 1)
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError):
                continue
            if len(data) <= MAX_FILE_BYTES:
                found[str(rel)] = data
    # As the grader reads it: the files of the zip's root, of its one top folder, or of exercises/.
    prefix = _zip_prefix(dict.fromkeys(found, b""))
    return {k[len(prefix):]: v for k, v in found.items()
            if k.startswith(prefix) and "/" not in k[len(prefix):]}


def submission_code(path: Path, modules: Sequence[str] = ()) -> dict[str, str]:
    """Kept name -> code for every .py file and notebook of a submission (a folder, a notebook or a zip),
    within the limits, read as the grader reads it for a lesson of these ``modules`` (its
    ``Layout.modules``); empty when there is none or it cannot be read."""
    path = Path(path)
    try:
        if path.is_symlink() or not path.exists():
            return {}
        if path.is_dir():
            raw = _from_folder(path, modules)
        elif path.suffix == ".zip":
            raw = _from_zip(path)
        elif path.suffix == ".ipynb" and path.stat().st_size <= MAX_TOTAL_BYTES:
            raw = {path.name: path.read_bytes()}
        else:
            return {}
    except OSError:
        return {}
    code: dict[str, str] = {}
    total = 0
    for name in sorted(raw):
        decoded = _decode(name, raw[name])
        if decoded is None:
            continue
        size = len(decoded[1].encode("utf-8"))
        if len(code) >= MAX_FILES or total + size > MAX_TOTAL_BYTES:
            break
        code[decoded[0]] = decoded[1]
        total += size
    return code


def keep_code(path: Path, result_dir: Path, modules: Sequence[str]) -> None:
    """Write the submission's code under ``result_dir/code/`` (called by `grade batch` before it publishes
    a result; ``modules``: the graded lesson's). Never raises: similarity is an extra, a grade must not
    fail for it."""
    try:
        for name, text in submission_code(path, modules).items():
            target = result_dir / CODE_DIR / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    except (OSError, ValueError):
        pass


def read_kept(result_dir: Path) -> dict[str, str] | None:
    """The code kept beside a result (``code/``), or None when the result has none (a folder graded
    before code was kept: the caller may read the submission again)."""
    root = result_dir / CODE_DIR
    if not root.is_dir() or root.is_symlink():
        return None
    code = {}
    for p in sorted(root.rglob("*.py")):
        if p.is_file() and not p.is_symlink():
            code[p.relative_to(root).as_posix()] = p.read_text(encoding="utf-8", errors="replace")
    return code
