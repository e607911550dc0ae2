"""Scaled dot-product attention with a causal mask: the course's step after embeddings + positions.

A lesson package (README, "Adding a lesson"): ``LESSON`` is everything the kit's engine knows of it.
The suites import the rest directly (``checks``, ``diagnose``, ``reference``); the report's picture is
in ``report`` and the release's texts in ``release``, imported only by the kit's hooks that want them,
so grading loads no report code.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from grader.engine.lesson_api import Layout, Lesson
from lesson_attention import paths, reference, release
from lesson_attention.tasks import CONTRACT, MODULE, TASK_LIST, TOP_LEVEL_CALLS

if TYPE_CHECKING:
    from grader.engine.lesson_api import Section

__version__ = "0.1.0"

TITLE_EN = "Scaled dot-product attention + causal mask"
TITLE_KO = "스케일드 닷프로덕트 어텐션 + 인과 마스크"



def report_sections(results: Mapping[str, Any], lang: str) -> list[Section]:
    """The picture's section (report.py), imported only when a report asks for it."""
    from lesson_attention.report import report_sections as sections

    return sections(dict(results), lang)


_OPTIONAL = {  # fields of Lesson that a kit before the lesson registry (issue 29) does not have yet
    "title_en": TITLE_EN, "title_ko": TITLE_KO, "version": __version__,
    "exercises": paths.EXERCISES, "solutions": paths.SOLUTIONS, "suites": paths.SUITES,
    "report_sections": report_sections, "contract": CONTRACT,
    "notebook_top_level_calls": TOP_LEVEL_CALLS, "release": release, "probes": paths.PROBES,
}
_KNOWN = {f.name for f in dataclasses.fields(Lesson)}

LESSON = Lesson(
    name=TITLE_EN,
    tasks=TASK_LIST,
    layout=Layout(modules=(MODULE,), probe_modules=(MODULE,)),  # the device probe runs the student's module
    use_solutions=reference.set_solutions_dir,
    **{k: v for k, v in _OPTIONAL.items() if k in _KNOWN},
)
