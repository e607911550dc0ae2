"""The checks a lesson passed only provisionally (``GradeHooks.ta_checks``), as results.json ``ta_checks``.

Each entry is a ``TACheck`` with ``points``: what a TA who takes it takes, its part's worth (the lesson's
``TACheck.points``) and never more than its provisionally passed tests earned. Everything downstream
(``grade review``, the class model, Gradescope's instructor view) reads these entries and never the
lesson: the kit names no lesson.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from grader.engine.lesson_api import Lesson, TACheck


def ta_checks_of(lesson: Lesson, results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The lesson's provisional checks of ``results``, each with its ``points``; [] when it declares
    none. A lesson's hook that fails costs no grade: said on stderr, no checks recorded."""
    try:
        hook = lesson.grade.ta_checks
        checks = list(hook(results)) if hook is not None else []
    except Exception as exc:  # a lesson's bug must not lose the grade it annotates
        print(f"grade: the lesson's ta_checks failed ({type(exc).__name__}: {exc}); no TA checks recorded",
              file=sys.stderr)
        return []
    earned = {str(t.get("id")): float(t.get("score") or 0.0) for t in results.get("tests") or []}
    out = []
    for c in checks:
        if not isinstance(c, TACheck):
            continue
        entry = asdict(c)
        entry["tests"] = [t for t in c.tests if t in earned]
        tests_earned = round(sum(earned[t] for t in entry["tests"]), 4)
        entry["points"] = tests_earned if c.points is None else round(min(c.points, tests_earned), 4)
        out.append(entry)
    return out


def checks_in(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The well-formed ``ta_checks`` of a results.json (none in one written before they existed)."""
    return [c for c in results.get("ta_checks") or []
            if isinstance(c, dict) and c.get("key") and isinstance(c.get("tests"), list)]


__all__ = ["checks_in", "ta_checks_of"]
