"""One rubric: every test declares its task and points with a marker.

    @pytest.mark.task("TokenAndPosEmbedding", points=2)

A test without the marker, or with an unknown task, stops the run: a score
must never depend on a test that nobody priced.
"""

from __future__ import annotations

from typing import Any

TASKS = (
    "sinusoidal_pe",
    "TokenAndPosEmbedding",
    "weight_tying",
    "equivariance",
    "reversal_experiment",
    "leetcode_log",
    "leetcode_practice",
)

TASK_TITLES = {
    "sinusoidal_pe": ("Sinusoidal positional encoding", "사인 위치인코딩"),
    "TokenAndPosEmbedding": ("Token + position embedding", "토큰 + 위치 임베딩"),
    "weight_tying": ("Weight tying", "가중치 공유(weight tying)"),
    "equivariance": ("Permutation equivariance", "순열 동변성"),
    "reversal_experiment": ("Sequence-reversal experiment", "순서 뒤집기 실험"),
    "leetcode_log": ("LeetCode log", "LeetCode 기록"),
    "leetcode_practice": ("LeetCode practice code", "LeetCode 연습 코드"),
}


def rubric_of(item: Any) -> tuple[str, float]:
    """(task, points) of a collected pytest item; ValueError when it has none."""
    marker = item.get_closest_marker("task")
    if marker is None or not marker.args:
        raise ValueError(f"{item.nodeid} has no @pytest.mark.task(...) marker")
    task = marker.args[0]
    if task not in TASKS:
        raise ValueError(f"{item.nodeid}: unknown task {task!r}")
    points = float(marker.kwargs.get("points", 1.0))
    if points < 0:
        raise ValueError(f"{item.nodeid}: negative points")
    return task, points
