"""What to grade: one submission per entry of the folder, and which of them a rerun may skip (content
hashes of the submission, the suites and the options, against the done-marker of its result)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path

from grader.engine.options import GradeOptions
from grader.instructor.batch.options import Config
from grader.instructor.term.store import GRADESCOPE_EXPORT

MARKER = "batch.json"
MANIFEST = "batch-manifest.json"
RESERVED = {".work", ".trash", ".lock", "gradebook.csv", "summary.html", MANIFEST, "summary_files",
            "class.json", "policy.toml", "submitted_at.csv", "adjustments.csv", "reviews.csv",  # the term's
            "similarity.csv", "similarity.html", "roster.csv"}
FINAL_STATUSES = {"graded", "unreadable", "timeout"}  # "error" (the grader's own failure) is retried


@dataclass
class Entry:
    name: str
    path: Path
    student_id: str


def discover(root: Path) -> list[Entry]:
    """Every visible entry of ``root`` is one submission, named after it."""
    items = sorted(p for p in root.iterdir()
                   if not p.name.startswith((".", "~$")) and p.name != GRADESCOPE_EXPORT)  # its times
    stems: dict[str, int] = {}
    for p in items:
        stems[_stem(p)] = stems.get(_stem(p), 0) + 1
    entries = []
    for p in items:
        # alice.zip next to alice/ would collide: then both keep their full names.
        name = _stem(p) if stems[_stem(p)] == 1 else p.name
        if name in RESERVED:
            name += "_submission"
        entries.append(Entry(name, p, name))
    return entries


def _stem(p: Path) -> str:
    return p.name.removesuffix(".zip").removesuffix(".ipynb") if p.is_file() else p.name


# -- content hashes ----------------------------------------------------------------


def hash_tree(path: Path, skip_dotfiles: bool = False) -> str:
    """sha256 over relative paths and bytes; links are hashed by target, never followed."""
    h = hashlib.sha256()
    if path.is_file() and not path.is_symlink():
        h.update(path.read_bytes())
        return h.hexdigest()
    for p in sorted(path.rglob("*")):
        rel = p.relative_to(path).as_posix()
        if "__pycache__" in p.parts or p.suffix == ".pyc" or (skip_dotfiles and p.name.startswith(".")):
            continue
        if p.is_symlink():
            h.update(f"L {rel} -> {os.readlink(p)}\n".encode())
        elif p.is_file():
            h.update(f"F {rel} {p.stat().st_size}\n".encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def suites_hash(options: GradeOptions) -> str:
    """The tests that run, the reference they compare against and the lesson's own code (its suites'
    helpers): a changed suite, reference or lesson regrades (the lesson's name and version are in the
    config digest)."""
    h = hashlib.sha256()
    suites = options.suites_dir
    roots = [suites, options.solutions_dir] if options.hidden else [suites / "public", suites / "pytest.ini"]
    roots = [root for root in roots if root is not None]  # a lesson without a reference
    roots.append(lesson_source(options.lesson))
    for root in roots:
        h.update(hash_tree(root, skip_dotfiles=True).encode() if root.exists() else b"absent")
    return h.hexdigest()


def lesson_source(module: str) -> Path:
    """The folder of a lesson package (its module's file when it is a single module), found without
    importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return Path("/nonexistent")  # hashed as "absent"; grading it will say what is wrong
    origin = Path(spec.origin)
    return origin.parent if spec.submodule_search_locations else origin


# -- done-markers --------------------------------------------------------------------


def read_marker(student_dir: Path) -> dict | None:
    """The marker of a finished submission, or None if absent or unreadable."""
    try:
        marker = json.loads((student_dir / MARKER).read_text(encoding="utf-8"))
        json.loads((student_dir / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) else None


def is_done(marker: dict | None, sub_hash: str, suite_hash: str, config_hash: str, retry: bool) -> bool:
    if marker is None:
        return False
    if marker.get("status") not in FINAL_STATUSES or (retry and marker.get("status") != "graded"):
        return False
    return (marker.get("submission_hash"), marker.get("suites_hash"), marker.get("config_hash")) == (
        sub_hash, suite_hash, config_hash)


def plan(entries: list[Entry], out: Path, config: Config, *, force: bool = False,
         retry: bool = False) -> tuple[list[tuple[Entry, str]], list[Entry]]:
    """(to grade with their submission hash, already done) for this out folder."""
    suite_hash, config_hash = suites_hash(config.options), config.digest()
    todo, done = [], []
    for e in entries:
        sub_hash = hash_tree(e.path)
        marker = read_marker(out / e.name)
        if not force and is_done(marker, sub_hash, suite_hash, config_hash, retry):
            done.append(e)
        else:
            todo.append((e, sub_hash))
    return todo, done
