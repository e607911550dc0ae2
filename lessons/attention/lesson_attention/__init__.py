"""Scaled dot-product attention with a causal mask: the course's step after embeddings + positions.

A lesson package (docs/authors.md): ``LESSON`` is everything the kit's engine knows of it, its data and
its hooks by phase (``Grading``: the reference folder in use; ``Reporting``: its picture's words;
``Releasing``: the student copy). The suites import the rest directly (``checks``, ``diagnose``,
``reference``); the report's picture is in ``report`` and the release's texts in ``release``, imported
only by the hooks that want them, so grading loads no report code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from grader.engine.lesson_api import FigureTexts, GradeHooks, Layout, Lesson, ReleaseHooks, ReportHooks
from lesson_attention import paths, reference, release
from lesson_attention.tasks import CONTRACT, MODULE, TASK_LIST, TOP_LEVEL_CALLS

__version__ = "0.1.0"

TITLE_EN = "Scaled dot-product attention + causal mask"
TITLE_KO = "스케일드 닷프로덕트 어텐션 + 인과 마스크"


class Grading(GradeHooks):
    def use_solutions(self, folder: Path) -> None:
        reference.REFERENCE.use(folder)


class Reporting(ReportHooks):
    def figure_texts(self, figure: Mapping[str, Any], lang: str) -> FigureTexts | None:
        """The words of a failed check's picture (report.py, imported only when a report asks for it): the
        kit draws it in that check's card, beside its cause."""
        from lesson_attention.report import figure_texts

        return figure_texts(figure, lang)

    def cause_of(self, row: dict[str, Any]) -> str | None:
        from lesson_attention import causes

        return causes.cause_of(row)

    def explained_by(self, row: dict[str, Any]) -> str | None:
        from lesson_attention import causes

        return causes.explained_by(row)

    def link_text(self, cause: str, lang: str) -> tuple[str, str, str]:
        from lesson_attention import causes

        return causes.link_text(cause, lang)


class Releasing(ReleaseHooks):
    """The student copy (release.py; the notebook in notebook.py)."""

    def readme(self) -> str:
        return release.README

    def student_files(self) -> Sequence[Path]:
        return release.student_files()

    def private_files(self) -> Sequence[Path]:
        return release.private_files()

    def write_notebook(self, source_dir: Path, out: Path) -> Path | None:
        return release.write_notebook(source_dir, out)


LESSON = Lesson(
    name=TITLE_EN,
    tasks=TASK_LIST,
    layout=Layout(modules=(MODULE,), probe_modules=(MODULE,)),  # the device probe runs the student's module
    title_en=TITLE_EN,
    title_ko=TITLE_KO,
    version=__version__,
    contract=CONTRACT,
    notebook_top_level_calls=TOP_LEVEL_CALLS,
    exercises=paths.EXERCISES,
    solutions=paths.SOLUTIONS,
    suites=paths.SUITES,
    probes=paths.PROBES,
    grade=Grading(),
    report=Reporting(),
    release=Releasing(),
)
