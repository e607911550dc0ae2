"""The reversal experiment started early, on two more workers, while the other tests run on the first.

Its training runs are most of a hidden grade (about two seconds here) and the tests
that read them come last.  Where more workers pay (two cores, the zygote, not a
batch: experiment.second_worker_pays), the engine starts them when collection ends (the
lesson's ``prefetch`` hook), if the session holds tests that declare they read them
(``@pytest.mark.experiment_runs(part)``) and no ``-k``/``-m`` filter: the component check of
every mode, then (for the hidden suite) the student's own runs.  Those tests then take the
runs from here.  Each run draws its inputs and seeds the worker
from keys of its own (``owning``), so it is the same run it would have been
inside the test.  Should anything go wrong here (the second worker cannot start or
import the student's files, the grader meets an error), the tests make the runs
themselves, exactly as without it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Two lanes (a second and third worker), each in the order the tests read, about equal in training steps
# for a correct submission (component sin ~90, learned ~20, none 60; student sin 150, learned 100, none 60).
LANES = ((("component", "sin"), ("student", "sin")),
         (("component", "learned"), ("component", "none"), ("student", "learned"), ("student", "none")))
NEEDS = {"component": ("embedding",), "student": ("embedding", "reversal")}
WAIT_SECONDS = 3600.0  # each call inside has its own timeout; this only guards against a stuck thread


@dataclass
class Part:
    """One part's runs by mode, and the seconds from its first run's start to its last's end."""

    modes: set[str]
    runs: dict[str, Any] = field(default_factory=dict)
    failed: bool = False
    started: float | None = None
    seconds: float = 0.0
    done: threading.Event = field(default_factory=threading.Event)

    def finish(self, mode: str, run: Any, lock: threading.Lock) -> None:
        with lock:
            self.runs[mode] = run
            if set(self.runs) >= self.modes:
                self.seconds = time.monotonic() - (self.started or time.monotonic())
                self.done.set()

    def fail(self) -> None:
        self.failed = True
        self.done.set()


class Prefetch:
    """The parts a session reads, made on one thread and worker per lane."""

    def __init__(self, student: Any, parts: tuple[str, ...]) -> None:
        from lesson_embedding_pe.experiment import ALL_MODES

        self.parts = {name: Part(set(ALL_MODES)) for name in parts}
        self.lock = threading.Lock()
        for index, lane in enumerate(LANES):
            jobs = [(part, mode) for part, mode in lane if part in self.parts]
            # Each lane's worker starts here, in the test thread (launching is not thread-safe), and its
            # import plan is read here too (the lane must not parse: Student.plan_imports). Siblings 1 and
            # 2: sibling 0 is in_parallel's, should a part fail here while the other lane still runs.
            worker = student.on(student.client.sibling(index + 1))
            worker.plan_imports(*{m for part, _ in jobs for m in NEEDS[part]})
            threading.Thread(target=self._run, args=(worker, jobs), name=f"gk-prefetch-{index}",
                             daemon=True).start()

    def _run(self, worker: Any, jobs: list[tuple[str, str]]) -> None:
        from lesson_embedding_pe import experiment as X

        make: dict[str, Callable[[Any, str], dict | list[dict]]] = {
            "component": X.component_run, "student": X.student_runs}
        left = list(jobs)
        try:
            for module in dict.fromkeys(m for part, _ in jobs for m in NEEDS[part]):
                worker.ensure_module(module)
            while left:
                name, mode = left[0]
                part = self.parts[name]
                with self.lock:
                    part.started = part.started or time.monotonic()
                part.finish(mode, make[name](worker, mode), self.lock)
                left.pop(0)
        except Exception:  # noqa: BLE001 - the parts left: the tests make them themselves
            for name in {name for name, _ in left}:
                self.parts[name].fail()

    def take(self, name: str) -> Part | None:
        """The finished part (waiting for it); None where it failed or was not prefetched."""
        part = self.parts.get(name)
        if part is None or not part.done.wait(WAIT_SECONDS) or part.failed:
            return None
        return part


MARKER = "experiment_runs"  # declared in the suites' pytest.ini


def parts_read(item: Any) -> tuple[str, ...]:
    """The parts a collected test declares it reads (``@pytest.mark.experiment_runs(...)``)."""
    return tuple(dict.fromkeys(part for mark in item.iter_markers(MARKER) for part in mark.args))


def reads_prefetch(item: Any) -> bool:
    """A test that reads the runs made here (it runs after the others when they are prefetched)."""
    return bool(parts_read(item))


def wanted(items: list[Any]) -> tuple[str, ...]:
    """The parts the collected tests declare they read, in lane order."""
    declared = {part for item in items for part in parts_read(item)}
    return tuple(part for part in NEEDS if part in declared)


def start(student: Any, artifacts: dict, items: list[Any], filtered: bool) -> bool:
    """Start what ``items`` will read, where a second worker pays; whether it started."""
    from lesson_embedding_pe.experiment import EARLY, second_worker_pays

    parts = wanted(items)
    client = getattr(student, "client", None)
    if filtered or not parts or client is None or not second_worker_pays(client):
        return False
    try:
        EARLY[id(artifacts)] = Prefetch(student, parts)  # where experiment.py's runs look first
    except Exception:  # noqa: BLE001 - no second worker: the tests make the runs themselves
        return False
    return True


def stop(artifacts: dict) -> None:
    """End of the session: forget it (the plugin stops the workers, which ends a run still going)."""
    from lesson_embedding_pe.experiment import EARLY

    EARLY.pop(id(artifacts), None)


def warm_up() -> None:
    """Before a batch forks its graders (GradeHooks.warm_up): the bag-of-tokens bounds every experiment test
    reads (exact fractions, cached), made once for all the children that inherit them."""
    from lesson_embedding_pe.experiment import header

    header()
