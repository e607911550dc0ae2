"""Grade one submission: read it, run the suites with pytest, score, write results."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pytest

from grader.daemon.place import installed_record
from grader.engine import reuse
from grader.engine.lesson_api import Lesson
from grader.engine.lessons import lesson_record, load_lesson, private_folders
from grader.engine.locate import add_locations
from grader.engine.options import GradeOptions, UsageProblem
from grader.engine.other_lesson import other_lesson
from grader.engine.plugin import GradingPlugin
from grader.engine.results import Results
from grader.engine.scoring import build_results
from grader.engine.submission import Submission, SubmissionError, read_submission
from grader.engine.tachecks import ta_checks_of
from grader.paths import write_atomic
from grader.sandbox import client as worker_client


def suite_paths(options: GradeOptions) -> list[tuple[str, Path]]:
    suites = [("public", options.suites_dir / "public")]
    if options.hidden:
        hidden = options.suites_dir / "hidden"
        if not any(hidden.glob("test_*.py")):
            raise UsageProblem(
                "--hidden: 이 키트에는 숨은 테스트가 없습니다(학생용 배포본에는 공개 테스트만 있고, 숨은 "
                "테스트는 제출할 때 실행됩니다)" if options.lang == "ko" else
                "--hidden: this copy of the kit has no hidden suite (the student release ships only public "
                "tests; hidden tests run when you submit)"
            )
        suites.append(("hidden", hidden))
    return suites


def run_suites(submission: Submission, options: GradeOptions, lesson: Lesson,
               origin: Path | None = None, reuse_none: bool = False) -> tuple[dict, GradingPlugin, list[str]]:
    """``origin``: where the submission was read from; a warm re-grade reuses only its own results.
    ``reuse_none``: a warm re-grade that reuses nothing (it still keeps its results for the next one)."""
    suites = suite_paths(options)
    store = reuse.store_path(options.hidden)
    # The worker sees no lesson's package (hidden suites, solutions), wherever it is installed; it gets
    # the graded lesson's probes as a copy (Lesson.probes). A filtered cold grade (a task's check) needs
    # no warmed-up torch: the call that trains or simulates a GPU, if it has one, imports what it needs
    # (SandboxPolicy.torch_warm_up); a warm re-grade keeps it, as that import changes the state its reuse
    # watches (docs/warm-grader.md).
    warm_up = options.policy.torch_warm_up and (not options.keyword or store is not None)
    policy = replace(options.policy, hide=(*options.policy.hide, *private_folders()),
                     probes=str(lesson.probes) if lesson.probes is not None else None, torch_warm_up=warm_up)
    plugin = GradingPlugin(submission, lesson, policy, progress=options.progress,
                           public_seed=options.lesson if options.public_seed and not options.hidden else None)
    recorder = None
    if store is not None:  # a warm re-grade (engine/reuse.py): only what changed runs again
        reuse.ACTIVE = recorder = reuse.Recorder(submission.staging, reuse.submission_text(submission))
        plugin.reuse = reuse.Reuse(store, reuse_key(options, lesson, plugin, origin), recorder, reuse_none)
        worker_client.TOUCHED = recorder.touched  # what each test's student code reached, seen there
    plugin.client.prestart()
    with tempfile.TemporaryDirectory(prefix="gk-report-") as tmp:
        report_file = Path(tmp) / "report.json"
        args = [
            *[str(p) for _, p in suites],
            "--rootdir", str(options.suites_dir),
            "-c", str(options.suites_dir / "pytest.ini"),
            "--import-mode=importlib",
            "-p", "no:cacheprovider",
            "-qq", "--tb=no", "--no-header",
            "-p", "no:randomly",
            # Plugins the suites never use, which pytest would import at every grade (hypothesis
            # alone costs about a second): blocked before they load.
            "-p", "no:hypothesispytest", "-p", "no:xdist", "-p", "no:xdist.looponfail", "-p", "no:benchmark",
            "-p", "no:platformdirs",
            # The grader's own process runs no student code: pytest's hunt for unraisable exceptions
            # (five full garbage collections over torch's objects, a third of a second) and its
            # assertion rewriting (the suites assert through testkit, never bare) buy nothing here.
            "-p", "no:unraisableexception", "-p", "no:threadexception", "--assert=plain",
            "--json-report", "--json-report-file", str(report_file),
            "--json-report-omit", "collectors", "log", "traceback", "streams",
        ]
        if options.keyword:
            args += ["-k", options.keyword]
        sink = io.StringIO()
        try:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                code = pytest.main(args, plugins=[plugin])
        finally:
            plugin.client.stop()  # also when pytest stops before its session does
            reuse.ACTIVE = None
            worker_client.TOUCHED = None
        if code == pytest.ExitCode.NO_TESTS_COLLECTED and plugin.reused:  # every test reused: none ran
            code = pytest.ExitCode.OK
            if not report_file.exists():
                report_file.write_text("{}", encoding="utf-8")
        if code == pytest.ExitCode.INTERRUPTED:  # Ctrl-C (pytest caught it): no grade to write
            raise KeyboardInterrupt
        if code == pytest.ExitCode.NO_TESTS_COLLECTED and options.keyword:
            tasks = ", ".join(lesson.task_names)
            raise UsageProblem(  # in the reader's language only, as every notice
                f"-k {options.keyword!r}에 맞는 테스트가 없습니다(과제 이름을 써 보세요: {tasks})"
                if options.lang == "ko" else
                f"-k {options.keyword!r} matches no test; try a task name ({tasks})")
        if not report_file.exists():
            raise RuntimeError(f"pytest did not run (exit {code}): {sink.getvalue()[-2000:]}")
        report = read_report(report_file, code)
        if plugin.reused and recorder is not None and recorder.state:
            # Student code that ran left the worker's process changed (inside a function: no run before
            # saw it): the tests reused from runs without that change are not what a cold grade gives,
            # where they run after it.  Grade again, everything run, as a cold grade does.
            return run_suites(submission, options, lesson, origin, reuse_none=True)
        if plugin.reuse is not None:
            plugin.reuse.merge(report, plugin.artifacts_store, plugin.reused)
            if code in (0, 1):
                plugin.reuse.save(report, plugin.artifacts_store, plugin.prefetch_reads)
        # In the order collected, whatever order they ran in (the prefetch runs the experiment's last).
        report.get("tests", []).sort(key=lambda t: plugin.order.get(t.get("nodeid", ""), len(plugin.order)))
    if code not in (0, 1):
        raise RuntimeError(f"pytest stopped with exit status {int(code)}: {sink.getvalue()[-2000:]}")
    return report, plugin, [name for name, _ in suites]


def reuse_key(options: GradeOptions, lesson: Lesson, plugin: GradingPlugin,
              origin: Path | None = None) -> str:
    """What every result a warm re-grade reuses must share with this run (engine/reuse.py): the kit's,
    the lesson's, the suites' and the reference's files, the options that choose or run the tests, the
    tamper scan, the seed every input is drawn from, and the submission's own place (two folders graded
    from one terminal never share a verdict).  Not the language: both are in the entries."""
    lesson_pkg = sys.modules.get(options.lesson.split(".")[0])  # loaded by now (load_lesson)
    trees = [Path(__file__).resolve().parents[1], options.suites_dir]  # the kit's own, the suites
    trees += [options.solutions_dir] if options.solutions_dir is not None else []
    where = getattr(lesson_pkg, "__file__", None)
    trees += [Path(where).parent] if where else []
    parts = {"lesson": options.lesson, "keyword": options.keyword, "hidden": options.hidden,
             # not the folders hidden from the worker (the output folder's name): no test that runs
             # code able to look for them is ever reused (engine/reuse.py, UNHASHED)
             "policy": repr(replace(options.policy, hide=())),
             "seed": plugin.replay.get("seed"), "review": plugin.review,
             "submission": os.path.realpath(origin) if origin is not None else None,
             "version": lesson.version, "torch": getattr(sys.modules.get("torch"), "__version__", ""),
             "installed": installed_record()}  # the interpreter's binary and torch's RECORD, by hash
    return reuse.run_key(parts, trees)


class ReportLost(RuntimeError):
    """pytest ran, but its report could not be written or read back (a full disk, most often)."""


def read_report(path: Path, code: int) -> dict:
    """pytest's JSON report; ReportLost with a one-line reason when it is empty or cut short."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        free = disk_free(path.parent)
        # Read after the teardown freed what the student's code wrote: a disk full then may have room now.
        why = f"{type(exc).__name__}; a full disk does this, {free or 'unknown'} free on it now"
        raise ReportLost(f"the grader's test report came out {'empty' if _empty(path) else 'unreadable'} "
                         f"(pytest exit {int(code)}; {why}): no score could be given / 채점기의 테스트 결과 "
                         f"파일이 비었거나 읽을 수 없어 점수를 매길 수 없습니다") from None


