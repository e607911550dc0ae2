"""The pytest plugin that connects the suites to one submission.

It owns the worker client, provides the fixtures tests use (``student``,
``submission``, ``artifacts``), checks the rubric at collection, and attaches
task, points, status and the bilingual message to each test's entry in the
pytest-json-report record.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from grader.core import seeds, tamper, testkit
from grader.core.errors import MissingName
from grader.core.feedback import GradeFailure, describe_problem, finding_of
from grader.core.source import content_hash
from grader.engine import reuse, withheld
from grader.engine.lesson_api import Lesson
from grader.engine.results import Progress, WithheldVerdict
from grader.engine.rubric import rubric_of
from grader.engine.student import Student
from grader.engine.submission import Submission
from grader.sandbox.client import WorkerClient
from grader.sandbox.launch import SandboxPolicy


def withheld_failure(reason: dict) -> GradeFailure:
    message = withheld.message(reason)
    return GradeFailure(message.en, message.ko)


OWN_FIXTURES = ("student", "submission", "artifacts")  # what a test reads through them is recorded itself


def wide_fixtures(item: pytest.Item) -> list[str]:
    """The fixtures wider than one test that ``item`` uses, the plugin's own aside: their value is made
    once, in whichever test comes first, from what that test read (engine/reuse.py groups their users)."""
    info = getattr(item, "_fixtureinfo", None)
    out = []
    for name, defs in getattr(info, "name2fixturedefs", {}).items():
        if name not in OWN_FIXTURES and defs and str(getattr(defs[-1], "scope", "function")) != "function":
            out.append(f"{name}@{getattr(defs[-1], 'baseid', '')}")
    return out


class GradingPlugin:
    def __init__(self, submission: Submission, lesson: Lesson, policy: SandboxPolicy | None = None,
                 progress: Progress | None = None, public_seed: str | None = None) -> None:
        """``public_seed``: the lesson's module where the run draws from the public seed (core/seeds.py)."""
        self.sub = submission
        self.lesson = lesson
        self.client = WorkerClient(submission.staging, policy=policy)
        self.artifacts_store: dict[str, Any] = reuse.Artifacts()  # tells a warm re-grade what a test read
        self.progress = progress
        self.rubric_errors: list[str] = []
        self.order: dict[str, int] = {}  # nodeid -> place in the collection (before the prefetch's reorder)
        self.task_of: dict[str, str] = {}  # nodeid -> its task (the rubric's)
        # Fixed per submission, unpredictable to students, or per lesson for a public run
        # (grader/core/seeds.py): results.json `replay`. A notebook's driver is read as the code it runs.
        self.replay = seeds.replay_info(content_hash(submission.staging, submission.seed_files),
                                        public=public_seed)
        testkit.begin_grading(self.replay["seed"])
        # The tamper scan (trusted, ast only), once: the student fixture withholds by it, results lists it.
        self.review = tamper.review(submission.staging)
        withheld.begin_grading()
        self.verdicts: dict[str, WithheldVerdict] = {}  # nodeid -> what a withheld test would have been
        self.reuse: reuse.Reuse | None = None  # a warm re-grade's store (engine/reuse.py), set by the runner
        self.reused: set[str] = set()  # nodeids taken from it, not run
        self.prefetch_reads: set[str] = set()  # nodeids that read the prefetch's work

    # -- fixtures ------------------------------------------------------------
    @pytest.fixture(scope="session")
    def student(self) -> Student:
        return self.new_student()

    def new_student(self) -> Student:
        return Student(self.client, self.review, probe_modules=self.lesson.layout.probe_modules,
                       home=self.lesson.home_modules, probe_imports=self.lesson.layout.probe_imports)

    @pytest.fixture(scope="session")
    def submission(self) -> Submission:
        return self.sub

    @pytest.fixture(scope="session")
    def artifacts(self) -> dict[str, Any]:
        """Data a test wants in results.json (the experiment's numbers, the log review)."""
        return self.artifacts_store

    # -- hooks -----------------------------------------------------------------
    def pytest_configure(self, config: pytest.Config) -> None:
        # the lesson's own markers are its pytest.ini's (the runner passes it with -c)
        config.addinivalue_line("markers", "task(name, points=1): the rubric entry of a test")

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            try:
                task, _points = rubric_of(item, self.lesson.task_names)
            except ValueError as exc:
                self.rubric_errors.append(str(exc))
                continue
            # `grade -k weight_tying` selects a task's tests by its name.
            item.extra_keyword_matches.add(task)
            self.task_of[item.nodeid] = task
        if self.rubric_errors:
            raise pytest.UsageError("rubric: " + "; ".join(self.rubric_errors))
        if self.progress is not None:
            self.progress.start(len(items))

    @pytest.hookimpl(specname="pytest_collection_modifyitems", trylast=True)  # after -k/-m deselected
    def pytest_collection_modifyitems_prefetch(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """The lesson's long work (this lesson: the experiment's training) starts now beside the other
        tests, and the tests that read it run last (results.json keeps the collection order: ``order``)."""
        keyword = str(getattr(config.option, "keyword", "") or "").strip()
        if keyword in self.lesson.task_names:  # a task by its name: its tests only, not every test whose
            # name holds it (`-k causal_mask` is not scaled_dot_product_attention's test_causal_mask_...)
            others = [i for i in items if self.task_of.get(i.nodeid) != keyword]
            if others:
                config.hook.pytest_deselected(items=others)
                items[:] = [i for i in items if self.task_of.get(i.nodeid) == keyword]
        self.order = {item.nodeid: i for i, item in enumerate(items)}
        if self.reuse is not None:  # a warm re-grade: the tests whose inputs did not change are not run
            self.reused = self.reuse.choose([item.nodeid for item in items])
            if self.reused:
                config.hook.pytest_deselected(items=[i for i in items if i.nodeid in self.reused])
                items[:] = [i for i in items if i.nodeid not in self.reused]
                for nodeid in sorted(self.reused, key=self.order.__getitem__):
                    if self.progress is not None:
                        self.progress.advance(nodeid)
        prefetch = self.lesson.grade.prefetch  # the lesson's long work started beside the tests, if any
        if prefetch is None:
            return
        option = config.option
        filtered = bool(getattr(option, "keyword", "") or getattr(option, "markexpr", ""))
        self.prefetch_reads = {item.nodeid for item in items if prefetch.reads(item)}
        before = {t.ident for t in threading.enumerate()}
        if items and prefetch.start(self.new_student(), self.artifacts_store, items, filtered):
            items.sort(key=prefetch.reads)  # stable: each group keeps its order
            if reuse.ACTIVE is not None:  # what its threads resolve counts for the tests that read their work
                reuse.ACTIVE.beside({t.ident for t in threading.enumerate() if t.ident is not None} - before)

    def pytest_json_runtest_metadata(self, item: pytest.Item, call: pytest.CallInfo) -> dict:
        task, points = rubric_of(item, self.lesson.task_names)
        meta: dict[str, Any] = {"task": task, "points": points}
        if call.excinfo is not None and call.when in ("setup", "call"):
            exc = call.excinfo.value
            if isinstance(exc, pytest.skip.Exception):
                meta["skip_reason"] = str(exc)
                return meta
            message, status = describe_problem(exc)
            finding = finding_of(exc)
            if isinstance(exc, MissingName) and self.sub.notebook:  # say which cell, not "embedding.py"
                from grader.notebook.messages import missing_name_hint

                hint = missing_name_hint(self.sub.notebook_notes, exc.message,
                                         self.sub.sources.get("notebook", ""),
                                         graded=self.sub.rules.graded, not_run=self.sub.notebook_not_run)
                if hint:
                    message, finding = hint
            meta["message"] = message.as_dict()
            meta["feedback"] = finding.as_dict()  # the record the reports render (core/finding.py)
            meta["status"] = status
            if call.when == "call" and item.nodeid in self.verdicts:
                meta["withheld"] = self.verdicts[item.nodeid]
            figure = getattr(exc, "figure", None)  # a table check's two tables (lesson/pe_checks.pictured)
            if isinstance(figure, dict) and item.nodeid not in self.verdicts:  # never a held verdict's
                meta["figure"] = figure
            # Where in the student's source it went wrong (for CI annotations).
            where = getattr(exc, "where", None)
            if isinstance(where, dict) and where.get("file") and isinstance(where.get("line"), int):
                meta["location"] = {"file": str(where["file"]), "line": int(where["line"])}
        elif call.when == "call" and (note := testkit.note_of(item.nodeid)):
            meta["message"] = note  # passed, with something the grader must own up to
        return meta

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        testkit.begin_test(item.nodeid)
        withheld.marks().begin_test(item.nodeid)
        if reuse.ACTIVE is not None:  # what it reads from here on, its fixtures' included
            names = getattr(item, "fixturenames", ())
            reuse.ACTIVE.begin(item.nodeid, "submission" in names, self.artifacts_store, wide_fixtures(item))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item):  # noqa: ANN201 - a pluggy wrapper
        try:
            return (yield)
        finally:
            if reuse.ACTIVE is not None:
                reuse.ACTIVE.end(item.nodeid, self.artifacts_store)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):  # noqa: ANN201 - a pluggy wrapper (a generator)
        """A test marked as resting on grader code in a flagged submission's worker (engine/withheld.py)
        fails with the withheld message; the verdict its check gave is kept for results.json."""
        try:
            result = yield
        except (Exception, pytest.fail.Exception) as exc:  # any verdict, a hang or crash too (not a skip)
            reason = withheld.marks().take(item.nodeid)
            if reason is None:
                raise
            message, status = describe_problem(exc)
            failed: Any = {"verdict": status, "message": message.as_dict()}  # status: failed/error/timeout
            self.verdicts[item.nodeid] = failed
            raise withheld_failure(reason) from None
        reason = withheld.marks().take(item.nodeid)
        if reason is not None:
            _task, points = rubric_of(item, self.lesson.task_names)
            self.verdicts[item.nodeid] = {"verdict": "passed", "score": float(points)}
            raise withheld_failure(reason)
        return result

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.progress is not None and report.when == "teardown":
            self.progress.advance(report.nodeid)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from grader.notebook.driver import notebook_artifact

        notes = notebook_artifact(self.sub, self.client)  # a notebook's skipped and failed cells
        if notes:
            self.artifacts_store["notebook"] = notes
        self.client.stop()
        prefetch = self.lesson.grade.prefetch
        if prefetch is not None and prefetch.end is not None:
            prefetch.end(self.artifacts_store)
