"""The kit and the lesson a process grades with, by version and content, so that a worker with another
copy than the instructor's is refused by name before it grades anything (its grades would differ)."""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import platform
from pathlib import Path

from grader.engine.lessons import load_lesson, name_of
from grader.instructor.batch.discovery import lesson_source

# What grades: code, templates, suites' configuration. The hidden suite and the reference travel with
# each task (sealed), so a worker's copy of them (or their absence: a student wheel) does not count; nor
# does what only a built wheel carries (kitdata/, the lesson's exercises/): a checkout and the wheels
# `pip wheel` builds from it hash alike.
SUFFIXES = {".py", ".j2", ".ini", ".json", ".html", ".css", ".js", ".md", ".txt"}
SKIPPED = {"__pycache__", "hidden", "solutions", "exercises", "kitdata", ".pytest_cache"}


KIT_PACKAGE = Path(__file__).resolve().parents[2]  # grader/, wherever it is installed


def tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    files = [root] if root.is_file() else sorted(root.rglob("*"))
    for f in files:
        rel = f.relative_to(root).parts if f != root else (f.name,)
        if f.suffix not in SUFFIXES or SKIPPED.intersection(rel) or not f.is_file():
            continue
        h.update("/".join(rel).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def kit_version() -> str:
    try:
        return importlib.metadata.version("pe-grader")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@functools.lru_cache(maxsize=8)
def fingerprint(lesson_module: str) -> dict[str, str]:
    """{kit, kit_hash, lesson, lesson_version, lesson_hash, python} of this process (cached: one copy
    per worker process)."""
    lesson = load_lesson(lesson_module)
    return {
        "kit": kit_version(), "kit_hash": tree_hash(KIT_PACKAGE),
        "lesson": name_of(lesson_module), "lesson_version": str(lesson.version),
        "lesson_hash": tree_hash(lesson_source(lesson_module)),
        "python": platform.python_version(),
    }


COMPARED = ("kit", "kit_hash", "lesson", "lesson_version", "lesson_hash")


def difference(mine: dict[str, str], theirs: dict[str, str]) -> str:
    """What differs between the instructor's fingerprint and a worker's ('' when they grade alike)."""
    parts = []
    if (mine["kit"], mine["kit_hash"]) != (theirs.get("kit"), theirs.get("kit_hash")):
        parts.append(f"kit {theirs.get('kit')} ({theirs.get('kit_hash')}) where the instructor's is "
                     f"{mine['kit']} ({mine['kit_hash']})")
    if tuple(mine[k] for k in COMPARED[2:]) != tuple(theirs.get(k) for k in COMPARED[2:]):
        parts.append(f"lesson {theirs.get('lesson')} {theirs.get('lesson_version')} "
                     f"({theirs.get('lesson_hash')}) where the instructor's is {mine['lesson']} "
                     f"{mine['lesson_version']} ({mine['lesson_hash']})")
    return "; ".join(parts)


def refusal(worker: str, diff: str) -> str:
    return (f"worker {worker} grades with another copy: {diff}; install the instructor's wheels there "
            f"(docs/cluster.md) / 워커 {worker}의 키트 또는 레슨이 강사의 것과 다릅니다: 같은 wheel을 "
            f"설치하세요")
