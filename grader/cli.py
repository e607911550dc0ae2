"""The `grade` command."""

from __future__ import annotations

import argparse
import locale
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from grader.engine.options import GradeOptions
from grader.sandbox.flags import add_sandbox_arguments, policy_from_args

if TYPE_CHECKING:
    from grader.engine.results import Results


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
    p.add_argument("--out", default="reports",
                   help="folder for results.json and the reports (default: reports/)")
    p.add_argument("--lang", choices=("ko", "en"), default=None,
                   help="language of the feedback (default: locale)")
    p.add_argument("--isolation", choices=("auto", "namespaces", "process"), default="auto",
                   help="sandbox level for student code (default: the strongest this machine allows)")
    p.add_argument("--memory-mb", type=int, default=4096, help="memory limit of the student process (MiB)")
    p.add_argument("--hidden-visibility", choices=("visible", "hidden", "after_due_date", "after_published"),
                   default="after_published", help="Gradescope visibility of hidden tests")
    p.add_argument("-k", dest="keyword", default=None, help="only tests matching this pytest -k expression")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary on the terminal")
    add_sandbox_arguments(p)
    # GitHub Actions / Classroom (grader/report/ci.py, docs/ci.md).
    p.add_argument("--ci", action="store_true",
                   help="also write $GITHUB_STEP_SUMMARY, ::error annotations and Classroom's `result` "
                        "output")
    p.add_argument("--fail-under", type=float, default=None, metavar="SCORE",
                   help="exit status 1 when the score is below SCORE (for branch protection)")
    p.add_argument("--hidden-from", default=None, metavar="ARCHIVE",
                   help="run the hidden suite sealed in ARCHIVE by `grade pack-hidden` (key in --key-env)")
    p.add_argument("--key-env", default="GK_HIDDEN_KEY", metavar="NAME",
                   help="environment variable holding the archive's passphrase (default: GK_HIDDEN_KEY)")
    return p


# `grade <command> ...`: each command lives in its own module with a main(argv).
COMMANDS: dict[str, str] = {
    "batch": "grader.instructor.batch",
    "merge": "grader.instructor.merge",
    "release": "grader.instructor.release",
    "gradescope-bundle": "grader.instructor.gradescope_bundle",
    "pack-hidden": "grader.instructor.hidden_pack",
    "export": "grader.instructor.export",
}


# Commands whose grading the zygote's fork may do (grader/sandbox/host.py): `grade` and `grade batch`.
HOSTED = ("batch",)


def program() -> int:
    """The `grade` program: its grading done by a fork of the zygote where there is one (one copy of
    torch for the whole tree, grader/sandbox/host.py), else here."""
    argv = sys.argv[1:]
    code = run_hosted(argv)
    return main(argv) if code is None else code


