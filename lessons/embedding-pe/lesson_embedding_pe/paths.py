"""This lesson's folders: its suites in the package; its stubs and reference at the course's top level in a
checkout (an editable install), or copied into the package by a wheel's build (setup.py)."""

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
SUITES = PACKAGE / "suites"
_COURSE = PACKAGE.parent.parent.parent  # the checkout: lessons/embedding-pe/lesson_embedding_pe -> root


def _folder(name: str) -> Path:
    packaged = PACKAGE / name
    return packaged if packaged.is_dir() else _COURSE / name


EXERCISES = _folder("exercises")  # the student's stubs, which `grade release` ships
SOLUTIONS = _folder("solutions")  # the reference (hidden suite only; never in a student release)
