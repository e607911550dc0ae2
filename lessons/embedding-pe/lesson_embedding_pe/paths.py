"""This lesson's folders: its suites in the package; its stubs and reference at the course's top level in a
checkout (an editable install), copied into the package by a wheel's build (setup.py), or beside it in a
student's release."""

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
SUITES = PACKAGE / "suites"
_COURSE = PACKAGE.parent.parent.parent  # the checkout: lessons/embedding-pe/lesson_embedding_pe -> root


def _folder(name: str) -> Path:
    """In the package (a wheel), else beside it (a student's release: the package next to exercises/),
    else at the checkout's top level."""
    for folder in (PACKAGE / name, PACKAGE.parent / name):
        if folder.is_dir():
            return folder
    return _COURSE / name


EXERCISES = _folder("exercises")  # the student's stubs, which `grade release` ships
SOLUTIONS = _folder("solutions")  # the reference (hidden suite only; never in a student release)
