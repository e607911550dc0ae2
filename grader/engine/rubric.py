"""One rubric: every test declares its task and points with a marker.

    @pytest.mark.task("TokenAndPosEmbedding", points=2)

A test without the marker, or with a task its lesson does not declare (grader/engine/lesson_api.py),
stops the run: a score must never depend on a test that nobody priced.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any


def rubric_of(item: Any, tasks: Collection[str]) -> tuple[str, float]:
    """(task, points) of a collected pytest item; ValueError when it has none."""
    marker = item.get_closest_marker("task")
    if marker is None or not marker.args:
        raise ValueError(f"{item.nodeid} has no @pytest.mark.task(...) marker")
    task = marker.args[0]
    if task not in tasks:
        raise ValueError(f"{item.nodeid}: unknown task {task!r}")
    points = float(marker.kwargs.get("points", 1.0))
    if points < 0:
        raise ValueError(f"{item.nodeid}: negative points")
    return task, points
