"""The `grade` command: parses and dispatches; nothing in grader/ imports it.

Grading one submission is grader/report/run.py's; `grade <command>` runs the module COMMANDS names (the
instructor's, absent from the student copy), found by name so that nothing here imports them.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import signal
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from types import ModuleType

from grader.core.lang import default_lang, lang_of
from grader.engine.flags import (
    add_grading_arguments,
    add_hidden_arguments,
    lesson_from_args,
    options_from_args,
)
from grader.engine.lesson_api import Layout
from grader.engine.lessons import select
from grader.engine.options import GradeOptions, UsageProblem
from grader.sandbox.flags import policy_from_args
from grader.sandbox.launch import SandboxPolicy

# What the zygote's fork runs (grader/sandbox/host.py): this module's main, by name.
HOST_ENTRY = "grader.cli:main"


# What a student needs from `grade --help`, in the language they read; every other flag (sandbox
# limits, the hidden suite, CI, Gradescope) is the instructor's and shown only in the instructor copy.
STUDENT_HELP = {
    "path": ("submission: a folder, a .ipynb notebook or a .zip (default: ./exercises)",
             "채점할 제출물: 폴더, .ipynb 노트북 또는 .zip (기본값: ./exercises)"),
    "out": ("folder for results.json and the reports (default: reports/, or reports/NAME/ for a notebook "
            "or another folder)",
            "results.json과 보고서를 쓸 폴더 (기본값: reports/, 노트북이나 다른 폴더는 reports/이름/)"),
    "lang": ("language of the feedback: ko or en (default: the system's)",
             "피드백 언어: ko 또는 en (기본값: 시스템 언어)"),
    "keyword": ("only the checks matching EXPR: a task's name, as in the table `grade` prints, or a "
                "pytest -k expression",
                "EXPR에 맞는 검사만 실행: `grade`가 출력하는 표의 과제 이름, 또는 pytest -k 식"),
    "quiet": ("no summary on the terminal", "터미널에 요약을 출력하지 않음"),
    "no_daemon": ("grade cold, without the warm grader kept between runs",
                  "실행 사이에 상주하는 채점기 없이 새로 채점"),
    "stop_daemon": ("stop your warm grader and exit", "상주 채점기를 끄고 끝냄"),
    "watch": ("grade again on every save: the score, what changed and the three things to fix first",
              "저장할 때마다 다시 채점: 점수, 바뀐 점, 가장 먼저 고칠 세 가지"),
    "help": ("show this help and exit", "이 도움말을 보여 주고 끝냄"),
}
# The student's help names the lesson `grade` would grade here ({title}: its own title, lesson_title).
DESCRIPTION = ("Grade your exercises for the lesson '{title}' with the public tests. The hidden tests run "
               "when you submit.",
               "'{title}' 실습을 공개 테스트로 채점합니다. 숨은 테스트는 제출할 때 실행됩니다.")
DESCRIPTION_ANY = ("Grade your exercises with the public tests. The hidden tests run when you submit.",
                   "실습을 공개 테스트로 채점합니다. 숨은 테스트는 제출할 때 실행됩니다.")
# The one subcommand of the student's copy (the instructor's are not in it).
STUDENT_COMMANDS = ("command: `grade lessons` lists the lessons this copy grades",
                    "명령: `grade lessons`는 이 키트로 채점할 수 있는 레슨을 보여 줍니다")


def _wants_help(argv: list[str]) -> bool:
    """Only --help prints the description: no lesson is loaded for it otherwise."""
    return "-h" in argv or "--help" in argv


def lesson_title(argv: list[str]) -> tuple[str, str] | None:
    """(en, ko) title of the lesson `grade` picks for ``argv`` here: --lesson, else the rest of
    ``lessons.choose`` from the working folder; None if none is chosen or it cannot be loaded (the run
    itself then says why, in one line)."""
    flag = next((a.split("=", 1)[1] for a in argv if a.startswith("--lesson=")), None)
    if flag is None and "--lesson" in argv[:-1]:
        flag = argv[argv.index("--lesson") + 1]
    try:
        lesson = select(flag, Path.cwd()).load()
    except (UsageProblem, OSError):
        return None
    return lesson.title_en, lesson.title_ko


def instructor_copy() -> bool:
    """Whether this is the instructor's copy of the kit (`grade release` leaves grader/instructor out)."""
    return importlib.util.find_spec("grader.instructor") is not None


