"""A submission of another lesson than the one graded (`grade --lesson attention` in an embedding copy).

Its points under the wrong lesson are no one's: every report says whose folder it is and how to grade it
as that lesson, and its history (the folder's results of its own lesson) is kept (engine/history.py). Read
from the project setting (``[tool.grade] lesson`` in the submission's pyproject.toml) and, where none says,
from the files: a folder holding another lesson's modules and none of the graded one's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.engine.lessons import installed, lookup, name_of, project_lesson


def other_lesson(path: Path, module: str) -> dict[str, Any] | None:
    """{"name", "title": {"en", "ko"}, "project": whether pyproject.toml says so, "files": its modules
    found} of the lesson ``path`` belongs to where that is not the graded ``module``'s; None otherwise."""
    graded = name_of(module)
    try:
        named = project_lesson(path)
        if named and lookup(named).name != graded:
            return _record(lookup(named).name, True, [])
    except Exception:  # an unknown name in pyproject.toml is the project's own problem, said elsewhere
        pass
    folder = Path(path)
    if not folder.is_dir():
        return None
    here = {p.stem for p in folder.glob("*.py")}
    lessons = {ref.name: ref for ref in installed().values()}
    own = set(_modules(lessons[graded].module)) if graded in lessons else set()
    if here & own:
        return None
    for name, ref in sorted(lessons.items()):
        theirs = sorted(set(_modules(ref.module)) & here)
        if name != graded and theirs:
            return _record(name, False, [f"{m}.py" for m in theirs])
    return None


def _modules(module: str) -> tuple[str, ...]:
    from grader.engine.lessons import load_lesson

    try:
        return tuple(load_lesson(module).layout.modules)
    except Exception:  # a lesson that does not load owns no files here
        return ()


def _record(name: str, project: bool, files: list[str]) -> dict[str, Any]:
    from grader.engine.lessons import load_lesson

    try:
        lesson = load_lesson(lookup(name).module)
        title = {"en": lesson.title or name, "ko": lesson.title_in("ko") or name}
    except Exception:
        title = {"en": name, "ko": name}
    return {"name": name, "title": title, "project": project, "files": files}
