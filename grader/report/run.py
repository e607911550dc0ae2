"""One submission graded into a folder: the engine's results, then every file made from them (results.json,
summary.txt, the feedback pages, the CI outputs) and the terminal summary.  `grade` and each child of
`grade batch` end here."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from grader.engine.options import GradeOptions

if TYPE_CHECKING:
    from grader.engine.results import Results


def write_feedback(results: Results, out: Path, lang: str, path: Path) -> bool:
    """feedback.html, feedback.md, gradescope.json next to results.json (grader/report); whether they
    were written. A failure is said (the grade is still on the terminal and in results.json) and makes
    `grade`'s exit status 1."""
    from grader.report import write_reports

    try:
        write_reports(results, out, lang, path.as_posix())
    except Exception as exc:  # results.json is written: a report bug must not hide the grade
        why = f"({type(exc).__name__}: {exc})"
        ko = f"grade: error: 피드백 보고서(feedback.html, feedback.md)를 쓰지 못했습니다 {why}"
        en = f"grade: error: the feedback reports (feedback.html, feedback.md) were not written {why}"
        print(ko if lang == "ko" else en, file=sys.stderr)
        return False
    return True


def missing_path(path: Path, options: GradeOptions) -> str:
    """One line, in the run's language, for a path that does not exist; ``-k NAME`` when it names a task
    (`grade sinusoidal_pe`: the student meant `grade -k sinusoidal_pe`)."""
    from grader.core.lang import particle
    from grader.engine.lessons import load_lesson

    try:
        tasks = load_lesson(options.lesson).task_names
    except Exception:  # the lesson cannot load: `grade` says why on a path that exists
        tasks = ()
    task = next((t for t in tasks if t.lower() == path.name.removesuffix(".py").lower()), None)
    shown = path.as_posix()
    near = None if task else nearby_name(path)
    if options.lang == "ko":
        line = f"{particle(f'`{shown}`', '이')} 없어 아무것도 채점하지 않았습니다."
        if task:
            line += (f" 과제 {particle(f'`{task}`', '만')} 채점하려면 `grade -k {task}`(또는 "
                     f"`grade lesson.ipynb -k {task}`)처럼 -k를 붙이세요.")
        elif near:
            line += f" 혹시 `{near}`인가요? `grade {near}`"
        elif shown == "exercises":
            line += (" `grade`는 exercises/ 폴더가 있는 곳(키트의 맨 위 폴더)이나 제출물 폴더 안에서 "
                     "실행하거나, `grade 경로`로 채점할 폴더나 노트북을 지정하세요.")
        return line
    line = f"`{shown}` does not exist; nothing was graded."
    if task:
        line += (f" To grade only the task `{task}`, use -k: `grade -k {task}` "
                 f"(or `grade lesson.ipynb -k {task}`).")
    elif near:
        line += f" Did you mean `{near}`? `grade {near}`"
    elif shown == "exercises":
        line += (" Run `grade` in the folder that holds exercises/ (the top of your copy of the kit) or "
                 "inside your submission folder, or name what to grade: `grade PATH`.")
    return line


def nearby_name(path: Path) -> str | None:
    """The entry beside a mistyped path that it most likely meant (`exercise` for `exercises`), as typed."""
    import difflib

    parent = path.parent
    try:
        names = [p.name for p in parent.iterdir() if not p.name.startswith(".")]
    except OSError:
        return None
    match = difflib.get_close_matches(path.name, names, n=1, cutoff=0.75)
    return (parent / match[0]).as_posix() if match else None


def run_grade(path: Path, out: Path, options: GradeOptions, *, quiet: bool = False, ci: bool = False,
              fail_under: float | None = None) -> int:
    """Grade ``path`` into ``out`` (results.json and every report); the `grade` exit status.

    `grade` and each child of `grade batch` call this with complete, typed options.
    """
    from grader.engine.runner import ReportLost, UsageProblem, grade_path, unreadable_results, write_results
    from grader.engine.submission import SubmissionError
    from grader.report.terminal import progress_for
    from grader.report.text import text_summary

    lang = options.lang
    if not path.exists() and not path.is_symlink() and not ci:  # nothing to grade: no page says otherwise
        print(f"grade: {missing_path(path, options)}", file=sys.stderr)
        return 2
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
        ko, en = "grade: 중단되어 아무것도 쓰지 않았습니다", "grade: interrupted, nothing written"
        print(ko if lang == "ko" else en, file=sys.stderr)
        return 130
    except ReportLost as exc:  # a full disk, most often: one line, and a results.json if it can be written
        print(f"grade: {exc}", file=sys.stderr)
        try:
            write_results(unreadable_results(path.name, str(exc), options), out)
        except OSError as err:
            print(f"grade: cannot write {out / 'results.json'}: {err.strerror}", file=sys.stderr)
        return 2
    except SubmissionError as exc:
        unreadable = unreadable_results(path.name, str(exc), options)
        write_results(unreadable, out)
        write_feedback(unreadable, out, lang, path)
        ko, en = f"grade: 제출물을 읽을 수 없습니다: {exc}", f"grade: cannot read the submission: {exc}"
        print(ko if lang == "ko" else en, file=sys.stderr)
        if ci:
            from grader.report import ci as ci_outputs

            return ci_outputs.finish(unreadable, sub_path=path, out=out, lang=lang, fail_under=fail_under,
                                     exit_status=2)
        return 2
    from grader.engine.history import prepare

    try:
        out = prepare(results, out, options.keyword)  # `previous`; a filtered run beside a full one
        write_results(results, out)
        reports = write_feedback(results, out, lang, path)
        summary = text_summary(results, lang, path.as_posix())  # the terminal's, reproduce commands too
        (out / "summary.txt").write_text(summary, encoding="utf-8")
    except OSError as exc:  # a full disk: said in one line, not a traceback
        print(f"grade: {out}에 보고서를 쓸 수 없습니다: {exc.strerror or exc}" if lang == "ko" else
              f"grade: cannot write the report to {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if not quiet:
        from grader.report.terminal import print_summary

        print_summary(results, lang, path.as_posix(), out=out.as_posix(), reports=reports)
    if ci:
        from grader.report import ci as ci_outputs

        status = ci_outputs.finish(results, sub_path=path, out=out, lang=lang, fail_under=fail_under)
        return status or (0 if reports else 1)
    return 1 if not reports or (fail_under is not None and results["score"] < fail_under) else 0
