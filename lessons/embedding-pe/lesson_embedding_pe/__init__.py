"""This lesson's grading knowledge: reference solutions, value checks, the experiment, the LeetCode log.

``LESSON`` is what the engine knows of it (grader/engine/lesson_api.py): the tasks, the submission's
layout, the reference in use, the experiment's early start (and a batch's warm-up), its folders, its
worker probes (``probes.py``) and which of them import nothing first (``SPY_IMPORTS``), the words of its
table picture (``report/figure.py``) and its student release (``student_release``, the notebook in
``notebook``). Its pyproject (lessons/embedding-pe) registers it as ``embedding-pe`` (entry point group
``grader.lessons``, grader/engine/lessons.py). The suites call the rest directly (structural evidence in
``structure``, the table checks in ``pe_checks``, the log review in ``loggrade``, the experiment in
``experiment``).
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grader.engine.lesson_api import FigureTexts, Layout, Lesson, Section
from lesson_embedding_pe import causes, class_report, logta, prefetch, reference, student_release
from lesson_embedding_pe.paths import EXERCISES, SOLUTIONS, SUITES
from lesson_embedding_pe.tasks import CONTRACT, LOG_NAME, TASK_LIST, TOP_LEVEL_CALLS

# The spies of evaluate's check (probes.py) stand in for a model handed to the student's reversal.evaluate:
# they run none of embedding.py, so they import nothing first, and evaluate's check meets only the modules
# reversal.py itself imports (a hang in embedding.py costs the embedding checks, not that one).
SPY_IMPORTS: dict[str, tuple[str, ...]] = {"spy_model": (), "spy_report": ()}


def report_sections(results: Mapping[str, Any], lang: str) -> list[Section]:
    """The experiment's table and the LeetCode log review (report), imported when a report
    is written: grading, and the worker, never load the report code."""
    from lesson_embedding_pe.report import report_sections as sections

    return sections(results, lang)


def figure_texts(figure: Mapping[str, Any], lang: str) -> FigureTexts | None:
    """The words of its table picture (report/figure.py), imported when a report is written."""
    from lesson_embedding_pe.report.figure import figure_texts as texts

    return texts(figure, lang)


LESSON = Lesson(
    name="Embedding + Positional Encoding",
    tasks=TASK_LIST,
    layout=Layout(modules=("embedding", "reversal", "leetcode"), log_name=LOG_NAME,
                  probe_modules=("embedding",), probe_imports=SPY_IMPORTS),
    use_solutions=reference.set_solutions_dir,
    prefetch=prefetch.EXPERIMENT_RUNS,
    markers=(prefetch.MARKER_HELP,),
    title_en="Embedding + Positional Encoding",
    title_ko="임베딩 + 위치 인코딩",
    version="1",
    exercises=EXERCISES,
    solutions=SOLUTIONS,
    suites=SUITES,
    causes=causes,
    report_sections=report_sections,
    contract=CONTRACT,
    notebook_top_level_calls=TOP_LEVEL_CALLS,
    class_sections=class_report.class_sections,
    release=student_release,
    warm_up=prefetch.warm_up,
    probes=Path(__file__).resolve().parent / "probes.py",
    figure_texts=figure_texts,
    hidden_artifacts=("experiment",),  # the reversal experiment's numbers come from hidden runs
    ta_checks=logta.ta_checks,  # the log's unsure parts: a TA reads them (logta.py)
)
