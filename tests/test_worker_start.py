"""A worker that could not be started (exit 122: its init or the zygote refused it, on a busy machine)
has run nothing of the student's: the grader starts it again instead of scoring the test that asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.core.errors import WORKER_NOT_STARTED, WorkerCrashed
from grader.core.feedback import describe_problem
from grader.sandbox import client as client_mod


def _client(monkeypatch: pytest.MonkeyPatch, statuses: list[str]) -> tuple[client_mod.WorkerClient, list]:
    """A client whose pings end as ``statuses`` say in turn ("" answers), with starts counted."""
    starts: list[int] = []
    client = client_mod.WorkerClient(Path("."))
    monkeypatch.setattr(client, "prestart", lambda: starts.append(1))
    monkeypatch.setattr(client_mod.time, "sleep", lambda s: None)

    def ping(*args: object) -> None:
        status = statuses.pop(0)
        if status:
            raise WorkerCrashed("the worker ended", status)

    monkeypatch.setattr(client, "_roundtrip", ping)
    return client, starts


def test_a_worker_that_never_started_is_started_again(monkeypatch: pytest.MonkeyPatch) -> None:
    client, starts = _client(monkeypatch, [f"exit status {WORKER_NOT_STARTED}", ""])
    client._await_ready()
    assert client.ready and len(starts) == 1


def test_a_worker_that_ran_and_died_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    client, starts = _client(monkeypatch, ["exit status 3", ""])
    with pytest.raises(WorkerCrashed):
        client._await_ready()
    assert not client.ready and starts == []


def test_a_worker_that_never_starts_is_said_after_its_attempts(monkeypatch: pytest.MonkeyPatch) -> None:
    never = f"exit status {WORKER_NOT_STARTED}"
    client, starts = _client(monkeypatch, [never] * client_mod.START_ATTEMPTS)
    with pytest.raises(WorkerCrashed) as raised:
        client._await_ready()
    assert raised.value.never_started and len(starts) == client_mod.START_ATTEMPTS - 1
    message, status = describe_problem(raised.value)
    assert status == "error" and "not your code's doing" in message.en
