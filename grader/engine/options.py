"""What one grading run is asked to do: typed options, importable without torch or pytest (the `grade`
process that hands the grading to a zygote fork parses them too)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grader.engine.results import Progress
from grader.paths import LESSON_MODULE, SOLUTIONS, SUITES_DIR
from grader.sandbox.launch import SandboxPolicy


class UsageProblem(Exception):
    """The command was misused (exit status 2)."""


@dataclass(frozen=True)
class GradeOptions:
    """Everything one grading run depends on, complete at construction (batch copies it per child)."""

    hidden: bool = False
    lang: str = "en"
    policy: SandboxPolicy = field(default_factory=SandboxPolicy)
    hidden_visibility: str = "after_published"
    suites_dir: Path = SUITES_DIR
    solutions_dir: Path = SOLUTIONS  # the reference the suites compare against (a sealed archive has its own)
    progress: Progress | None = None
    keyword: str | None = None
    lesson: str = LESSON_MODULE  # the module declaring the LESSON graded (grader/engine/lesson_api.py)
