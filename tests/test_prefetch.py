"""The experiment's runs made beside the other tests (grader/lesson/prefetch.py) are the runs the tests would
have made themselves: the same numbers, the same verdicts, whoever makes them and wherever."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from grader.engine.runner import GradeOptions, grade_path
from grader.lesson import prefetch
from grader.sandbox.launch import SandboxPolicy, namespaces_status

ROOT = Path(__file__).resolve().parent.parent
NAMESPACES, WHY_NOT = namespaces_status()


def _experiment(results: dict) -> dict:
    exp = dict(results["artifacts"]["experiment"])
    exp.pop("seconds")
    return exp


def _verdicts(results: dict, task: str | None = None) -> list[tuple]:
    return [(t["id"], t["status"], t["score"]) for t in results["tests"] if task in (None, t["task"])]


@pytest.mark.skipif(not NAMESPACES or len(__import__("os").sched_getaffinity(0)) < 2,
                    reason=f"the prefetch needs two cores and the zygote ({WHY_NOT or 'one core'})")
def test_prefetched_runs_are_the_runs_the_tests_make(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[prefetch.Prefetch] = []
    real = prefetch.Prefetch.__init__

    def spy(self, *args, **kwargs):
        made.append(self)
        real(self, *args, **kwargs)

    monkeypatch.setattr(prefetch.Prefetch, "__init__", spy)
    options = GradeOptions(hidden=True)
    beside = grade_path(ROOT / "solutions", options)
    assert len(made) == 1 and set(made[0].parts) == {"component", "student"}
    assert all(part.done.is_set() and not part.failed for part in made[0].parts.values())
    # One worker, every run made by the test that asks first, after the other tests.
    serial = grade_path(ROOT / "solutions", replace(options, policy=SandboxPolicy(siblings=False)))
    # Only the experiment's tests (-k: no prefetch), each run made inside whichever of them asks first.
    alone = grade_path(ROOT / "solutions", replace(options, keyword="reversal_experiment"))
    assert len(made) == 1
    assert _experiment(beside) == _experiment(serial)
    assert _experiment(beside)["component"] == _experiment(alone)["component"]
    # (The grader's own measurement of a trained model at the untrained length 12 can move by about
    # a percent with what the worker ran before it: the verdicts do not.)
    assert _verdicts(beside) == _verdicts(serial)
    assert _verdicts(beside, "reversal_experiment") == _verdicts(alone)
    assert beside["score"] == beside["max_score"]
    assert [t["id"] for t in beside["tests"]] == [t["id"] for t in serial["tests"]]  # collection order


def test_the_prefetch_waits_for_nothing_it_was_not_asked_for() -> None:
    """What a session reads decides what is made: nothing for a session without reversal tests."""

    class Item:
        def __init__(self, name: str, fixtures: tuple[str, ...] = ()) -> None:
            self.path, self.fixturenames = Path(name), list(fixtures)

    assert prefetch.wanted([Item("test_pe.py", ("student",))]) == ()
    assert prefetch.wanted([Item("test_reversal.py", ("student", "artifacts"))]) == ("component",)
    assert prefetch.wanted([Item("test_reversal.py", ("runs",))]) == ("component", "student")
    assert prefetch.take({}, "component") is None


@pytest.mark.skipif(not NAMESPACES or len(__import__("os").sched_getaffinity(0)) < 2,
                    reason=f"the prefetch needs two cores and the zygote ({WHY_NOT or 'one core'})")
def test_a_lane_that_fails_leaves_the_runs_to_the_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """The component check fails in one lane while the other lane still trains: the tests make the runs
    themselves, on workers of their own (never a lane's, still busy), and grade as without the prefetch."""
    import threading

    from grader.lesson import experiment as X

    real = X.component_run

    def flaky(student, mode, seed=0):
        if mode == "learned" and threading.current_thread().name.startswith("gk-prefetch"):
            raise RuntimeError("a lane failing on purpose")
        return real(student, mode, seed)

    monkeypatch.setattr(X, "component_run", flaky)
    results = grade_path(ROOT / "solutions", GradeOptions(hidden=True))
    monkeypatch.setattr(X, "component_run", real)
    serial = grade_path(ROOT / "solutions", GradeOptions(hidden=True, policy=SandboxPolicy(siblings=False)))
    assert results["score"] == results["max_score"]
    assert _experiment(results)["component"] == _experiment(serial)["component"]
    assert _verdicts(results) == _verdicts(serial)  # (the student's runs: see the length-12 note above)
