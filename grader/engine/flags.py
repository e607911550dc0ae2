"""Command-line flags for what one grading run does, defined once for `grade` and `grade batch`, and the
typed options they stand for (no argv round trip: a batch builds its children's options from its own)."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.core.lang import default_lang
from grader.engine.lessons import ENV, LessonRef, select
from grader.engine.options import GradeOptions
from grader.sandbox.flags import add_sandbox_arguments, policy_from_args


def add_grading_arguments(p: argparse.ArgumentParser) -> None:
    """The flags `grade` and `grade batch` share: lesson, language, isolation and limits, the -k filter."""
    add_lesson_argument(p)
    p.add_argument("--lang", choices=("ko", "en"), default=None,
                   help="language of the feedback (default: locale)")
    p.add_argument("--isolation", choices=("auto", "namespaces", "uid", "process"), default="auto",
                   help="sandbox level for student code (default: the strongest this machine allows)")
    p.add_argument("--memory-mb", type=int, default=4096, help="memory limit of the student process (MiB)")
    p.add_argument("-k", dest="keyword", default=None, help="only tests matching this pytest -k expression")
    add_sandbox_arguments(p)


def add_lesson_argument(p: argparse.ArgumentParser) -> None:
    """--lesson, the same on every command that grades or ships a lesson (grader/engine/lessons.py)."""
    p.add_argument("--lesson", default=None, metavar="NAME",
                   help=f"the lesson graded, by its installed name (`grade lessons` lists them and marks the "
                        f"one chosen here; default: [tool.grade] lesson in the nearest pyproject.toml, else "
                        f"${ENV}, else the lesson whose files the folder holds, else the only one installed)")


def lesson_from_args(args: argparse.Namespace, *starts: Path | None) -> LessonRef:
    """The lesson the flags pick: --lesson, else the project setting found from ``starts`` (the submission)
    or the working folder, else the rest of ``lessons.choose``. UnknownLesson (a UsageProblem: exit 2)
    for a name not installed, a UsageProblem where nothing picks one."""
    return select(getattr(args, "lesson", None), *starts, Path.cwd())


def lesson_options(ref: LessonRef) -> dict:
    """GradeOptions' fields that follow from the lesson: its module, and the suites and solutions it
    declares (the kit's own folders where it declares none)."""
    lesson = ref.load()
    fields: dict = {"lesson": ref.module}
    if lesson.suites is not None:
        fields["suites_dir"] = lesson.suites
    if lesson.solutions is not None:
        fields["solutions_dir"] = lesson.solutions
    return fields


def add_hidden_arguments(p: argparse.ArgumentParser) -> None:
    """`grade`'s flags for the hidden suite (a batch takes them in --grade-args)."""
    p.add_argument("--hidden", action="store_true", help="also run the hidden suite (instructor copy only)")
    p.add_argument("--hidden-visibility", choices=("visible", "hidden", "after_due_date", "after_published"),
                   default="after_published", help="Gradescope visibility of hidden tests")
    p.add_argument("--hidden-from", default=None, metavar="ARCHIVE",
                   help="run the hidden suite sealed in ARCHIVE by `grade pack-hidden` (key in --key-env)")
    p.add_argument("--key-env", default="GK_HIDDEN_KEY", metavar="NAME",
                   help="environment variable holding the archive's passphrase (default: GK_HIDDEN_KEY)")


def options_from_args(args: argparse.Namespace, *starts: Path | None) -> GradeOptions:
    """The typed options parsed flags stand for, the lesson picked as lesson_from_args says; the caller
    opens --hidden-from's archive (an instructor tool: instructor/hidden_pack.py's options_with_archive)."""
    return GradeOptions(hidden=bool(args.hidden), lang=args.lang or default_lang(),
                        policy=policy_from_args(args), hidden_visibility=args.hidden_visibility,
                        keyword=args.keyword, **lesson_options(lesson_from_args(args, *starts)))
