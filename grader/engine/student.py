"""The `student` fixture: the only way a test reaches student code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from grader.engine.errors import StudentRaised
from grader.runtime.protocol import HOME_MODULE
from grader.sandbox.client import Remote, WorkerClient


@dataclass
class Outcome:
    """What a call did: a value, or the exception the student's code raised."""

    value: Any = None
    error: StudentRaised | None = None

    @property
    def raised(self) -> str | None:
        return self.error.type_name if self.error else None


class Student:
    def __init__(self, client: WorkerClient) -> None:
        self.client = client

    def call(self, name: str, *args: Any, timeout: float | None = None, **kwargs: Any) -> Any:
        """Call a contract function or class; a plain value or a Remote comes back.

        Student exceptions are raised here as StudentRaised/NotAttempted/...:
        a test that does not expect one fails with a message naming it.
        """
        self.client.ensure_module(HOME_MODULE.get(name, name.split(".")[0]))
        return self.client.request({"op": "call", "target": name}, args, kwargs, timeout)

    def attempt(self, name: str, *args: Any, timeout: float | None = None, **kwargs: Any) -> Outcome:
        """Like call, but a StudentRaised comes back as a value (for error tests)."""
        try:
            return Outcome(value=self.call(name, *args, timeout=timeout, **kwargs))
        except StudentRaised as exc:
            return Outcome(error=exc)

    def attempt_method(self, obj: Remote, method: str, *args: Any, timeout: float | None = None,
                       **kwargs: Any) -> Outcome:
        try:
            return Outcome(value=obj.call(method, *args, timeout=timeout, **kwargs))
        except StudentRaised as exc:
            return Outcome(error=exc)

    def probe(self, name: str, *args: Any, timeout: float | None = None, **kwargs: Any) -> Any:
        """Run a grader-written probe (see grader/runtime/probes.py) inside the worker."""
        return self.client.request({"op": "probe", "name": name}, args, kwargs, timeout)

    def has(self, module: str) -> bool:
        return (self.client.sub_dir / f"{module}.py").exists()
