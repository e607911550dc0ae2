"""Deadlines that follow the machine.

A test that waits (for a grade, a process, a page) gives up after a deadline written for a quiet two-core
machine. On a busy one (a second copy of the suite beside this one, a TA's batch) everything takes longer
without being wrong, so each such deadline is multiplied by how oversubscribed the machine is right now:
the run queue's one-minute average per core beyond the one the suite itself keeps busy, read from the
kernel (no timing of our own, which a busy machine would skew further), between 1 and ``MOST``.
``GK_TEST_PACE`` sets the factor instead (a slow emulated machine, a debugging session). A deadline
guards against a hang; it never makes a test pass.
"""

from __future__ import annotations

import os
import time

MOST = 6.0  # a run that needs more than six times its quiet deadline is stuck, not slow
_FRESH_FOR = 15.0  # seconds a reading is reused: the load average itself moves over a minute
_last: tuple[float, float] = (-_FRESH_FOR, 1.0)


def factor() -> float:
    """How many times slower than a quiet machine waits may be now (1 on a quiet machine)."""
    global _last
    forced = os.environ.get("GK_TEST_PACE")
    if forced:
        return max(1.0, float(forced))
    now = time.monotonic()
    if now - _last[0] < _FRESH_FOR:
        return _last[1]
    try:
        per_core = os.getloadavg()[0] / max(1, len(os.sched_getaffinity(0)))
    except (OSError, AttributeError):
        per_core = 1.0
    # The suite's own workers and their graders keep one or two runnable per core: only what is runnable
    # beyond one per core is somebody else's load slowing this run down.
    _last = (now, min(MOST, max(1.0, per_core - 1.0)))
    return _last[1]


def seconds(quiet: float) -> float:
    """A deadline of ``quiet`` seconds on a quiet machine, as long as this machine needs now."""
    return quiet * factor()
