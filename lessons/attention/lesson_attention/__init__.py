"""Scaled dot-product attention with a causal mask: the course's step after embeddings + positions.

A lesson package (docs/authors.md): ``LESSON`` is everything the kit's engine knows of it, declared with
``grader.author.lesson_package`` from this folder (exercises/, solutions/, suites/, probes.py): the
reference loader ``REFERENCE`` its hidden suites compare against, the student release and its notebook
(texts.py), and its report hooks (``Reporting``: its picture's words and its causes, imported only when a
report asks, so grading loads no report code). The suites import the rest directly (``checks``,
``diagnose``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from grader.author import FigureTexts, Layout, NotebookTexts, ReportHooks, Task, lesson_package
from lesson_attention import texts

__version__ = "0.1.0"

MODULE = "causal_attention"  # the one module a student writes (causal_attention.py)

TASKS = (
    Task("causal_mask", "Causal mask", "인과 마스크", ("causal_mask",)),
    Task("scaled_dot_product_attention", "Scaled dot-product attention", "스케일드 닷프로덕트 어텐션",
         ("scaled_dot_product_attention",)),
    Task("CausalSelfAttention", "Causal multi-head self-attention", "인과 멀티헤드 셀프 어텐션",
         ("CausalSelfAttention",)),
)


class Reporting(ReportHooks):
    def figure_texts(self, figure: Mapping[str, Any], lang: str) -> FigureTexts | None:
        """The words of a failed check's picture: the kit draws it in that check's card, beside its cause."""
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


LESSON, REFERENCE = lesson_package(
    __file__, "attention", module=MODULE, tasks=TASKS, version=__version__,
    title_en="Scaled dot-product attention + causal mask",
    title_ko="스케일드 닷프로덕트 어텐션 + 인과 마스크",
    layout=Layout(modules=(MODULE,), probe_modules=(MODULE,)),  # the device probe runs the student's module
    readme=texts.README, notebook=NotebookTexts(texts.INTRO, texts.STEPS, texts.TRY_IT), report=Reporting(),
)
