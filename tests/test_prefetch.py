"""The experiment's runs made beside the other tests (lesson_embedding_pe/prefetch.py)
are the runs the tests would
have made themselves: the same numbers, the same verdicts, whoever makes them and wherever."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from grader.engine.runner import GradeOptions, grade_path
from grader.sandbox.launch import SandboxPolicy, namespaces_status
from lesson_embedding_pe import experiment, prefetch
from lesson_embedding_pe.paths import SUITES
from tests.conftest import computed_once

ROOT = Path(__file__).resolve().parent.parent
NAMESPACES, WHY_NOT = namespaces_status()


def _experiment(results: dict) -> dict:
    exp = dict(results["artifacts"]["experiment"])
    exp.pop("seconds")
    return exp


def _verdicts(results: dict, task: str | None = None) -> list[tuple]:
    return [(t["id"], t["status"], t["score"]) for t in results["tests"] if task in (None, t["task"])]


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The reference graded without the prefetch (one worker, every run made by the test that asks first):
    what both tests below compare with, graded once for the run."""
    return computed_once(tmp_path_factory, "prefetch-serial", lambda: grade_path(
        ROOT / "solutions", GradeOptions(hidden=True, policy=SandboxPolicy(siblings=False))))


@pytest.mark.skipif(not NAMESPACES or len(__import__("os").sched_getaffinity(0)) < 2,
                    reason=f"the prefetch needs two cores and the zygote ({WHY_NOT or 'one core'})")
def test_prefetched_runs_are_the_runs_the_tests_make(monkeypatch: pytest.MonkeyPatch, serial: dict,
                                                     reference_graded: dict) -> None:
    # The reference graded with the hidden suite, the prefetch watched (tests/conftest.py): the grade every
    # module that reads the reference's results shares, so it is made once for the run.
    beside = reference_graded["results"]
    assert [p["parts"] for p in reference_graded["prefetches"]] == [["component", "student"]]
    assert all(p["done"] for p in reference_graded["prefetches"])
    made: list[prefetch.Prefetch] = []
    real = prefetch.Prefetch.__init__

    def spy(self, *args, **kwargs):
        made.append(self)
        real(self, *args, **kwargs)

    monkeypatch.setattr(prefetch.Prefetch, "__init__", spy)
    options = GradeOptions(hidden=True)
    # (serial: one worker, every run made by the test that asks first, after the other tests.)
    # Only the experiment's tests (-k: no prefetch), each run made inside whichever of them asks first.
    alone = grade_path(ROOT / "solutions", replace(options, keyword="reversal_experiment"))
    assert not made  # a -k filter starts no prefetch
    assert _experiment(beside) == _experiment(serial)
    assert _experiment(beside)["component"] == _experiment(alone)["component"]
    # (The grader's own measurement of a trained model at the untrained length 12 can move by about
    # a percent with what the worker ran before it: the verdicts do not.)
    assert _verdicts(beside) == _verdicts(serial)
    assert _verdicts(beside, "reversal_experiment") == _verdicts(alone)
    assert beside["score"] == beside["max_score"]
    assert [t["id"] for t in beside["tests"]] == [t["id"] for t in serial["tests"]]  # collection order


def _collected(path: Path, rootdir: Path = SUITES) -> list[pytest.Item]:
    """A suite's items as the engine collects them (nothing run); module names from ``rootdir``."""

    class Keep:
        items: list[pytest.Item] = []

        def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
            self.items = list(items)

    keep = Keep()
    pytest.main([str(path), "--collect-only", "-qq", "-p", "no:cacheprovider", "-p", "no:xdist",
                 "-c", str(SUITES / "pytest.ini"), "--rootdir", str(rootdir),
                 "--import-mode=importlib", "-W", "ignore::pytest.PytestUnknownMarkWarning"], plugins=[keep])
    return keep.items


def test_the_prefetch_waits_for_nothing_it_was_not_asked_for(tmp_path: Path) -> None:
    """What a session's tests declare they read (@pytest.mark.experiment_runs) decides what is made:
    nothing for tests that declare nothing, whatever their file is called."""
    assert prefetch.wanted(_collected(SUITES / "public" / "test_pe.py")) == ()
    public = _collected(SUITES / "public" / "test_reversal.py")
    assert prefetch.wanted(public) == ("component",) and all(map(prefetch.reads_prefetch, public))
    hidden = _collected(SUITES / "hidden" / "test_reversal.py")
    assert prefetch.wanted(hidden) == ("component", "student")
    students = {i.name for i in hidden if "student" in prefetch.parts_read(i)}
    assert students and all("runs" in i.fixturenames for i in hidden if i.name in students)
    # A renamed file keeps its declaration; a copy with the declaration taken out asks for nothing.
    source = (SUITES / "hidden" / "test_reversal.py").read_text(encoding="utf-8")
    for folder in ("renamed", "plain"):
        (tmp_path / folder).mkdir()
    (tmp_path / "renamed" / "test_experiment_science.py").write_text(source, encoding="utf-8")
    renamed = _collected(tmp_path / "renamed" / "test_experiment_science.py", tmp_path)
    assert prefetch.wanted(renamed) == ("component", "student")
    undeclared = "\n".join(line for line in source.splitlines() if "experiment_runs" not in line)
    (tmp_path / "plain" / "test_reversal.py").write_text(undeclared, encoding="utf-8")
    assert prefetch.wanted(_collected(tmp_path / "plain" / "test_reversal.py", tmp_path)) == ()
    assert experiment.early_part({}, "component") is None  # nothing started early for this session


@pytest.mark.skipif(not NAMESPACES or len(__import__("os").sched_getaffinity(0)) < 2,
                    reason=f"the prefetch needs two cores and the zygote ({WHY_NOT or 'one core'})")
def test_a_lane_that_fails_leaves_the_runs_to_the_tests(monkeypatch: pytest.MonkeyPatch,
                                                         serial: dict) -> None:
    """The component check fails in one lane while the other lane still trains: the tests make the runs
    themselves, on workers of their own (never a lane's, still busy), and grade as without the prefetch."""
    import threading

    from lesson_embedding_pe import experiment as X

    real = X.component_run

    def flaky(student, mode, seed=0):
        if mode == "learned" and threading.current_thread().name.startswith("gk-prefetch"):
            raise RuntimeError("a lane failing on purpose")
        return real(student, mode, seed)

    monkeypatch.setattr(X, "component_run", flaky)
    results = grade_path(ROOT / "solutions", GradeOptions(hidden=True))
    assert results["score"] == results["max_score"]
    assert _experiment(results)["component"] == _experiment(serial)["component"]
    assert _verdicts(results) == _verdicts(serial)  # (the student's runs: see the length-12 note above)
