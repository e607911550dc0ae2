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

from pathlib import Path

from grader.author import Causes, GradeHooks, Layout, Lesson, Prefetch, ReleaseHooks, ReportHooks
from lesson_embedding_pe import causes, class_report, logta, prefetch, reference, student_release
from lesson_embedding_pe.paths import EXERCISES, SOLUTIONS, SUITES
from lesson_embedding_pe.report import report_sections
from lesson_embedding_pe.report.figure import figure_texts
from lesson_embedding_pe.tasks import CONTRACT, LOG_NAME, TASK_LIST, TOP_LEVEL_CALLS

# The spies of evaluate's check (probes.py) stand in for a model handed to the student's reversal.evaluate:
# they run none of embedding.py, so they import nothing first, and evaluate's check meets only the modules
# reversal.py itself imports (a hang in embedding.py costs the embedding checks, not that one).
# The log's measurement (probes.py probe_practice_cost, leetlog/code/costmeter.py) runs leetcode.py's
# functions only.
SPY_IMPORTS: dict[str, tuple[str, ...]] = {"spy_model": (), "spy_report": (), "practice_cost": ("leetcode",)}

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
    # The reference in use, a batch's warm-up, the experiment's early start (prefetch.py) and the log's
    # parts a TA reads (logta.py).
    grade=GradeHooks(use_solutions=reference.set_solutions_dir, warm_up=prefetch.warm_up,
                     prefetch=Prefetch(start=prefetch.start, reads=prefetch.reads_prefetch,
                                       end=prefetch.stop),
                     ta_checks=logta.ta_checks),
    # The experiment's table and the log review (report/), the words of its table picture (report/figure.py),
    # the class page's blocks (class_report.py) and its causes across checks (causes.py). The report modules
    # import the kit's templates and charts when a report is written: grading never loads them.
    report=ReportHooks(sections=report_sections, figure_texts=figure_texts,
                       class_sections=class_report.class_sections,
                       causes=Causes(cause_of=causes.cause_of, explained_by=causes.explained_by,
                                     link_text=causes.link_text)),
    # The student copy (student_release.py; the notebook in notebook.py).
    release=ReleaseHooks(student_files=student_release.student_files,
                         private_files=student_release.private_files, readme=student_release.README,
                         write_notebook=student_release.write_notebook),
)
