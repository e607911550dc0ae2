"""What one grading run is asked to do: typed options, importable without torch or pytest (the `grade`
process that hands the grading to a zygote fork parses them too)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grader.engine.results import Progress
from grader.engine.usage import UsageProblem
from grader.sandbox.launch import SandboxPolicy

__all__ = ["GradeOptions", "UsageProblem"]  # UsageProblem: engine/usage.py, raised here too


@dataclass(frozen=True)
class GradeOptions:
    """Everything one grading run depends on, complete at construction (batch copies it per child)."""

    hidden: bool = False
    lang: str = "en"
    policy: SandboxPolicy = field(default_factory=SandboxPolicy)
    hidden_visibility: str = "after_published"
    # None: the lesson's own folders, filled in at construction (a sealed archive brings its own)
    suites_dir: Path = None  # type: ignore[assignment]  # always a Path once constructed
    solutions_dir: Path | None = None  # the reference the suites compare against (None: the lesson has none)
    progress: Progress | None = None
    keyword: str | None = None
    lesson: str = ""  # the module declaring the LESSON graded ("": the one chosen here, engine/lessons.py)
    # The public seed (core/seeds.py): a student's own public run (`grade`, check(), the warm grader) sets
    # it; left False, every input is drawn from the submission seed (a batch, Gradescope, --hidden).
    public_seed: bool = False

    def __post_init__(self) -> None:
        """Fill in what was left to the lesson: which one (chosen from the working folder: its project
        setting, GK_LESSON, the only one installed), its suites, its reference."""
        if not self.lesson:
            from grader.engine.lessons import choose

            object.__setattr__(self, "lesson", choose(None, Path.cwd()).ref.module)
        if self.suites_dir is None or self.solutions_dir is None:
            from grader.engine.lessons import load_lesson

            declared = load_lesson(self.lesson)
            if self.suites_dir is None:
                if declared.suites is None:
                    raise UsageProblem(f"lesson {self.lesson!r} declares no suites folder (Lesson.suites)")
                object.__setattr__(self, "suites_dir", Path(declared.suites))
            if self.solutions_dir is None and declared.solutions is not None:
                object.__setattr__(self, "solutions_dir", Path(declared.solutions))
