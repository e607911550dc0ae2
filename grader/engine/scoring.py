"""From pytest-json-report's record to the contract's results.json."""

from __future__ import annotations

import platform
from collections.abc import Sequence
from typing import Any, cast

from grader.engine.choice import apply_choices
from grader.engine.results import Results, SkippedTest, TaskTotal, TestResult

SCHEMA = 1
STATUSES = ("passed", "failed", "error", "timeout")


def test_entries(report: dict, lang: str,
                 hidden_visibility: str) -> tuple[list[TestResult], list[SkippedTest]]:
    """(scored tests, skipped tests) from a pytest-json-report dict."""
    tests: list[TestResult] = []
    skipped: list[SkippedTest] = []
    for t in report.get("tests", []):
        meta = t.get("metadata") or {}
        nodeid = t["nodeid"]
        duration = round(sum(float((t.get(p) or {}).get("duration", 0.0))
                             for p in ("setup", "call", "teardown")), 3)
        if t.get("outcome") == "skipped":
            skipped.append({"id": nodeid, "task": meta.get("task"), "reason": _skip_reason(t, meta)})
            continue
        points = float(meta.get("points", 0.0))
        if t.get("outcome") == "passed":
            status = "passed"
        else:
            status = meta.get("status") or ("error" if t.get("outcome") == "error" else "failed")
            if status not in STATUSES:
                status = "error"
        messages = meta.get("message") or {"en": "", "ko": ""}
        if status != "passed" and not (messages.get("en") or messages.get("ko")):
            crash = ((t.get("call") or t.get("setup") or {}).get("crash") or {}).get("message", "")
            messages = {"en": f"The grader could not finish this test: {crash[:300]}",
                        "ko": f"채점기가 이 테스트를 끝내지 못했습니다: {crash[:300]}"}
        # built from pytest-json-report's untyped metadata (plugin.py wrote it): the contract's keys
        tests.append(cast(TestResult, {
            "id": nodeid,
            "task": meta.get("task"),
            "status": status,
            "score": points if status == "passed" else 0.0,
            "max_score": points,
            "visibility": hidden_visibility if nodeid.startswith("hidden/") else "visible",
            "message": messages.get(lang) or messages.get("en", ""),
            "messages": messages,
            "duration": duration,
            **({"location": meta["location"]} if meta.get("location") and status != "passed" else {}),
            # a flagged submission's test, failed "Withheld for review": the verdict its check gave
            **({"withheld": meta["withheld"]} if meta.get("withheld") and status != "passed" else {}),
            **({"figure": meta["figure"]} if meta.get("figure") and status != "passed" else {}),
            # the record the reports render (grader/core/finding.py); a test that stopped before any
            # check could speak has a message to show whole
            **({"feedback": meta.get("feedback") or {"status": "failed"}} if status != "passed" else {}),
            # a warm re-grade took it from the last run: nothing it read had changed (engine/reuse.py)
            **({"reused": True} if t.get("reused") else {}),
        }))
    return tests, skipped


def _skip_reason(t: dict, meta: dict) -> str:
    if meta.get("skip_reason"):
        return str(meta["skip_reason"])
    longrepr = str((t.get("setup") or {}).get("longrepr") or (t.get("call") or {}).get("longrepr") or "")
    return longrepr.rsplit("Skipped: ", 1)[-1].strip("')\n ")[:300]


def task_totals(tests: list[TestResult], tasks: Sequence[str]) -> dict[str, TaskTotal]:
    """Points per task, in the lesson's order of ``tasks``."""
    totals: dict[str, TaskTotal] = {}
    for task in tasks:
        mine = [t for t in tests if t["task"] == task]
        if mine:
            totals[task] = {
                "score": round(sum(t["score"] for t in mine), 3),
                "max_score": round(sum(t["max_score"] for t in mine), 3),
                "passed": sum(t["status"] == "passed" for t in mine),
                "total": len(mine),
            }
    return totals


def build_results(report: dict, *, submission: str, suites: list[str], tasks: Sequence[str], isolation: str,
                  lang: str, hidden_visibility: str = "after_published",
                  extra: dict[str, Any] | None = None) -> Results:
    tests, skipped = test_entries(report, lang, hidden_visibility)
    tests, skipped = apply_choices(tests, skipped, report)  # "solve any two": the others do not count
    import torch

    results: Results = {
        "schema": SCHEMA,
        "submission": submission,
        "score": round(sum(t["score"] for t in tests), 3),
        "max_score": round(sum(t["max_score"] for t in tests), 3),
        "suites": suites,
        "isolation": isolation,
        "tests": tests,
        "tasks": task_totals(tests, tasks),
        "skipped": skipped,
        "lang": lang,
        "versions": {"python": platform.python_version(), "torch": torch.__version__,
                     "platform": platform.platform(terse=True)},
    }
    results.update(extra or {})  # type: ignore[typeddict-item]  # the caller's NotRequired fields (a plain dict)
    return results
