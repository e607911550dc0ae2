"""Choice groups: a task whose student picks which of its problems to solve ("any two of the four").

A test joins a group by recording, in its pytest-json-report metadata (the ``json_metadata``
fixture), ``choice = {"group": name, "best_of": n, "reason": {"en", "ko"}}``, plus
``"attempted": False`` while the student has not started that problem, and ``"counts": False`` for a
problem the task's rule never counts (an Easy one where the lesson asks for Medium). After the run the groups
of each task are ranked by the points they earned, then attempted before not attempted, then
collection order; the first ``best_of`` count. The tests of the other groups leave the score: each
group is one entry of the skipped tests per test file (``<file>::<group>``, its tests and their
statuses under ``not_counted``), with the reason. So the maximum is the same for every
submission, and solving the ones you chose is full marks.
"""

from __future__ import annotations

from typing import Any, TypedDict

from grader.engine.results import SkippedTest, TestResult


class Choice(TypedDict, total=False):
    group: str
    best_of: int
    attempted: bool
    counts: bool
    reason: dict[str, str]


def choices_of(report: dict) -> dict[str, Choice]:
    """nodeid -> its choice, from a pytest-json-report dict."""
    out: dict[str, Choice] = {}
    for t in report.get("tests", []):
        choice = (t.get("metadata") or {}).get("choice")
        if isinstance(choice, dict) and choice.get("group") and int(choice.get("best_of", 0)) > 0:
            out[t["nodeid"]] = choice  # type: ignore[assignment]  # the plugin's JSON, checked just above
    return out


def counted_groups(tests: list[TestResult], choices: dict[str, Choice]) -> dict[str, set[str]]:
    """task -> the groups that count."""
    groups: dict[str, dict[str, dict[str, Any]]] = {}
    for index, t in enumerate(tests):
        choice = choices.get(t["id"])
        if choice is None:
            continue
        task = str(t["task"])
        g = groups.setdefault(task, {}).setdefault(
            choice["group"], {"score": 0.0, "attempted": False, "first": index,
                              "best_of": int(choice["best_of"]), "counts": bool(choice.get("counts", True))})
        g["score"] += t["score"]
        g["attempted"] = g["attempted"] or bool(choice.get("attempted", True))
    counted: dict[str, set[str]] = {}
    for task, by_group in groups.items():
        best_of = min(g["best_of"] for g in by_group.values())
        ranked = sorted((name for name in by_group if by_group[name]["counts"]),
                        key=lambda name: (-round(by_group[name]["score"], 6),
                                          not by_group[name]["attempted"], by_group[name]["first"]))
        counted[task] = set(ranked[:best_of])
    return counted


def apply_choices(tests: list[TestResult], skipped: list[SkippedTest],
                  report: dict) -> tuple[list[TestResult], list[SkippedTest]]:
    """(the tests that count, the skipped tests with the ones that do not)."""
    choices = choices_of(report)
    if not choices:
        return tests, skipped
    counted = counted_groups(tests, choices)
    kept: list[TestResult] = []
    left_out: dict[tuple[str, str], Any] = {}  # one entry per (test file, group): "is_happy: not counted"
    for t in tests:
        choice = choices.get(t["id"])
        if choice is None or choice["group"] in counted.get(str(t["task"]), set()):
            kept.append(t)
            continue
        reason = choice.get("reason") or {}
        where = t["id"].split("::")[0]  # public/... or hidden/...: a hidden file's entry stays hidden
        entry = left_out.setdefault((where, choice["group"]), {
            "id": f"{where}::{choice['group']}", "task": t["task"],
            "reason": str(reason.get("en", "not counted")),
            "messages": {"en": str(reason.get("en", "")), "ko": str(reason.get("ko", ""))},
            "not_counted": {"group": choice["group"], "tests": []}})
        # its messages too: the reports show a failing problem that does not count as failing (cards.py)
        left = {"id": t["id"], "status": t["status"], "messages": dict(t.get("messages") or {}),
                **({"reused": True} if t.get("reused") else {})}
        if "feedback" in t:  # its record, "not counted" unless it is not started at all
            record = dict(t["feedback"])
            if record.get("status") == "failed":
                record["status"] = "not_counted"
            left["feedback"] = record
        entry["not_counted"]["tests"].append(left)
    return kept, [*skipped, *left_out.values()]