def main(argv: list[str] | None = None) -> int:
    """`grade argv` in this process (the library's entry: tests, the batch's children, the zygote's fork)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        import importlib

        try:
            command = importlib.import_module(COMMANDS[argv[0]])
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("grader.instructor"):
                print(f"grade {argv[0]}: an instructor command, not in the student copy of the kit / "
                      f"강사용 명령이라 학생용 키트에는 없습니다", file=sys.stderr)
                return 2
            raise
        return int(command.main(argv[1:]) or 0)
    return grade_one(argv)


def run_hosted(argv: list[str]) -> int | None:
    """`argv` graded by a fork of the zygote, which shares its torch with every worker; its exit
    status, or None to grade here (no zygote on this machine, another command, a usage error)."""
    if argv and argv[0] in COMMANDS and argv[0] not in HOSTED:
        return None
    if argv and argv[0] in HOSTED:
        try:
            from grader.instructor.batch import build_parser as batch_parser
        except ModuleNotFoundError:
            return None
        parser, rest = batch_parser(), argv[1:]
    else:
        parser, rest = build_parser(), argv
    try:
        args = parser.parse_args(rest)
    except SystemExit:
        return None  # --help, or a usage error: printed where it is run
    from grader.sandbox import host

    return host.run_hosted(argv, policy_from_args(args))


def write_feedback(results: Results, out: Path, lang: str, path: Path) -> None:
    """feedback.html, feedback.md, gradescope.json next to results.json (grader/report)."""
    from grader.report import write_reports

    try:
        write_reports(results, out, lang, path.as_posix())
    except Exception as exc:  # results.json is written: a report bug must not hide the grade
        print(f"grade: could not write the feedback reports ({type(exc).__name__}: {exc})", file=sys.stderr)


def grade_one(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    options = options_from_args(args)
    if args.hidden_from:
        try:
            options = with_hidden_archive(options, Path(args.hidden_from), args.key_env)
        except ValueError as exc:
            print(f"grade: --hidden-from: {exc}", file=sys.stderr)
            return 2
    return run_grade(Path(args.path), Path(args.out), options, quiet=args.quiet, ci=args.ci,
                     fail_under=args.fail_under)


def options_from_args(args: argparse.Namespace) -> GradeOptions:
    """The typed options a `grade` command line stands for (batch builds its children's from it)."""
    return GradeOptions(hidden=args.hidden, lang=args.lang or default_lang(), policy=policy_from_args(args),
                        hidden_visibility=args.hidden_visibility, keyword=args.keyword)


def with_hidden_archive(options: GradeOptions, archive: Path, key_env: str) -> GradeOptions:
    """``options`` pointed at the hidden suite sealed in ``archive``; ValueError with the reason."""
    try:
        from grader.instructor.hidden_pack import HiddenArchiveError, open_hidden_archive
    except ModuleNotFoundError:
        raise ValueError("needs the instructor copy of the kit / 강사용 키트에서만 쓸 수 있습니다") from None
    try:
        unpacked = open_hidden_archive(archive, options.suites_dir, key_env)
    except HiddenArchiveError as exc:
        raise ValueError(str(exc)) from None
    policy = replace(options.policy, hide=(*options.policy.hide, str(unpacked.root)))
    solutions = (unpacked.solutions if (unpacked.solutions / "embedding.py").is_file()
                 else options.solutions_dir)
    return replace(options, hidden=True, suites_dir=unpacked.suites_dir, solutions_dir=solutions,
                   policy=policy)


def run_grade(path: Path, out: Path, options: GradeOptions, *, quiet: bool = False, ci: bool = False,
              fail_under: float | None = None) -> int:
    """Grade ``path`` into ``out`` (results.json and every report); the `grade` exit status.

    `grade` and each child of `grade batch` call this with complete, typed options.
    """
    from grader.engine.runner import UsageProblem, grade_path, unreadable_results, write_results
    from grader.engine.submission import SubmissionError
    from grader.report.terminal import progress_for
    from grader.report.text import text_summary

    lang = options.lang
    if options.progress is None and not quiet:
        options = replace(options, progress=progress_for(lang, quiet))
    try:
        try:
            results = grade_path(path, options)
        finally:
            if options.progress is not None:
                options.progress.close()
    except UsageProblem as exc:
        print(f"grade: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("grade: interrupted, nothing written / 중단되어 아무것도 쓰지 않았습니다", file=sys.stderr)
        return 130
    except SubmissionError as exc:
        unreadable = unreadable_results(path.name, str(exc), options)
        write_results(unreadable, out)
        write_feedback(unreadable, out, lang, path)
        print(f"grade: cannot read the submission / 제출물을 읽을 수 없습니다: {exc}", file=sys.stderr)
        if ci:
            from grader.report import ci as ci_outputs

            return ci_outputs.finish(unreadable, sub_path=path, out=out, lang=lang, fail_under=fail_under,
                                     exit_status=2)
        return 2
    from grader.engine.history import prepare

    out = prepare(results, out, options.keyword)  # `previous`; a filtered run beside a full one
    write_results(results, out)
    write_feedback(results, out, lang, path)
    summary = text_summary(results, lang)
    (out / "summary.txt").write_text(summary, encoding="utf-8")
    if not quiet:
        from grader.report.terminal import print_summary

        print_summary(results, lang, path.as_posix())
    if ci:
        from grader.report import ci as ci_outputs

        return ci_outputs.finish(results, sub_path=path, out=out, lang=lang, fail_under=fail_under)
    return 1 if fail_under is not None and results["score"] < fail_under else 0


if __name__ == "__main__":
    sys.exit(program())
