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
from dataclasses import dataclass, field
from pathlib import Path

from grader.engine.classmodel import CLASS_JSON, ClassModel, Row, Step, final_section, load_graded, to_json
from grader.instructor.term.errors import TermError
from grader.instructor.term.policy import LatePolicy, late_steps, read_policy
from grader.instructor.term.records import (
    ADJUSTMENTS,
    POLICY,
    REVIEWS,
    TIMES,
    WITHDRAWN,
    Adjustment,
    Decision,
    latest_checks,
    latest_decisions,
    live_adjustments,
    read_adjustments,
    read_reviews,
    withdrawals,
)
from grader.instructor.term.steps import (
    ACCEPTED,
    adjustment_step,
    check_step,
    check_void_step,
    drift,
    pending_step,
    reconcile,
    review_step,
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
    checks: dict[tuple[str, str], Decision] = field(default_factory=dict)  # a TA's, per (id, check key)
    withdrawn: list[Decision] = field(default_factory=list)  # review rows that undid a decision


def read_term(out: Path) -> Term:
    """The term files of ``out``; TermError on the first malformed one."""
    policy = read_policy(out / POLICY) if (out / POLICY).exists() else None
    times = read_times_csv(out / TIMES) if (out / TIMES).exists() else {}
    reviews = read_reviews(out / REVIEWS)
    return Term(policy, times, read_adjustments(out / ADJUSTMENTS), latest_decisions(reviews),
                latest_checks(reviews), withdrawals(reviews))


def _note(model: ClassModel, en: str, ko: str) -> None:
    model.notes.append({"en": en, "ko": ko})


def _listing(items: list[str]) -> str:
    return ", ".join(items[:10]) + (" …" if len(items) > 10 else "")


def _mine(row: Row, who: str) -> bool:
    return who.casefold() in (row.id.casefold(), row.name.casefold())


def _own(adjustments: list[Adjustment], row: Row) -> list[tuple[int, Adjustment]]:
    """The adjustments of ``row`` (by id or submission name) that count, with their place in the file:
    a withdrawn one and the withdrawal itself are not among them."""
    live, _ = live_adjustments(adjustments)
    return [(i, a) for i, a in live if _mine(row, a.id)]


def _undone(term: Term, row: Row) -> list[str]:
    """The instructor's private notes of what was withdrawn for ``row`` (never a student's step)."""
    notes = []
    for w in (a for a in term.adjustments if a.kind == WITHDRAWN and _mine(row, a.id)):
        what = next((a for a in term.adjustments
                     if a.kind != WITHDRAWN and _mine(row, a.id) and a.when == w.withdraws), None)
        said = f"{what.kind} {what.points:g} ({what.reason})" if what else "an adjustment"
        notes.append(f"withdrawn {w.when}: {said} of {w.withdraws}: {w.reason}")
    for d in (d for d in term.withdrawn if _mine(row, d.id)):
        notes.append(f"withdrawn {d.when}: the {'check ' + d.check if d.check else 'review'} decision: "
                     f"{d.reason}")
    return notes


def apply_term(model: ClassModel, term: Term) -> ClassModel:
    """Each row's steps, in order: the deadline, the review (decision or pending), the adjustments; then
    the close's amount and the clamps (steps.reconcile), so every row's columns add up."""
    used_adj: set[int] = set()
    used_dec: set[str] = set()
    unknown_times: list[str] = []
    again: list[str] = []
    stale: list[str] = []
    used_checks: set[tuple[str, str]] = set()
    void: list[str] = []
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
        if row.review.flagged:
            changed = drift(row, decision) if decision is not None else None
            if decision is not None:
                used_dec.add(decision.id.casefold())
            if decision is not None and not changed:
                steps.append(review_step(row, decision))
                if decision.note:
                    row.notes.append(f"review: {decision.note}")
            else:  # no decision, or one made on other code or other findings: the points stay withheld
                steps.append(pending_step(row, changed))
                if changed and decision is not None:  # a drift is only measured against a decision
                    again.append(f"{row.id} ({decision.decision}ed {decision.when}: {changed.words()})")
        steps += _check_steps(row, term, used_checks, void)
        for i, adj in _own(term.adjustments, row):
            old = bool(adj.hash and row.hash and adj.hash != row.hash)
            steps.append(adjustment_step(adj, stale=old))
            used_adj.add(i)
            if adj.note:
                row.notes.append(adj.note)
            if old:
                stale.append(f"{row.id} ({adj.kind} {adj.points:g}: {adj.reason})")
        row.steps = reconcile(row.auto, row.max, steps)
        row.notes += _undone(term, row)
    if unknown_times:
        _note(model, f"No submission time for {len(unknown_times)} of them ({_listing(unknown_times)}): the "
                     "late policy was not applied to them; give their times with --submitted-at.",
              f"{len(unknown_times)}명의 제출 시각이 없어 지각 규정을 적용하지 못했습니다"
              f"({_listing(unknown_times)}). --submitted-at으로 시각을 주세요.")
    if again:
        _note(model, f"Review pending again, the decision was made on another version: {_listing(again)}. "
                     "Decide again with grade review DIR ID --accept|--reject --reason TEXT.",
              f"다른 버전에 대해 내린 검토 결정이라 다시 대기 중입니다: {_listing(again)}. "
              "grade review로 다시 결정하세요.")
    if stale:
        _note(model, f"Adjustments made on an earlier version of the submission (still applied, marked so): "
                     f"{_listing(stale)}. Confirm them with grade adjust DIR ID --confirm, or correct them.",
              f"이전 버전의 제출물에 대해 한 조정(그대로 적용, 표시됨): {_listing(stale)}. "
              "grade adjust DIR ID --confirm으로 확인하거나 바로잡으세요.")
    if void:
        _note(model, f"A TA's decision on a check was made on an earlier version of that part, which the "
                     f"student changed since: void (the points stay until decided again): {_listing(void)}. "
                     "Decide again with grade review DIR ID --check KEY --confirm|--take --reason TEXT.",
              f"학생이 바꾼 부분에 대한 이전 조교 결정이라 적용하지 않았습니다: {_listing(void)}. "
              "grade review DIR ID --check KEY로 다시 결정하세요.")
    gone = sorted(f"{d.id} ({d.check})" for k, d in term.checks.items() if k not in used_checks)
    if gone:
        _note(model, f"{REVIEWS} holds a TA's decision on a check this folder's results no longer have "
                     f"(the part was changed or is now read for sure): {_listing(gone)}; kept, not applied.",
              f"{REVIEWS}에 지금 결과에 없는 확인 항목의 결정이 있습니다: {_listing(gone)}. "
              "파일에는 남기고 적용하지 않았습니다.")
    live = {i for i, _ in live_adjustments(term.adjustments)[0]}  # a withdrawn row or its undo is no stray
    stray = sorted({a.id for i, a in enumerate(term.adjustments) if i not in used_adj and i in live}
                   | {d.id for k, d in term.decisions.items() if k not in used_dec})
    if stray:
        _note(model, f"{ADJUSTMENTS} or {REVIEWS} name {', '.join(stray)}, not a flagged submission of this "
                     "folder: kept in the file, not applied.",
              f"{ADJUSTMENTS}나 {REVIEWS}에 이 폴더에 없는(또는 검토 대상이 아닌) "
              f"{', '.join(stray)}이(가) 있습니다. 파일에는 남기고 적용하지 않았습니다.")
    return model


def check_decision(term_checks: dict[tuple[str, str], Decision], row: Row, key: str) -> Decision | None:
    """The TA's decision that counts on ``row``'s check ``key``, by the student's id or submission name."""
    return next((term_checks[(k.casefold(), key)] for k in (row.id, row.name)
                 if (k.casefold(), key) in term_checks), None)


def _check_steps(row: Row, term: Term, used: set[tuple[str, str]], void: list[str]) -> list[Step]:
    """The TA's decisions on ``row``'s provisional checks: each applies to the content it judged (its
    hash); on other content it is void, said to the student and the instructor. Points taken are the
    check's part (its ``points``), out of what its tests still hold: two parts of one test taken take
    both parts, never more than the test earned."""
    steps: list[Step] = []
    left = {str(t.get("id")): float(t.get("score") or 0.0) for t in row.results.get("tests") or []}
    for check in row.checks:
        decision = check_decision(term.checks, row, str(check["key"]))
        if decision is None:
            continue
        used.add((decision.id.casefold(), decision.check))
        if decision.hash and decision.hash != check.get("hash"):
            steps.append(check_void_step(check, decision))
            row.decided[str(check["key"])] = {"decision": "void", "reason": decision.reason, "points": 0.0}
            void.append(f"{row.id} ({check['key']}: {decision.decision}, {decision.when})")
            continue
        points = 0.0
        if decision.decision == "take":
            points = _take(left, [str(t) for t in check.get("tests") or []], check.get("points"))
        steps.append(check_step(check, decision, points))
        row.decided[str(check["key"])] = {"decision": decision.decision, "reason": decision.reason,
                                          "points": -points if points else 0.0}
        if decision.note:
            row.notes.append(f"{check['key']}: {decision.note}")
    return steps


def _take(left: dict[str, float], tests: list[str], part: object) -> float:
    """Take a check's part (``part`` points; None: all its tests hold) from what ``tests`` still hold in
    ``left``, test by test; the points taken."""
    want = sum(left.get(t, 0.0) for t in tests) if not isinstance(part, (int, float)) else float(part)
    taken = 0.0
    for t in tests:
        step = min(left.get(t, 0.0), want - taken)
        if step > 0:
            left[t] -= step
            taken += step
    return round(taken, 4)


def review_state(row: Row) -> str | None:
    """What a student's pages say of the review: accepted, rejected, pending; None when not flagged."""
    if not row.review.flagged:
        return None
    step = next((s for s in row.steps if s.kind in ("review", "pending")), None)
    if step is None or step.kind == "pending":
        return "pending"
    return "accepted" if step.en.startswith(ACCEPTED) else "rejected"


def load_class(out: Path) -> ClassModel:
    """THE loader: the class of ``out`` with its term; TermError when a term file is malformed."""
    return apply_term(load_graded(out), read_term(out))


# -- writing -------------------------------------------------------------------------------------


STUDENT_COPY = ""  # the path a student's reproduce commands name: none, their own copy (report/view.py)
PAGES_MARK = ".pages"  # beside feedback.html once the term wrote the pages for the student's own copy


def _pages_stale(d: Path) -> bool:
    """The pages a batch's child wrote name the instructor's path: written again once, for the student."""
    return (d / "feedback.html").exists() and not (d / PAGES_MARK).exists()


def _write_final(model: ClassModel, has_term: bool, only: set[str] | None = None) -> int:
    """Each student's results.json ``final`` and reports, where they change (of the rows whose id is in
    ``only``, when given); how many were rewritten."""
    from grader.report import write_reports
    from grader.report.gradescope import page_view
    from grader.report.text import text_summary

    changed = 0
    for row in model.rows:
        if not row.dir or (only is not None and row.id not in only):
            continue
        d = model.out / row.dir
        final = final_section(row) if (row.steps or has_term) else None
        if final is not None and review_state(row):
            final["review"] = review_state(row)  # the student's pages show the decision, not a stale banner
        same = row.results.get("final") == final
        if same and not _pages_stale(d):
            continue
        results = dict(row.results)
        if not same:  # results.json only when its final section changes; the pages at most once more
            if final is None:
                results.pop("final", None)
            else:
                results["final"] = final
            write_atomic(d / "results.json", json.dumps(results, ensure_ascii=False, indent=2))
        if (d / "feedback.html").exists():
            try:
                # as the student runs it in their own copy (`grade -k ...`): no instructor path
                lang = str(results.get("lang") or "en")
                write_reports(results, d, lang, STUDENT_COPY, for_student=True)
                if (d / "summary.txt").exists():  # the text summary leads with the same final total
                    text = text_summary(page_view(results), lang, STUDENT_COPY)  # type: ignore[arg-type]
                    write_atomic(d / "summary.txt", text)
                (d / PAGES_MARK).write_text(STUDENT_COPY or ".", encoding="utf-8")
            except Exception as exc:  # the gradebook is what counts; a report bug must not stop it
                print(f"grade: {row.name}: could not re-render the feedback ({type(exc).__name__}: {exc})",
                      file=sys.stderr)
        row.results = results
        changed += 1
    return changed


NOTES_SEEN = ".notes-said.json"  # the notes the last render printed: each is said once, when it changes


def _say_new_notes(out: Path, notes: list[dict]) -> None:
    """The term's notes (unknown times, stale decisions...) on stderr when they are new or changed; the
    summary lists them always, so a later command does not repeat them."""
    try:
        seen = json.loads((out / NOTES_SEEN).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        seen = []
    for note in notes:
        if note not in seen:
            print(f"grade: {note['en']} / {note['ko']}", file=sys.stderr)
    if notes != seen:
        write_atomic(out / NOTES_SEEN, json.dumps(notes, ensure_ascii=False))


def render_class(out: Path, model: ClassModel | None = None, only: set[str] | None = None) -> ClassReport:
    """Every class output of ``out`` from one model (loaded here unless given); with ``only`` (ids),
    the class files and those students' pages alone (a decision changes no one else's)."""
    model = model if model is not None else load_class(out)
    if only is None:
        _say_new_notes(out, model.notes)
    has_term = model.policy is not None
    _write_final(model, has_term, only)
    write_atomic(out / CLASS_JSON, to_json(model))
    return classpages.write_class_report(out, model)


def render_or_explain(out: Path, prog: str) -> ClassReport | None:
    """render_class, or the bilingual reason on stderr (None) when a term file is malformed."""
    try:
        return render_class(out)
    except TermError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None
