"""The `grade` command."""

from __future__ import annotations

import argparse
import locale
import os
import sys
from pathlib import Path

from grader.runner import GradeOptions, UsageProblem, grade_path, unreadable_results, write_results
from grader.sandbox import SandboxPolicy
from grader.submission import SubmissionError
from grader.summary import text_summary


def default_lang() -> str:
    for var in ("GRADE_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "ko" if value.lower().startswith("ko") else "en"
    loc = (locale.getlocale()[0] or "").lower()
    return "ko" if loc.startswith("ko") else "en"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="grade",
        description="Grade a submission for the lesson 'token embeddings + positional encoding'.",
    )
    p.add_argument("path", nargs="?", default="exercises",
                   help="submission: a folder, a .ipynb notebook or a .zip (default: ./exercises)")
    p.add_argument("--hidden", action="store_true", help="also run the hidden suite (instructor copy only)")
    p.add_argument("--out", default="reports", help="folder for results.json and the reports (default: reports/)")
    p.add_argument("--lang", choices=("ko", "en"), default=None, help="language of the feedback (default: locale)")
    p.add_argument("--isolation", choices=("auto", "namespaces", "process"), default="auto",
                   help="sandbox level for student code (default: the strongest this machine allows)")
    p.add_argument("--memory-mb", type=int, default=4096, help="memory limit of the student process (MiB)")
    p.add_argument("--hidden-visibility", choices=("visible", "hidden", "after_due_date", "after_published"),
                   default="after_published", help="Gradescope visibility of hidden tests")
    p.add_argument("-k", dest="keyword", default=None, help="only tests matching this pytest -k expression")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary on the terminal")
    return p


# `grade <command> ...`: each command lives in its own module with a main(argv).
COMMANDS: dict[str, str] = {
    "batch": "grader.batch",
    "merge": "grader.merge",
    "release": "grader.release",
    "gradescope-bundle": "grader.gradescope_bundle",
    "pack-hidden": "grader.hidden_pack",
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        import importlib

        return int(importlib.import_module(COMMANDS[argv[0]]).main(argv[1:]) or 0)
    return grade_one(argv)


def grade_one(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    lang = args.lang or default_lang()
    policy = SandboxPolicy(isolation=args.isolation, memory_bytes=args.memory_mb * 1024 * 1024)
    options = GradeOptions(hidden=args.hidden, lang=lang, policy=policy,
                           hidden_visibility=args.hidden_visibility, keyword=args.keyword)
    path = Path(args.path)
    out = Path(args.out)
    try:
        results = grade_path(path, options)
    except UsageProblem as exc:
        print(f"grade: {exc}", file=sys.stderr)
        return 2
    except SubmissionError as exc:
        write_results(unreadable_results(path.name, str(exc), options), out)
        print(f"grade: cannot read the submission: {exc}", file=sys.stderr)
        return 2
    write_results(results, out)
    summary = text_summary(results, lang)
    (out / "summary.txt").write_text(summary, encoding="utf-8")
    if not args.quiet:
        print(summary, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
