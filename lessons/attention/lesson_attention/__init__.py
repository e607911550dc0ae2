"""Scaled dot-product attention with a causal mask: the course's step after embeddings + positions.

A lesson package (docs/authors.md): ``LESSON`` is everything the kit's engine knows of it, declared with
``grader.author.lesson_package`` from this folder (exercises/, solutions/, suites/, probes.py): the
reference loader ``REFERENCE`` its hidden suites compare against, the student release and its notebook
(texts.py), and its report hooks (``ReportHooks``: its picture's words and its causes, whose modules load
no report code until a report asks). The suites import the rest directly (``checks``,
``diagnose``).
"""

from __future__ import annotations

from grader.author import Causes, Layout, NotebookTexts, ReportHooks, Task, lesson_package
from lesson_attention import causes, report, texts

__version__ = "0.1.0"

MODULE = "causal_attention"  # the one module a student writes (causal_attention.py)

TASKS = (
    Task("causal_mask", "Causal mask", "인과 마스크", ("causal_mask",)),
    Task("scaled_dot_product_attention", "Scaled dot-product attention", "스케일드 닷프로덕트 어텐션",
         ("scaled_dot_product_attention",)),
    Task("CausalSelfAttention", "Causal multi-head self-attention", "인과 멀티헤드 셀프 어텐션",
         ("CausalSelfAttention",)),
)


LESSON, REFERENCE = lesson_package(
    __file__, "attention", module=MODULE, tasks=TASKS, version=__version__,
    title_en="Scaled dot-product attention + causal mask",
    title_ko="스케일드 닷프로덕트 어텐션 + 인과 마스크",
    layout=Layout(modules=(MODULE,), probe_modules=(MODULE,)),  # the device probe runs the student's module
    readme=texts.README, notebook=NotebookTexts(texts.INTRO, texts.STEPS, texts.TRY_IT),
    # its picture's words (report.py) and its causes across checks (causes.py); report.py imports the kit's
    # drawing code only when it draws, so grading loads none of it
    report=ReportHooks(figure_texts=report.figure_texts,
                       causes=Causes(cause_of=causes.cause_of, explained_by=causes.explained_by,
                                     link_text=causes.link_text)),
)
