"""Where the lesson's folders live: inside the package, so they travel in its wheel as package data."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
EXERCISES = PACKAGE / "exercises"  # the student's stubs (what `grade release` ships)
SOLUTIONS = PACKAGE / "solutions"  # the reference (hidden suite only; never in a student release)
SUITES = PACKAGE / "suites"  # pytest.ini, public/, hidden/
PROBES = PACKAGE / "probes.py"  # worker probes: the layer with the reference parts (Lesson.probes)
NOTES = PACKAGE / "NOTES.md"  # the lesson notes, in Korean and English
