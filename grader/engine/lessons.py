"""The installed lessons, found by entry point, the one way a command picks one, and loading it.

A lesson's distribution registers it in the entry-point group ``grader.lessons``: the name a person
types (``--lesson NAME``, ``[tool.grade] lesson = "NAME"``) → the module that declares ``LESSON``
(grader/engine/lesson_api.py). This course's lesson registers itself as ``embedding-pe``, the default
wherever nothing else says. The registry imports no lesson until one is loaded (``load_lesson``: a lesson
module's ``LESSON``): listing the names costs a read of the installed distributions' metadata, nothing more.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path

from grader.engine.lesson_api import Lesson
from grader.engine.results import LessonRecord
from grader.engine.usage import UsageProblem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the kit's pyproject requires tomli there
    import tomli as tomllib

GROUP = "grader.lessons"
DEFAULT_LESSON = "embedding-pe"  # graded where nothing names a lesson, when installed (lessons/embedding-pe)
PROJECT_FILE = "pyproject.toml"  # where a student repo says which lesson it is ([tool.grade] lesson)


@dataclass(frozen=True)
class LessonRef:
    """One installed lesson: its registered name and the module declaring its ``LESSON``."""

    name: str
    module: str

    def load(self) -> Lesson:
        """Its ``LESSON``; a package that fails to import, or declares none, is a usage problem (one line,
        exit 2) naming the lesson, not a traceback from inside `grade`."""
        try:
            return load_lesson(self.module)
        except (ImportError, TypeError) as exc:
            raise UsageProblem(
                f"lesson {self.name!r} ({self.module}) cannot be loaded: {type(exc).__name__}: {exc}"
            ) from exc


class UnknownLesson(UsageProblem):
    """A lesson name that no installed distribution registers (exit status 2, one line)."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(
            f"unknown lesson {name!r}: installed lessons are {', '.join(known) or 'none'}"
            f" (`grade lessons` lists them)"
        )


def installed() -> dict[str, LessonRef]:
    """Every registered lesson by name, sorted."""
    return dict(_installed(tuple(sys.path)))


@cache
def _installed(path: tuple[str, ...]) -> dict[str, LessonRef]:
    """installed() for one ``sys.path``: reading every distribution's metadata costs ~30 ms, and a grade
    asks several times (its flags, results.json's record, a batch's markers)."""
    found: dict[str, LessonRef] = {}
    for ep in entry_points(group=GROUP):
        # Two distributions claiming a name: the first found wins, as for console scripts.
        found.setdefault(ep.name, LessonRef(ep.name, ep.value.split(":")[0].strip()))
    return dict(sorted(found.items()))


@cache
def load_lesson(module: str = "") -> Lesson:
    """The ``LESSON`` a lesson module declares (imported by name: the kit imports no lesson); ``""``: the
    default lesson's (``default_lesson``)."""
    if not module:
        module = default_lesson().module
    lesson = getattr(importlib.import_module(module), "LESSON", None)
    if not isinstance(lesson, Lesson):
        raise TypeError(f"{module} declares no LESSON (a grader.author.Lesson)")
    return lesson


def default_lesson() -> LessonRef:
    """The lesson graded where nothing names one: ``DEFAULT_LESSON`` when installed, else the only lesson
    installed; none, or several and not that one, is a usage problem (one line, exit 2)."""
    lessons = installed()
    if DEFAULT_LESSON in lessons:
        return lessons[DEFAULT_LESSON]
    if len(lessons) == 1:
        return next(iter(lessons.values()))
    raise UsageProblem(
        f"no lesson named and {len(lessons) or 'no'} installed ({', '.join(lessons) or 'none'}): "
        "say which with --lesson NAME or [tool.grade] lesson in pyproject.toml"
    )


def private_folders() -> tuple[str, ...]:
    """Every installed lesson's package folder (its hidden suite, its solutions): the sandbox hides them
    from the worker as it hides the kit (an installed lesson sits in site-packages, which the worker's
    view binds). Found without importing a lesson."""
    import importlib.util

    found: list[str] = []
    for ref in installed().values():
        top = ref.module.partition(".")[0]
        try:
            spec = importlib.util.find_spec(ref.module if top == ref.module else top)
        except (ImportError, ValueError, OSError):
            # A lesson this user cannot even look up (an editable install in a folder it may not read, as
            # a non-root student beside root's checkout) cannot be graded by it either: nothing to hide.
            continue
        for loc in (spec.submodule_search_locations or []) if spec else []:
            found.append(str(Path(loc).resolve()))
    return tuple(dict.fromkeys(found))


def lookup(name: str) -> LessonRef:
    """The lesson registered as ``name`` (its module's name is accepted too, as ``GradeOptions`` holds it)."""
    lessons = installed()
    if name in lessons:
        return lessons[name]
    for ref in lessons.values():
        if ref.module == name:
            return ref
    raise UnknownLesson(name, list(lessons))


def name_of(module: str) -> str:
    """The registered name of the lesson ``module`` declares (the module itself when unregistered,
    as a lesson graded straight from ``GradeOptions(lesson=...)`` in a test is)."""
    return next((ref.name for ref in installed().values() if ref.module == module), module)


def project_lesson(start: Path) -> str | None:
    """The lesson a student repo names: ``[tool.grade] lesson`` in the nearest ``pyproject.toml`` that has
    a ``[tool.grade]`` table, walking up from ``start`` (a submission file or folder)."""
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        project = folder / PROJECT_FILE
        if not project.is_file():
            continue
        try:
            table = tomllib.loads(project.read_text(encoding="utf-8")).get("tool", {}).get("grade")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue  # an unreadable pyproject says nothing about the lesson; look further up
        if isinstance(table, dict):
            lesson = table.get("lesson")
            return lesson if isinstance(lesson, str) and lesson else None
    return None


def select(flag: str | None = None, *starts: Path | None) -> LessonRef:
    """The lesson a command grades: ``--lesson`` first, then the project setting found from each of
    ``starts`` in turn (the submission, then the working folder), then the default."""
    if flag:
        return lookup(flag)
    for start in starts:
        if start is not None and (named := project_lesson(start)):
            return lookup(named)
    return default_lesson()


def lesson_record(module: str) -> LessonRecord:
    """What results.json records of the lesson graded: enough for every report to title and order the
    tasks without importing the lesson (docs/contract.md, "results.json")."""
    lesson = load_lesson(module)
    return {
        "name": name_of(module),
        "module": module,
        "version": lesson.version,
        "title": {"en": lesson.title, "ko": lesson.title_in("ko")},
        "tasks": [{"name": t.name, "en": t.en, "ko": t.ko} for t in lesson.tasks],
    }
