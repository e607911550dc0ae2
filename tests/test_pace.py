"""The suite's deadlines follow the machine (tests/pace.py): 1x on a quiet one, longer on a busy one."""

from __future__ import annotations

import os

import pace


def test_a_quiet_machine_keeps_the_written_deadline(monkeypatch) -> None:
    monkeypatch.delenv("GK_TEST_PACE", raising=False)
    monkeypatch.setattr(pace, "_last", (-pace._FRESH_FOR, 1.0))
    monkeypatch.setattr(os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    assert pace.seconds(60) == 60


def test_a_busy_machine_waits_longer_up_to_a_bound(monkeypatch) -> None:
    monkeypatch.delenv("GK_TEST_PACE", raising=False)
    cores = len(os.sched_getaffinity(0))
    monkeypatch.setattr(pace, "_last", (-pace._FRESH_FOR, 1.0))
    monkeypatch.setattr(os, "getloadavg", lambda: (2.0 * cores, 0.0, 0.0))  # the suite's own load
    assert pace.seconds(60) == 60
    monkeypatch.setattr(pace, "_last", (-pace._FRESH_FOR, 1.0))
    monkeypatch.setattr(os, "getloadavg", lambda: (4.0 * cores, 0.0, 0.0))  # three more per core
    assert pace.seconds(60) == 180
    monkeypatch.setattr(pace, "_last", (-pace._FRESH_FOR, 1.0))
    monkeypatch.setattr(os, "getloadavg", lambda: (100.0 * cores, 0.0, 0.0))
    assert pace.seconds(60) == 60 * pace.MOST  # stuck, not slow: the deadline still ends


def test_the_factor_can_be_set(monkeypatch) -> None:
    monkeypatch.setenv("GK_TEST_PACE", "2.5")
    assert pace.seconds(10) == 25
    monkeypatch.setenv("GK_TEST_PACE", "0.1")  # never shorter than written
    assert pace.seconds(10) == 10
