"""The grade's measurement (leetlog/code/costmeter.py), run here in the test process on the tests' own
practice code: the counted copy goes through the lesson's probe (probes.probe_practice_cost) with a stand-in
for the worker whose ``resolve`` returns the function of the source exec'd here. Trusted test code only:
the kit itself never runs a student's code outside the worker."""

from __future__ import annotations

import sys
from functools import cache
from typing import Any

from lesson_embedding_pe import probes
from lesson_embedding_pe.leetlog.code import costmeter
from lesson_embedding_pe.leetlog.code.claims import Measure
from lesson_embedding_pe.leetlog.code.coverage import PRACTICE_MODULE


class _Here:
    """``student.probe`` and the worker's ``resolve`` in one: the source's module, exec'd here."""

    def __init__(self, source: str) -> None:
        self.home: dict[str, Any] = {"__name__": PRACTICE_MODULE}
        limit = sys.getrecursionlimit()  # a module that raises it (sys.setrecursionlimit) raises the tests'
        try:
            exec(compile(source, f"{PRACTICE_MODULE}.py", "exec"), self.home)
        finally:
            sys.setrecursionlimit(limit)

    def resolve(self, target: str) -> Any:
        return self.home[target.split(".")[-1]]

    def probe(self, name: str, *args: Any, timeout: float | None = None) -> Any:
        return getattr(probes, f"probe_{name}")(self, *args)


@cache
def measured(source: str, function: str) -> costmeter.Measurement:
    """``function`` of ``source`` run at growing n and counted, as the worker does (once per source)."""
    try:
        here = _Here(source)
    except Exception as exc:  # as the worker's import failing: nothing measured, and why
        return costmeter.Measurement(function, why=(f"the function could not be run ({type(exc).__name__})",
                                                    "함수를 실행하지 못함"))
    return costmeter.measure(here, PRACTICE_MODULE, function, source)


def measure_in(sources: dict[str, str] | None) -> Measure | None:
    """``review_log``'s ``measure`` for ``sources`` (leetcode.py, else the notebook's code), as the grade
    passes it; None without code."""
    source = (sources or {}).get(PRACTICE_MODULE) or (sources or {}).get("notebook")
    if source is None:
        return None
    return lambda function: measured(source, function)
