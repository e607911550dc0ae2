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

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from grader.author import (
    ClassCharts,
    FigureTexts,
    GradeHooks,
    Layout,
    Lesson,
    ReleaseHooks,
    ReportHooks,
    Section,
    TACheck,
)
from lesson_embedding_pe import causes, class_report, logta, prefetch, reference, student_release
from lesson_embedding_pe.paths import EXERCISES, SOLUTIONS, SUITES
from lesson_embedding_pe.tasks import CONTRACT, LOG_NAME, TASK_LIST, TOP_LEVEL_CALLS

# The spies of evaluate's check (probes.py) stand in for a model handed to the student's reversal.evaluate:
# they run none of embedding.py, so they import nothing first, and evaluate's check meets only the modules
# reversal.py itself imports (a hang in embedding.py costs the embedding checks, not that one).
# The log's measurement (probes.py probe_practice_cost, leetlog/costmeter.py) runs leetcode.py's
# functions only.
SPY_IMPORTS: dict[str, tuple[str, ...]] = {"spy_model": (), "spy_report": (), "practice_cost": ("leetcode",)}


class Grading(GradeHooks):
    """The reference in use, the experiment's early start (prefetch.py), a batch's warm-up, and the log's
    parts a TA reads (logta.py)."""

    def use_solutions(self, folder: Path) -> None:
        reference.set_solutions_dir(folder)

    def warm_up(self) -> None:
        prefetch.warm_up()

    def prefetch(self, student: Any, artifacts: dict[str, Any], items: list[Any], filtered: bool) -> bool:
        return prefetch.start(student, artifacts, items, filtered)

    def reads_prefetch(self, item: Any) -> bool:
        return prefetch.reads_prefetch(item)

    def session_end(self, artifacts: dict[str, Any]) -> None:
        prefetch.stop(artifacts)

    def ta_checks(self, results: Mapping[str, Any]) -> Sequence[TACheck]:
        return logta.ta_checks(results)  # the log's unsure parts: a TA reads them


class Reporting(ReportHooks):
    """The experiment's table and the log review (report/), the words of its table picture
    (report/figure.py), its causes across checks (causes.py) and the class page's blocks (class_report.py).
    The report code is imported when a report is written: grading, and the worker, never load it."""

    def sections(self, results: Mapping[str, Any], lang: str) -> Sequence[Section]:
        from lesson_embedding_pe.report import report_sections

        return report_sections(results, lang)

    def figure_texts(self, figure: Mapping[str, Any], lang: str) -> FigureTexts | None:
        from lesson_embedding_pe.report.figure import figure_texts

        return figure_texts(figure, lang)

    def class_sections(self, results: Sequence[Mapping[str, Any]], charts: ClassCharts) -> Sequence[Section]:
        return class_report.class_sections(results, charts)

    def cause_of(self, row: dict[str, Any]) -> str | None:
        return causes.cause_of(row)

    def explained_by(self, row: dict[str, Any]) -> str | None:
        return causes.explained_by(row)

    def link_text(self, cause: str, lang: str) -> tuple[str, str, str]:
        return causes.link_text(cause, lang)


class Releasing(ReleaseHooks):
    """The student copy (student_release.py; the notebook in notebook.py)."""

    def readme(self) -> str:
        return student_release.README

    def student_files(self) -> Sequence[Path]:
        return student_release.student_files()

    def private_files(self) -> Sequence[Path]:
        return student_release.private_files()

    def write_notebook(self, source_dir: Path, out: Path) -> Path | None:
        return student_release.write_notebook(source_dir, out)


LESSON = Lesson(
    name="Embedding + Positional Encoding",
    tasks=TASK_LIST,
    layout=Layout(modules=("embedding", "reversal", "leetcode"), log_name=LOG_NAME,
                  probe_modules=("embedding",), probe_imports=SPY_IMPORTS),
    title_en="Embedding + Positional Encoding",
    title_ko="임베딩 + 위치 인코딩",
    version="1",
    contract=CONTRACT,
    notebook_top_level_calls=TOP_LEVEL_CALLS,
    exercises=EXERCISES,
    solutions=SOLUTIONS,
    suites=SUITES,
    probes=Path(__file__).resolve().parent / "probes.py",
    hidden_artifacts=("experiment",),  # the reversal experiment's numbers come from hidden runs
    grade=Grading(),
    report=Reporting(),
    release=Releasing(),
)