def help_lang(argv: list[str]) -> str:
    """The language of --help: --lang on the same command line, else the locale's."""
    return lang_of(argv)


def build_parser(lang: str | None = None, title: tuple[str, str] | None = None) -> argparse.ArgumentParser:
    """`grade`'s flags. The student copy documents only the student's, in ``lang``, for the lesson
    titled ``title`` (lesson_title); every flag still parses (a CI job may pass --fail-under), so the
    short help hides nothing that would break."""
    student = not instructor_copy()
    ko = (lang or default_lang()) == "ko" and student
    k = 1 if ko else 0
    p = argparse.ArgumentParser(
        prog="grade",
        description=(DESCRIPTION[k].format(title=title[k]) if title else DESCRIPTION_ANY[k]) if student else
        "Grade a submission for a lesson (--lesson; default: the project's [tool.grade] lesson, else "
        "$GK_LESSON, else the lesson whose files the folder holds, else the only one installed). "
        "`grade lessons` lists the lessons and marks the one chosen here.",
        # the subcommands this copy of the kit has (the student's lacks the instructor's): `grade CMD --help`
        epilog=STUDENT_COMMANDS[k] if student else textwrap.fill(
            "commands (grade COMMAND --help): " + ", ".join(
                name for name, module in COMMANDS.items() if importlib.util.find_spec(module) is not None),
            78, break_on_hyphens=False),
        formatter_class=argparse.HelpFormatter if student else _KeepEpilog,
    )
    # path and --out default to None so that `grade` inside a submission can tell (resolve_target).
    p.add_argument("path", nargs="?", default=None,
                   help="submission: a folder, a .ipynb notebook or a .zip (default: ./exercises)")
    p.add_argument("--out", default=None,
                   help="folder for results.json and the reports (default: reports/)")
    add_grading_arguments(p)
    add_hidden_arguments(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no summary on the terminal")
    # The warm grader (grader/daemon/): an interactive `grade` leaves one for the next run.
    p.add_argument("--no-daemon", action="store_true", help="grade cold, without the warm grader")
    p.add_argument("--stop-daemon", action="store_true", help="stop your warm grader and exit")
    p.add_argument("--watch", action="store_true",
                   help="grade again on every save, printing the score, the change and three failed checks")
    # GitHub Actions / Classroom (grader/report/ci.py, docs/ci.md).
    p.add_argument("--ci", action="store_true",
                   help="also write $GITHUB_STEP_SUMMARY, ::error annotations and Classroom's `result` "
                        "output")
    p.add_argument("--fail-under", type=float, default=None, metavar="SCORE",
                   help="exit status 1 when the score is below SCORE, in points as results.json's "
                        "`score` (not a percentage; for branch protection)")
    if student:
        for action in p._actions:
            words = STUDENT_HELP.get(action.dest)
            action.help = argparse.SUPPRESS if words is None else words[1 if ko else 0]
            if action.dest == "keyword":
                action.metavar = "EXPR"
        if ko:
            p._positionals.title, p._optionals.title = "위치 인자", "옵션"
    return p


class _KeepEpilog(argparse.HelpFormatter):
    """Wraps the description as argparse does, keeps the epilog as written (a command's name has a dash
    argparse would break at)."""

    def add_text(self, text: str | None) -> None:
        if text and text.startswith("commands ("):
            self._add_item(lambda t: t + "\n", [text])
        else:
            super().add_text(text)


# `grade <command> ...`: each command lives in its own module with a main(argv).
COMMANDS: dict[str, str] = {
    "batch": "grader.instructor.batch",
    "merge": "grader.instructor.merge",
    "release": "grader.instructor.lesson_release",
    "gradescope-bundle": "grader.instructor.gradescope_bundle",
    "pack-hidden": "grader.instructor.hidden_pack",
    "export": "grader.instructor.export",
    "adjust": "grader.instructor.term.adjust",
    "review": "grader.instructor.term.review",
    "term": "grader.instructor.term.term",
    "similarity": "grader.instructor.similarity",
    "desk": "grader.instructor.desk",
    "lessons": "grader.report.lesson_list",  # the student's copy has it too
    "new-lesson": "grader.instructor.new_lesson",
}


# Commands whose grading the zygote's fork may do (grader/sandbox/host.py): `grade` and `grade batch`.
HOSTED = ("batch",)


def program() -> int:
    """The `grade` program: its grading done by a fork of the zygote where there is one (one copy of
    torch for the whole tree, grader/sandbox/host.py), else here."""
    argv = sys.argv[1:]
    try:
        code = run_hosted(argv)
        return main(argv) if code is None else code
    except BrokenPipeError:
        return closed_pipe()


def closed_pipe() -> int:
    """A reader that closed our stdout (`grade lessons | head -1`): end quietly, as Unix tools do, with
    128 + SIGPIPE; stdout pointed at /dev/null so that the interpreter's last flush raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # a stdout without a descriptor (a test's capture): nothing to flush
        pass
    return 128 + int(signal.SIGPIPE)


def command_module(name: str) -> ModuleType | None:
    """The module of `grade NAME` (COMMANDS), or None where this copy of the kit lacks it (the student's)."""
    try:
        return importlib.import_module(COMMANDS[name])
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith(COMMANDS[name].rpartition(".")[0]):
            return None
        raise


def main(argv: list[str] | None = None) -> int:
    """`grade argv` in this process (the library's entry: tests, the zygote's fork)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        command = command_module(argv[0])
        if command is None:
            print(f"grade {argv[0]}: an instructor command, not in the student copy of the kit / "
                  f"강사용 명령이라 학생용 키트에는 없습니다", file=sys.stderr)
            return 2
        try:
            return int(command.main(argv[1:]) or 0)
        except BrokenPipeError:
            return closed_pipe()
    try:
        return grade_one(argv)
    except BrokenPipeError:
        return closed_pipe()


def run_hosted(argv: list[str]) -> int | None:
    """`argv` graded by a fork of the zygote, which shares its torch with every worker; its exit
    status, or None to grade here (no zygote on this machine, another command).  The command line is
    parsed here once: --help and usage errors are printed here, and their status returned."""
    if argv and argv[0] in COMMANDS and argv[0] not in HOSTED:
        return None
    if argv and argv[0] in HOSTED:
        command = command_module(argv[0])
        if command is None:
            return None  # main says it is not in this copy
        parser, rest = command.build_parser(), argv[1:]
    else:
        parser, rest = build_parser(help_lang(argv), lesson_title(argv) if _wants_help(argv) else None), argv
    try:
        args = parser.parse_args(rest)
    except SystemExit as exc:  # --help, or a usage error: already printed
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    from grader.sandbox import host

    if getattr(args, "watch", False):
        return None  # the loop runs here, small; each round's grade is the warm grader's
    if not (argv and argv[0] in HOSTED) and (missing := missing_target(args)) is not None:
        print(f"grade: {missing}", file=sys.stderr)
        return 2
    policy = policy_from_args(args)
    if not (argv and argv[0] in HOSTED):
        code = run_warm(argv, args, policy)
        if code is not None:
            return code
    return host.run_hosted(argv, policy, entry=HOST_ENTRY)


def missing_target(args: argparse.Namespace) -> str | None:
    """The line for a submission that does not exist (a typo, the wrong folder), a lesson that cannot be
    graded (unknown, or failing to load) or a hidden archive that cannot be opened (no key, no file, not
    an archive), said here at once: before the zygote or a warm grader starts (each imports torch,
    seconds) and without starting one; the same line grade_one would say. None where all are there, or
    where the answer is run_grade's (--ci writes its results all the same; --stop-daemon grades
    nothing)."""
    if args.ci or args.stop_daemon:
        return None
    probe = argparse.Namespace(**vars(args))  # resolve_target fills in defaults: grade_one does it again
    try:
        lesson = lesson_from_args(probe, Path(probe.path) if probe.path else None)
        probe.lesson = lesson.name
        resolve_target(probe, lesson.load().layout)
        if args.hidden_from and (hidden_pack := command_module("pack-hidden")) is not None:
            try:  # a missing key or file, or not an archive; a wrong key is found where it is used
                hidden_pack.precheck(Path(args.hidden_from), args.key_env)
            except hidden_pack.HiddenArchiveError as exc:
                return f"--hidden-from: {exc}"
        path = Path(probe.path)
        if path.exists() or path.is_symlink():
            return None
        from grader.report.run import missing_path

        return missing_path(path, options_from_args(probe))
    except UsageProblem as exc:  # grade_one's own words for it
        return str(exc)
    except Exception:  # noqa: BLE001 - whatever fails here, grade_one meets again and says why
        return None


def run_warm(argv: list[str], args: argparse.Namespace, policy: SandboxPolicy) -> int | None:
    """`grade argv` served by the user's warm grader (grader/daemon/), or None to grade cold, having
    started one for the next run where it may; --stop-daemon ends it."""
    from grader.daemon import client
    from grader.sandbox import host

    cold = args.no_daemon or args.hidden or args.hidden_from or args.ci or not client.wanted()
    if cold and not args.stop_daemon:
        return None
    # One warm grader per user (and interpreter, and sandbox flags) serves every folder and lesson: the
    # request carries the whole command line and folder (a notebook's check() is served all the same).
    key = [repr(replace(policy, hide=()))]
    lang = "ko" if lang_of(argv) == "ko" else "en"
    if args.stop_daemon:  # whatever folder it is typed in: stopping needs no lesson
        stopped = client.stop(key)
        said = (("grade: the warm grader stopped", "grade: 상주 채점기를 껐습니다") if stopped else
                ("grade: no warm grader runs", "grade: 실행 중인 상주 채점기가 없습니다"))
        print(said[lang == "ko"], file=sys.stderr)  # a notice in the reader's language only
        return 0
    try:
        ref = lesson_from_args(args, Path(args.path) if args.path else None)
    except UsageProblem:
        return None  # grade_one says why
    if not host.wanted(policy):
        return None
    code = client.serve(argv, key, HOST_ENTRY)
    if code is None and os.environ.get("GK_DAEMON") != client.IF_UP:
        client.start(key, kit_trees(ref.module), lang)  # check(): served where one is up
    return code


def kit_trees(module: str) -> list[str]:
    """The folders whose change retires a warm grader: the kit's and every lesson's package (its suites)."""
    from grader.engine.lessons import installed

    trees = [str(Path(__file__).resolve().parent)]
    for name in sorted({module, *(ref.module for ref in installed().values())}):
        spec = importlib.util.find_spec(name.partition(".")[0])
        if spec is not None and spec.submodule_search_locations:
            trees += [str(Path(p).resolve()) for p in spec.submodule_search_locations]
    return trees


def resolve_target(args: argparse.Namespace, layout: Layout) -> tuple[str, str] | None:
    """Fill in the submission and the output folder left to their defaults: ./exercises into reports/,
    or, run inside a submission (a folder without ./exercises that holds the student's files, as after
    `cd exercises`), that folder into ../reports, outside it, so the reports never ship with it.  Returns
    the note that says so (English, Korean), or None."""
    inside = args.path is None and not Path("exercises").exists() and _is_submission(Path.cwd(), layout)
    here = str(Path("..") / Path.cwd().name)  # named as from its parent folder: results.json's submission
    if args.path is None:
        args.path = here if inside else "exercises"
    if args.out is None:
        args.out = str(Path("..") / "reports") if inside else report_folder(args.path)
    if not inside:
        return None
    return (f"grade: no ./exercises here, and this folder is a submission: grading it ({here}), reports in "
            f"{args.out}, outside it",
            f"grade: ./exercises가 없고 이 폴더가 제출물이라 이 폴더({here})를 채점하고, "
            f"보고서는 제출물 밖인 {args.out}에 씁니다")


def report_folder(path: str) -> str:
    """reports/ for ./exercises, reports/<name>/ for any other submission (a notebook, a zip, a folder):
    each keeps its own results.json, so "since the last run" compares a submission with itself and a
    notebook's grade never overwrites the history of exercises/."""
    target = Path(path)
    if target.resolve() == Path("exercises").resolve():
        return "reports"
    name = target.resolve().name
    stem = name.rsplit(".", 1)[0] if target.suffix.lower() in (".ipynb", ".zip", ".py") else name
    return str(Path("reports") / (stem or "submission"))


def _is_submission(folder: Path, layout: Layout) -> bool:
    return (any((folder / f"{module}.py").is_file() for module in layout.modules)
            or bool(layout.log_name and (folder / layout.log_name).is_file()))


def preload(argv: list[str]) -> None:
    """Import what grading ``argv`` imports, before its request comes (a warm daemon's spare grader,
    grader/sandbox/host.py): the engine and pytest, the reports, the lesson.  Nothing is graded or read
    that the request itself would not read again."""
    import pytest_jsonreport.plugin  # noqa: F401 - pytest's plugin of the grade's report

    import grader.engine.runner  # noqa: F401
    import grader.report.run  # noqa: F401
    import grader.report.terminal  # noqa: F401

    args = build_parser(help_lang(argv), None).parse_args(argv)
    lesson_from_args(args, Path(args.path) if args.path else None).load()


def grade_one(argv: list[str]) -> int:
    args = build_parser(help_lang(argv), lesson_title(argv) if _wants_help(argv) else None).parse_args(argv)
    try:
        lesson = lesson_from_args(args, Path(args.path) if args.path else None)
        args.lesson = lesson.name  # picked once: the options below grade this one
        note = resolve_target(args, lesson.load().layout)
        options = options_from_args(args)
    except UsageProblem as exc:  # an unknown --lesson or [tool.grade] lesson
        print(f"grade: {exc}", file=sys.stderr)
        return 2
    if note and not args.quiet:
        print(note[1] if options.lang == "ko" else note[0], file=sys.stderr)
    if args.watch:
        from grader.daemon.watch import watch
        from grader.report.terminal import watch_lines

        rest = [a for a in argv if a != "--watch"]
        return watch(Path(args.path), Path(args.out) / "results.json", rest, options.lang,
                     describe=lambda results, lang: watch_lines(results, lang, args.path))
    if not (args.hidden or args.hidden_from):  # a student's public run: the public seed (core/seeds.py)
        options = replace(options, public_seed=True)
    if args.hidden_from:
        try:
            options = with_hidden_archive(options, Path(args.hidden_from), args.key_env)
        except ValueError as exc:
            print(f"grade: --hidden-from: {exc}", file=sys.stderr)
            return 2
    from grader.report.run import run_grade

    return run_grade(Path(args.path), Path(args.out), options, quiet=args.quiet, ci=args.ci,
                     fail_under=args.fail_under)


def with_hidden_archive(options: GradeOptions, archive: Path, key_env: str) -> GradeOptions:
    """``options`` pointed at the hidden suite sealed in ``archive``; ValueError with the reason."""
    hidden_pack = command_module("pack-hidden")
    if hidden_pack is None:
        raise ValueError("needs the instructor copy of the kit / 강사용 키트에서만 쓸 수 있습니다")
    return hidden_pack.options_with_archive(options, archive, key_env)


if __name__ == "__main__":
    sys.exit(program())
