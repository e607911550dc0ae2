"""This lesson's own blocks of a submission's report (``ReportHooks.sections``): the sequence-reversal
experiment's table with its curves, and the LeetCode log review.

Each block is rendered from its own templates here (``experiment.html.j2``, ``log.md.j2``, ...) with the
kit's report environment (its filters and escaping), and carries its own heading and anchors
(``id="experiment-student"``, ``id="log-points"``: tests and the page's CSS read them), so the kit places
it as it is (``Section.heading`` off), after the notes on a notebook's code (``late``). check()'s notebook
view leaves both out (``in_check`` off): the full report has them. The lesson declares
``report_sections`` as its hook, so this module is imported with the lesson: it imports the kit's
templates and charts when a section is built, not before (grading never loads them).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from grader.author import Section
from lesson_embedding_pe.report.texts import t

HERE = Path(__file__).resolve().parent


def _render(name: str, **context: Any) -> str:
    """One of this folder's templates, without the newline that ends its last line (the kit's page
    puts the blank line between blocks)."""
    from grader.author import environment

    return environment(HERE).get_template(name).render(context).removesuffix("\n")


def experiment_section(results: Mapping[str, Any], lang: str) -> Section:
    """The experiment's numbers (results["artifacts"]["experiment"], experiment.py), or a
    line saying there are none in this run."""
    from lesson_embedding_pe.report.charts import accuracy_bars, loss_curves
    from lesson_embedding_pe.report.experiment_view import experiment_view, sparkline

    exp = experiment_view((results.get("artifacts") or {}).get("experiment"), lang)
    for part in (exp or {}).get("parts", []):
        part["img_loss"] = loss_curves(part, lang)
        # the caption says "mean over seeds" only where a mode has several runs to take a mean of
        runs = [r.get("mode") for r in part.get("rows", [])]
        part["loss_caption"] = "loss_curves" if any(runs.count(m) > 1 for m in runs) else "loss_curves_one"
        part["img_acc"] = accuracy_bars(part, lang)
    tr = partial(t, lang=lang)
    return Section(
        key="experiment", title_en=t("experiment", "en"), title_ko=t("experiment", "ko"),
        html=_render("experiment.html.j2", t=tr, lang=lang, exp=exp),
        markdown=_render("experiment.md.j2", t=tr, lang=lang, exp=exp, sparkline=sparkline),
        heading=False, late=True, in_check=False, task="reversal_experiment",
    )


def log_section(results: Mapping[str, Any], lang: str) -> Section:
    """The LeetCode log review, its points those of the log's task in this run."""
    from lesson_embedding_pe.report.log import log_view

    log = log_view(dict(results), lang)
    tr = partial(t, lang=lang)
    brief: dict[str, Any] | None = (
        None if log is None else {k: log[k] for k in ("present", "points", "max_points") if k in log})
    return Section(
        key="log", title_en=t("log_review", "en"), title_ko=t("log_review", "ko"),
        html=_render("log.html.j2", t=tr, lang=lang, log=log),
        markdown=_render("log.md.j2", t=tr, lang=lang, log=log),
        heading=False, late=True, in_check=False, document=brief, task="leetcode_log",
    )


def report_sections(results: Mapping[str, Any], lang: str) -> list[Section]:
    """The lesson's ``ReportHooks.sections``: the experiment, then the log review."""
    return [experiment_section(results, lang), log_section(results, lang)]


__all__ = ["experiment_section", "log_section", "report_sections"]
