"""A submission of another lesson than the one graded (`grade --lesson attention` in an embedding copy).

Its points under the wrong lesson are no one's: every report says whose folder it is and how to grade it
as that lesson, and its history (the folder's results of its own lesson) is kept (engine/history.py). Read
from the project setting (``[tool.grade] lesson`` in the submission's pyproject.toml) and, where none says,
from the files: a folder holding another lesson's modules and none of the graded one's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.engine.lessons import holding, lookup, name_of, project_lesson


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
    held = holding(folder)  # the installed lessons whose modules the folder holds, with those files
    if graded in held:
        return None
    return next((_record(name, False, files) for name, files in sorted(held.items())), None)


def _record(name: str, project: bool, files: list[str]) -> dict[str, Any]:
    from grader.engine.lessons import load_lesson

    try:
        lesson = load_lesson(lookup(name).module)
        title = {"en": lesson.title or name, "ko": lesson.title_in("ko") or name}
    except Exception:
        title = {"en": name, "ko": name}
    return {"name": name, "title": title, "project": project, "files": files}
