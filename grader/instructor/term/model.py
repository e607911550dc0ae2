"""The class model with the term applied: loaded once from a batch folder, rendered once.

``load_class(DIR)`` = the graded rows (engine/classmodel.py) + the steps the term files give each one
(late policy, review decision, adjustments), in that order.  ``render_class(DIR)`` writes every class
output from it: ``class.json``, ``gradebook.csv``, ``summary.html``, and each student's ``final``
section (results.json, feedback.html, feedback.md) where the term changes or explains their total.
Nothing here regrades: a new policy or decision costs a re-render.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.engine.classmodel import CLASS_JSON, ClassModel, Row, Step, final_section, load_graded, to_json
from grader.instructor.term.errors import TermError
from grader.instructor.term.policy import LatePolicy, late_steps, read_policy
from grader.instructor.term.records import (
    ADJUSTMENTS,
    POLICY,
    REVIEWS,
    TIMES,
    Adjustment,
    Decision,
    latest_decisions,
    read_adjustments,
    read_reviews,
)
from grader.instructor.term.times import read_times_csv, times_for
from grader.paths import write_atomic
from grader.report import classpages
from grader.report.classpages import ClassReport


@dataclass
class Term:
    policy: LatePolicy | None
    times: dict
    adjustments: list[Adjustment]
    decisions: dict[str, Decision]


def read_term(out: Path) -> Term:
    """The term files of ``out``; TermError on the first malformed one."""
    policy = read_policy(out / POLICY) if (out / POLICY).exists() else None
    times = read_times_csv(out / TIMES) if (out / TIMES).exists() else {}
    return Term(policy, times, read_adjustments(out / ADJUSTMENTS),
                latest_decisions(read_reviews(out / REVIEWS)))


def _pts(x: float) -> str:
    return f"{round(x, 2):+g}"


def review_step(row: Row, decision: Decision) -> Step:
    """Accept restores what the withheld tests' recorded verdicts earned (no regrade); reject nothing."""
    restored, held = row.review.withheld_points, row.review.held_points
    why = f": {decision.reason}" if decision.reason else ""
    if decision.decision == "accept":
        of_en = f" of {held:g}" if held != restored else ""
        of_ko = f" (보류 {held:g}점 중)" if held != restored else ""
        return Step("review", restored,
                    f"review accepted, withheld points restored {_pts(restored)}{of_en}{why}",
                    f"검토 승인, 보류된 점수 복원 {_pts(restored)}점{of_ko}{why}")
    return Step("review", 0.0, f"review rejected, {held:g} withheld points stay withheld{why}",
                f"검토 거부, 보류된 {held:g}점은 그대로 보류{why}")


def adjustment_step(adj: Adjustment) -> Step:
    where_en = f" ({adj.task})" if adj.task else ""
    why = f": {adj.reason}" if adj.reason else ""
    return Step("adjustment", adj.points, f"instructor adjustment{where_en} {_pts(adj.points)}{why}",
                f"강사 조정{where_en} {_pts(adj.points)}점{why}", task=adj.task or None)


def apply_term(model: ClassModel, term: Term) -> ClassModel:
    """Each row's steps, in order: the deadline, the review decision, the adjustments."""
    used_adj: set[int] = set()
    used_dec: set[str] = set()
    unknown_times = []
    if term.policy is not None:
        model.policy = term.policy.describe()
    for row in model.rows:
        keys = (row.id, row.name)
        steps: list[Step] = []
        if term.policy is not None and row.status != "missing":
            when = times_for(term.times, *keys)
            late, row.late_by = late_steps(term.policy, row.max, when, keys)
            row.submitted_at = when.isoformat() if when else None
            steps += late
            if when is None:
                unknown_times.append(row.id)
        elif term.times and row.status != "missing":
            when = times_for(term.times, *keys)
            row.submitted_at = when.isoformat() if when else None
        decision = next((term.decisions[k.casefold()] for k in keys if k.casefold() in term.decisions), None)
        if decision is not None and row.review.flagged:
            steps.append(review_step(row, decision))
            used_dec.add(decision.id.casefold())
        for i, adj in enumerate(term.adjustments):
            if adj.id.casefold() in (row.id.casefold(), row.name.casefold()):
                steps.append(adjustment_step(adj))
                used_adj.add(i)
        row.steps = steps
    if unknown_times:
        model.notes.append({
            "en": f"No submission time for {len(unknown_times)} of them ({', '.join(unknown_times[:10])}"
                  f"{' …' if len(unknown_times) > 10 else ''}): the late policy was not applied to them; "
                  "give their times with --submitted-at.",
            "ko": f"{len(unknown_times)}명의 제출 시각이 없어 지각 규정을 적용하지 못했습니다"
                  f"({', '.join(unknown_times[:10])}). --submitted-at으로 시각을 주세요."})
    stray = sorted({a.id for i, a in enumerate(term.adjustments) if i not in used_adj}
                   | {d.id for k, d in term.decisions.items() if k not in used_dec})
    if stray:
        model.notes.append({
            "en": f"{ADJUSTMENTS} or {REVIEWS} name {', '.join(stray)}, not a flagged submission of this "
                  "folder: kept in the file, not applied.",
            "ko": f"{ADJUSTMENTS}나 {REVIEWS}에 이 폴더에 없는(또는 검토 대상이 아닌) "
                  f"{', '.join(stray)}이(가) 있습니다. 파일에는 남기고 적용하지 않았습니다."})
    return model


def load_class(out: Path) -> ClassModel:
    """THE loader: the class of ``out`` with its term; TermError when a term file is malformed."""
    return apply_term(load_graded(out), read_term(out))


# -- writing -------------------------------------------------------------------------------------


def _write_final(model: ClassModel, has_term: bool) -> int:
    """Each student's results.json ``final`` and reports, where they change; how many were rewritten."""
    from grader.report import write_reports

    changed = 0
    for row in model.rows:
        if not row.dir:
            continue
        d = model.out / row.dir
        final = final_section(row) if (row.steps or has_term) else None
        if row.results.get("final") == final:
            continue
        results = dict(row.results)
        if final is None:
            results.pop("final", None)
        else:
            results["final"] = final
        write_atomic(d / "results.json", json.dumps(results, ensure_ascii=False, indent=2))
        if (d / "feedback.html").exists():
            try:
                write_reports(results, d, str(results.get("lang") or "en"), row.path or row.name)
            except Exception as exc:  # the gradebook is what counts; a report bug must not stop it
                print(f"grade: {row.name}: could not re-render the feedback ({type(exc).__name__}: {exc})",
                      file=sys.stderr)
        row.results = results
        changed += 1
    return changed


def render_class(out: Path, model: ClassModel | None = None) -> ClassReport:
    """Every class output of ``out`` from one model (loaded here unless given)."""
    model = model if model is not None else load_class(out)
    for note in model.notes:  # e.g. submissions without a known time: said where the instructor looks
        print(f"grade: {note['en']} / {note['ko']}", file=sys.stderr)
    has_term = model.policy is not None
    _write_final(model, has_term)
    write_atomic(out / CLASS_JSON, to_json(model))
    return classpages.write_class_report(out, model)


def render_or_explain(out: Path, prog: str) -> ClassReport | None:
    """render_class, or the bilingual reason on stderr (None) when a term file is malformed."""
    try:
        return render_class(out)
    except TermError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None
