"""Command-line flags for what one grading run does, defined once for `grade` and `grade batch`, and the
typed options they stand for (no argv round trip: a batch builds its children's options from its own)."""

from __future__ import annotations

import argparse

from grader.core.lang import default_lang
from grader.engine.options import GradeOptions
from grader.sandbox.flags import add_sandbox_arguments, policy_from_args


def add_grading_arguments(p: argparse.ArgumentParser) -> None:
    """The flags `grade` and `grade batch` share: language, isolation and limits, the -k filter."""
    p.add_argument("--lang", choices=("ko", "en"), default=None,
                   help="language of the feedback (default: locale)")
    p.add_argument("--isolation", choices=("auto", "namespaces", "uid", "process"), default="auto",
                   help="sandbox level for student code (default: the strongest this machine allows)")
    p.add_argument("--memory-mb", type=int, default=4096, help="memory limit of the student process (MiB)")
    p.add_argument("-k", dest="keyword", default=None, help="only tests matching this pytest -k expression")
    add_sandbox_arguments(p)


def add_hidden_arguments(p: argparse.ArgumentParser) -> None:
    """`grade`'s flags for the hidden suite (a batch takes them in --grade-args)."""
    p.add_argument("--hidden", action="store_true", help="also run the hidden suite (instructor copy only)")
    p.add_argument("--hidden-visibility", choices=("visible", "hidden", "after_due_date", "after_published"),
                   default="after_published", help="Gradescope visibility of hidden tests")
    p.add_argument("--hidden-from", default=None, metavar="ARCHIVE",
                   help="run the hidden suite sealed in ARCHIVE by `grade pack-hidden` (key in --key-env)")
    p.add_argument("--key-env", default="GK_HIDDEN_KEY", metavar="NAME",
                   help="environment variable holding the archive's passphrase (default: GK_HIDDEN_KEY)")


def options_from_args(args: argparse.Namespace) -> GradeOptions:
    """The typed options parsed flags stand for; the caller opens --hidden-from's archive (an instructor
    tool: instructor/hidden_pack.py's options_with_archive)."""
    return GradeOptions(hidden=bool(args.hidden), lang=args.lang or default_lang(),
                        policy=policy_from_args(args), hidden_visibility=args.hidden_visibility,
                        keyword=args.keyword)
