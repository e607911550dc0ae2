"""A test calls a student's object (a ``Remote``: the nn.Module a class call gave back) through
``student.call(obj, ...)``, as it calls a graded name; anything else is a clear TypeError."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from grader.engine.student import Student
from grader.sandbox.client import Remote


class FakeClient:
    """The worker client, as far as ``Student.call`` reaches it: it records each request's header."""

    generation = 0

    def __init__(self, staging: Path) -> None:
        self.sub_dir = staging
        self.failed_imports: dict[str, Exception] = {}
        self.asked: list[dict[str, Any]] = []

    def ensure_module(self, module: str) -> None:
        pass

    def request(self, header: dict[str, Any], args: tuple, kwargs: dict, timeout: float | None = None) -> Any:
        self.asked.append(header)
        return ("ran", header.get("name") or header.get("target"), args, kwargs)


def test_a_remote_is_called_through_its_dunder_call(tmp_path: Path) -> None:
    client = FakeClient(tmp_path)
    student = Student(client, {"reasons": []}, home={"Layer": "layer"})  # type: ignore[arg-type]
    layer = Remote(client, 7, "Layer", 0)  # type: ignore[arg-type]
    assert student.call(layer, 3, scale=2) == ("ran", "__call__", (3,), {"scale": 2})
    assert client.asked[-1] == {"op": "method", "handle": 7, "name": "__call__"}
    assert student.attempt(layer, 4).value == ("ran", "__call__", (4,), {})


def test_a_call_on_something_else_says_what_it_takes(tmp_path: Path) -> None:
    student = Student(FakeClient(tmp_path), {"reasons": []})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a graded name .* or a Remote"):
        student.call(["Layer"], 1)  # type: ignore[arg-type]
