"""The installed lessons, found by entry point, the one way a command picks one, and loading it.

A lesson's distribution registers it in the entry-point group ``grader.lessons``: the name a person
types (``--lesson NAME``, ``[tool.grade] lesson = "NAME"``) → the module that declares ``LESSON``
(grader/engine/lesson_api.py). The kit names no lesson of its own: a command grades the one ``choose``
finds, in this order: ``--lesson``; ``[tool.grade] lesson`` in the nearest pyproject.toml (a student's
release writes it; so does this course's checkout); ``GK_LESSON`` in the environment; the installed lesson
whose modules the graded folder holds (``embedding.py``: embedding-pe); the only lesson installed; else a
one-line usage problem (exit 2) listing them and how to name one. The registry imports no lesson until
one is loaded (``load_lesson``: a lesson module's ``LESSON``): listing the names costs a read of the
installed distributions' metadata, nothing more.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path

from grader.core.lang import particle
from grader.engine.lesson_api import Lesson
from grader.engine.results import LessonRecord
from grader.engine.usage import UsageProblem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the kit's pyproject requires tomli there
    import tomli as tomllib

GROUP = "grader.lessons"
ENV = "GK_LESSON"  # a machine's lesson where no project names one (a TA's shell grading bare folders)
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

    def __init__(self, name: str, known: list[str], where: str = "") -> None:
        super().__init__(
            f"unknown lesson {name!r}{f' ({where})' if where else ''}: installed lessons are "
            f"{', '.join(known) or 'none'} (`grade lessons` lists them)"
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


def load_lesson(module: str = "") -> Lesson:
    """The ``LESSON`` a lesson module declares (imported by name: the kit imports no lesson); ``""``: the
    lesson chosen from the working folder (``choose``), chosen anew each time (a warm grader serves many
    folders), its declaration loaded once."""
    return _declared(module or choose(None, Path.cwd()).ref.module)


@cache
def _declared(module: str) -> Lesson:
    lesson = getattr(importlib.import_module(module), "LESSON", None)
    if not isinstance(lesson, Lesson):
        raise TypeError(f"{module} declares no LESSON (a grader.author.Lesson)")
    return lesson


load_lesson.cache_clear = _declared.cache_clear  # type: ignore[attr-defined]  # a test's fresh declaration


@dataclass(frozen=True)
class Choice:
    """The lesson a command grades and why: ``how`` says which rule picked it, ``where`` what it read
    (the pyproject.toml, the files that matched), for `grade lessons`."""

    ref: LessonRef
    how: str  # "flag", "project", "env", "files" or "only"
    where: str = ""

    def why(self, lang: str = "en") -> str:
        """One line saying why, in ``lang``."""
        en, ko = {
            "flag": ("--lesson names it", "--lesson으로 지정"),
            "project": (f"[tool.grade] lesson in {self.where}", f"{self.where}의 [tool.grade] lesson"),
            "env": (f"{ENV} names it", f"{ENV}로 지정"),
            "files": (f"the folder holds its {self.where}", f"폴더에 {particle(self.where, '가')} 있음"),
            "only": ("the only lesson installed", "설치된 유일한 레슨"),
        }[self.how]
        return ko if lang == "ko" else en


def choose(flag: str | None = None, *starts: Path | None) -> Choice:
    """The lesson a command grades, and why: ``flag`` (--lesson); else the project setting found from
    each of ``starts`` in turn (the submission, then the working folder); else ``GK_LESSON``; else the one
    installed lesson whose modules a start folder holds; else the only lesson installed. None of them
    (several installed, nothing naming one) is a usage problem: one line, exit 2."""
    if flag:
        return Choice(lookup(flag), "flag")
    folders = [Path(s) for s in starts if s is not None]
    for start in folders:
        if (found := project_setting(start)) is not None:
            return Choice(lookup(found[0], f"[tool.grade] lesson in {found[1]}"), "project", str(found[1]))
    if named := os.environ.get(ENV, "").strip():
        return Choice(lookup(named, f"{ENV} in the environment"), "env")
    for start in folders:
        held = holding(start)
        if len(held) == 1:
            ((name, files),) = held.items()
            return Choice(installed()[name], "files", ", ".join(files))
    lessons = installed()
    if len(lessons) == 1:
        return Choice(next(iter(lessons.values())), "only")
    raise UsageProblem(
        f"no lesson named and {len(lessons) or 'no'} installed ({', '.join(lessons) or 'none'}): "
        f"say which with --lesson NAME, [tool.grade] lesson = \"NAME\" in pyproject.toml or {ENV}=NAME"
    )


def holding(start: Path) -> dict[str, list[str]]:
    """Each installed lesson some of whose modules (``Layout.modules``) the folder ``start`` holds (a
    file's folder, for a notebook or a zip), or its ``exercises/`` (what `grade` grades there by default),
    with those files. Loads the installed lessons; one that fails to load holds nothing."""
    folder = start if start.is_dir() else start.parent
    here = {p.name for f in (folder, folder / "exercises") if f.is_dir() for p in f.glob("*.py")}
    found: dict[str, list[str]] = {}
    for name, ref in installed().items() if here else ():
        try:
            modules = load_lesson(ref.module).layout.modules
        except Exception:  # a lesson that does not load owns no files here
            continue
        if files := sorted(f"{m}.py" for m in modules if f"{m}.py" in here):
            found[name] = files
    return found


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


def lookup(name: str, where: str = "") -> LessonRef:
    """The lesson registered as ``name`` (its module's name is accepted too, as ``GradeOptions`` holds it);
    ``where`` says, for an unknown one, where the name was read."""
    lessons = installed()
    if name in lessons:
        return lessons[name]
    for ref in lessons.values():
        if ref.module == name:
            return ref
    raise UnknownLesson(name, list(lessons), where)


def name_of(module: str) -> str:
    """The registered name of the lesson ``module`` declares (the module itself when unregistered,
    as a lesson graded straight from ``GradeOptions(lesson=...)`` in a test is)."""
    return next((ref.name for ref in installed().values() if ref.module == module), module)


def project_setting(start: Path) -> tuple[str, Path] | None:
    """(the lesson, the file) a student repo names: ``[tool.grade] lesson`` in the nearest
    ``pyproject.toml`` that has a ``[tool.grade]`` table, walking up from ``start`` (a submission file or
    folder)."""
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
            return (lesson, project) if isinstance(lesson, str) and lesson else None
    return None


def project_lesson(start: Path) -> str | None:
    """The lesson a student repo names (``project_setting``), or None."""
    found = project_setting(start)
    return found[0] if found is not None else None


def select(flag: str | None = None, *starts: Path | None) -> LessonRef:
    """The lesson a command grades (``choose``)."""
    return choose(flag, *starts).ref


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