def _empty(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except OSError:
        return True


def disk_free(folder: Path) -> str | None:
    """The free space of ``folder``'s file system in words ("0 MiB"), or None."""
    try:
        v = os.statvfs(folder if folder.exists() else folder.parent)
    except OSError:
        return None
    return f"{v.f_bavail * v.f_frsize // 2**20} MiB"


def grade_path(path: Path, options: GradeOptions) -> Results:
    """Grade the submission at ``path``; raises SubmissionError if it cannot be read."""
    started = time.monotonic()
    lesson = load_lesson(options.lesson)
    if options.solutions_dir is not None and lesson.grade.use_solutions is not None:
        lesson.grade.use_solutions(options.solutions_dir)
    staging = Path(tempfile.mkdtemp(prefix="gk-sub-"))
    os.chmod(staging, 0o755)
    try:
        submission = read_submission(path, staging, lesson)
        report, plugin, suites = run_suites(submission, options, lesson, path)
        results = build_results(
            report,
            submission=submission.name,
            suites=suites,
            tasks=lesson.task_names,
            isolation=plugin.client.isolation,
            lang=options.lang,
            hidden_visibility=options.hidden_visibility,
            extra={
                "kind": submission.kind,
                "files": submission.files,
                "dropped": submission.dropped,
                "artifacts": plugin.artifacts_store,
                "worker": {"restarts": plugin.client.restarts, "output": plugin.client.output.text()[-4000:]},
                "review": plugin.review,
                "replay": plugin.replay,
                "lesson": lesson_record(options.lesson),
            },
        )
        add_locations(results, staging, path.name if submission.kind == "notebook" else None, lesson.tasks)
        checks = ta_checks_of(lesson, results)
        if checks:
            results["ta_checks"] = checks
        mismatch = other_lesson(path, options.lesson)
        if mismatch:
            results["other_lesson"] = mismatch
        results["duration"] = round(time.monotonic() - started, 2)
        return results
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def unreadable_results(name: str, reason: str, options: GradeOptions) -> Results:
    """results.json for a submission that could not be read: score 0, the reason."""
    return {
        "schema": 1, "submission": name, "score": 0.0, "max_score": 0.0,
        "suites": [n for n, _ in suite_paths(options)], "isolation": "none",
        "tests": [], "tasks": {}, "skipped": [], "lang": options.lang,
        "error": reason, "lesson": lesson_record(options.lesson),
    }


def write_results(results: Results, out: Path) -> Path:
    """Write results.json atomically (a reader never sees half a file)."""
    target = out / "results.json"
    write_atomic(target, json.dumps(results, ensure_ascii=False, indent=2))
    return target


__all__ = ["GradeOptions", "ReportLost", "SubmissionError", "UsageProblem", "grade_path", "write_results",
           "unreadable_results"]
