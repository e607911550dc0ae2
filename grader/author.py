"""The one module a lesson author imports: every name docs/authors.md uses, from wherever it lives in the kit.

A lesson package declares itself with ``lesson_package`` (its ``LESSON`` and reference loader, a release
and a notebook by default) and writes its suites with the checks below::

    from grader.author import Task, lesson_package

    LESSON, REFERENCE = lesson_package(__file__, "rope", module="rope", title_en="RoPE", title_ko="회전 위치",
                                       tasks=(Task("rotate", "Rotation", "회전", ("rotate",)),))

and in a suite::

    from grader.author import Said, check_close, expect_check, raised

    @pytest.mark.task("rotate", points=2)
    def test_rotate(student):
        check_close(student.call("rotate", x), REFERENCE.load().rotate(x), "rotate(x)")

A test reaches the student's code only through its ``student`` fixture (``Student``): ``student.call(name,
...)`` runs a graded function or class in the sandboxed worker; a class gives back a ``Remote``, the
student's object (an ``nn.Module``) living there, called with ``student.call(layer, x)`` (its
``__call__``) or ``layer.call("method", ...)`` and read with ``layer.attr("q_proj.weight")``.

Beyond the checks: structural evidence reads the submission's source as the importer does (``as_sources``,
``SourceView``, ``dotted``, ``literal_str``); work that may run in whichever test asks first, or beside the
tests, draws the same inputs wherever it runs (``owning``, ``seed_for``); ``container_limits`` is the
memory and CPUs this grade may use (a container's cgroup limits, else the machine's), for a lesson that
decides whether a second worker pays.

Report-side helpers (``two_tables``, the picture of a failed check's two tables; the SVG charts
``line_chart``/``bar_chart`` with their ``Line``/``Bars``, ``colour`` and ``data_uri``; the kit's report
texts ``translate``; a lesson's own templates rendered with the kit's filters, ``environment``; a test's
record ``record_of`` and the points still to be decided ``pending``) are imported from here too, but only
when first asked for (a lesson imports its report code inside its report hooks), so grading loads no
report code.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from grader.core.errors import MissingName, NotAttempted, StudentProblem, StudentRaised
from grader.core.feedback import (
    Evidence,
    GradeFailure,
    check,
    describe_problem,
    expect,
    expect_check,
    fail,
    fail_check,
    finding_of,
    with_cause,
)
from grader.core.finding import Cause, Finding, Said
from grader.core.lang import particle
from grader.core.reference import Reference
from grader.core.source import Sources, SourceView, as_sources, dotted, literal_str
from grader.core.text import BINARY_KINDS
from grader.engine.lesson_api import (
    Causes,
    ClassCharts,
    FailedCheck,
    FigureTexts,
    GradeHooks,
    Layout,
    Lesson,
    Prefetch,
    ReleaseHooks,
    ReportHooks,
    Section,
    TACheck,
    Task,
)
from grader.engine.package import default_readme, lesson_package, standard_release
from grader.notebook.build import NotebookTexts, build_notebook, write_notebook
from grader.runtime.protocol import MetaTensor
from grader.sandbox.cgroup import container_limits
from grader.sandbox.client import Remote

if TYPE_CHECKING:  # the names below, for the type checker only: at run time they load on first use
    from grader.core.testkit import (
        as_tensor,
        check_close,
        check_dtype,
        check_finite,
        check_shape,
        device_check,
        first_mismatch,
        fresh_rng,
        max_diff,
        mentions,
        note,
        owning,
        raised,
        seed_for,
        simulated_gpu,
        wrong_cells,
    )
    from grader.engine.student import Outcome, Student
    from grader.report.i18n import translate
    from grader.report.pending import pending
    from grader.report.plots import colour, data_uri
    from grader.report.records import record_of
    from grader.report.render import environment
    from grader.report.svg_chart import Bars, Line, bar_chart, line_chart
    from grader.report.table_figure import two_tables
    from grader.report.view import task_score

# Loaded on first use (PEP 562), name -> the module that defines it: the checks and the student's
# code need torch, the report code is the reports' own. A lesson's package is imported where no grade
# runs (a wrong path answered, `grade lessons`), and its declaration must not import torch there.
_LAZY = {
    "as_tensor": "grader.core.testkit",
    "check_close": "grader.core.testkit",
    "check_dtype": "grader.core.testkit",
    "check_finite": "grader.core.testkit",
    "check_shape": "grader.core.testkit",
    "device_check": "grader.core.testkit",
    "first_mismatch": "grader.core.testkit",
    "fresh_rng": "grader.core.testkit",
    "max_diff": "grader.core.testkit",
    "mentions": "grader.core.testkit",
    "note": "grader.core.testkit",
    "owning": "grader.core.testkit",
    "raised": "grader.core.testkit",
    "seed_for": "grader.core.testkit",
    "simulated_gpu": "grader.core.testkit",
    "wrong_cells": "grader.core.testkit",
    "Student": "grader.engine.student", "Outcome": "grader.engine.student",
    "two_tables": "grader.report.table_figure",
    "line_chart": "grader.report.svg_chart", "bar_chart": "grader.report.svg_chart",
    "Line": "grader.report.svg_chart", "Bars": "grader.report.svg_chart",
    "colour": "grader.report.plots", "data_uri": "grader.report.plots",
    "translate": "grader.report.i18n",
    "environment": "grader.report.render",
    "record_of": "grader.report.records",
    "pending": "grader.report.pending",
    "task_score": "grader.report.view",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    # the declaration
    "Lesson", "Task", "Layout", "Section", "FigureTexts", "ClassCharts", "TACheck",
    # its hooks by phase: the lesson's own functions, each optional
    "GradeHooks", "Prefetch", "ReportHooks", "Causes", "FailedCheck", "ReleaseHooks",
    # the package's defaults
    "lesson_package", "standard_release", "default_readme", "NotebookTexts",
    "build_notebook", "write_notebook", "Reference",
    # calling the student's code
    "Student", "Outcome", "Remote", "MetaTensor",
    # checks
    "as_tensor", "check_shape", "check_dtype", "check_finite", "check_close", "max_diff", "first_mismatch",
    "wrong_cells", "raised", "mentions", "fresh_rng", "seed_for", "owning", "device_check", "simulated_gpu",
    "note",
    # reading the submission's source (structural evidence)
    "Sources", "SourceView", "as_sources", "dotted", "literal_str", "BINARY_KINDS",
    # the machine the grade runs on
    "container_limits",
    # feedback records
    "Said", "Cause", "Finding", "check", "expect", "expect_check", "fail", "fail_check", "with_cause",
    "finding_of", "describe_problem", "GradeFailure", "Evidence", "particle",
    # what a student's code can do wrong
    "StudentProblem", "StudentRaised", "NotAttempted", "MissingName",
    # report side, loaded on first use (_LAZY): import these inside a report hook
    "two_tables", "line_chart", "bar_chart", "Line", "Bars", "colour", "data_uri", "translate", "environment",
    "record_of", "pending", "task_score",
]
