"""The steps the instructor's decisions give one row, and the steps that make its columns add up.

A decision is bound to what it judged: the submission's content hash (its done-marker's
``submission_hash``) and, for a review, the tamper scan's findings.  ``review_steps`` applies a
decision only to that; on other code or other findings the review is pending again.  An adjustment
keeps applying after the code changes, marked as made on an earlier version.  ``reconcile`` then
turns what the close takes and every clamp into a step with its amount, so that
``total = auto + sum(step.points)`` holds for every row.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from grader.engine.classmodel import Row, Step
from grader.instructor.term.records import Adjustment, Decision

ACCEPTED = "review accepted"  # how an accepted review's step starts (the pages' banner reads it)


def _pts(x: float) -> str:
    return f"{round(x, 2):+g}"


def findings_of(row: Row) -> str:
    """The findings a review judges, as recorded in reviews.csv: a JSON list of their English text."""
    return json.dumps(sorted({str(x.get("en", "")) for x in row.review.reasons}), ensure_ascii=False)


@dataclass(frozen=True)
class Drift:
    """What changed between a decision and the row it would apply to (empty: nothing)."""

    code: bool = False
    added: tuple[str, ...] = ()
    gone: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return self.code or bool(self.added or self.gone)

    def words(self) -> str:
        """For the instructor: what changed since the decision."""
        parts = ["the submission's code changed"] if self.code else []
        parts += [f"new finding: {x}" for x in self.added]
        parts += [f"finding gone: {x}" for x in self.gone]
        return "; ".join(parts)


def _listed(text: str) -> list[str]:
    try:
        data = json.loads(text)
    except ValueError:
        return [text]
    return [str(x) for x in data] if isinstance(data, list) else [str(data)]


def drift(row: Row, decision: Decision) -> Drift:
    """How the row differs from what ``decision`` judged; a decision recorded before the binding
    columns existed (no hash) is taken as made on this code."""
    code = bool(decision.hash and row.hash and decision.hash != row.hash)
    if not decision.findings:
        return Drift(code)
    now, then = set(_listed(findings_of(row))), set(_listed(decision.findings))
    return Drift(code, tuple(sorted(now - then)), tuple(sorted(then - now)))


def pending_step(row: Row, changed: Drift | None = None) -> Step:
    """A flagged row without a decision that applies: its points stay withheld until one is made."""
    held = row.review.held_points
    if changed:
        return Step("pending", 0.0,
                    f"review pending again: the submission changed after the last decision; "
                    f"{held:g} points stay withheld until the instructor decides",
                    f"검토 다시 대기: 마지막 결정 뒤에 제출물이 바뀌었습니다. 강사가 결정할 때까지 "
                    f"{held:g}점은 보류됩니다")
    return Step("pending", 0.0, f"review pending: {held:g} points withheld until the instructor decides",
                f"검토 대기: 강사가 결정할 때까지 {held:g}점 보류")


def review_step(row: Row, decision: Decision) -> Step:
    """Accept restores what the withheld tests' recorded verdicts earned (no regrade); reject nothing."""
    restored, held = row.review.withheld_points, row.review.held_points
    why = f": {decision.reason}" if decision.reason else ""
    if decision.decision == "accept":
        of_en = f" of {held:g}" if held != restored else ""
        of_ko = f" (보류 {held:g}점 중)" if held != restored else ""
        return Step("review", restored,
                    f"{ACCEPTED}, withheld points restored {_pts(restored)}{of_en}{why}",
                    f"검토 승인, 보류된 점수 복원 {_pts(restored)}점{of_ko}{why}")
    return Step("review", 0.0, f"review rejected, {held:g} withheld points stay withheld{why}",
                f"검토 거부, 보류된 {held:g}점은 그대로 보류{why}")


def adjustment_step(adj: Adjustment, stale: bool = False) -> Step:
    """One row of adjustments.csv as a step; ``stale``: made on an earlier version of the submission."""
    where = f" ({adj.task})" if adj.task else ""
    why = f": {adj.reason}" if adj.reason else ""
    old_en = " (made on an earlier version of the submission)" if stale else ""
    old_ko = " (이전 버전의 제출물에 대해 한 결정)" if stale else ""
    if adj.kind == "set":
        return Step("set", adj.points, f"score set by the instructor to {adj.points:g}{why}{old_en}",
                    f"강사가 점수를 {adj.points:g}점으로 정함{why}{old_ko}")
    if adj.kind == "excused":
        return Step("excused", 0.0, f"excused by the instructor{why}{old_en}",
                    f"강사가 면제함{why}{old_ko}")
    if adj.kind == "bonus":
        return Step("bonus", adj.points, f"instructor bonus{where} {_pts(adj.points)}, may go above the "
                    f"maximum{why}{old_en}",
                    f"강사 가산점{where} {_pts(adj.points)}점(만점 초과 가능){why}{old_ko}",
                    task=adj.task or None)
    return Step("adjustment", adj.points, f"instructor adjustment{where} {_pts(adj.points)}{why}{old_en}",
                f"강사 조정{where} {_pts(adj.points)}점{why}{old_ko}", task=adj.task or None)


def _part(check: dict) -> tuple[str, str]:
    """The part a check is about, as a student reads it (the lesson's words, else its key), in the
    document it reads."""
    where = f"{check['document']}, " if check.get("document") else ""
    en, ko = check.get("part_en") or check["key"], check.get("part_ko") or check["key"]
    return f"{where}{en}", f"{where}{ko}"


def check_step(check: dict, decision: Decision, taken: float) -> Step:
    """A TA's decision on a provisional check: confirmed (the points stay) or ``taken`` points taken."""
    why = f": {decision.reason}" if decision.reason else ""
    en, ko = _part(check)
    if decision.decision == "confirm":
        return Step("check", 0.0, f"a TA read {en}: confirmed, its points stay{why}",
                    f"조교가 {ko} 부분을 읽고 확인함: 점수 유지{why}", task=check.get("task"))
    return Step("check", -taken, f"a TA read {en}: {_pts(-taken)} taken{why}",
                f"조교가 {ko} 부분을 읽고 {_pts(-taken)}점 감점{why}", task=check.get("task"))


def check_void_step(check: dict, decision: Decision) -> Step:
    """A TA's decision made on other content than the check now reads: void, and said so."""
    en, ko = _part(check)
    return Step("check", 0.0,
                f"the TA's decision on {en} ({decision.decision}, {decision.when}) was made on an "
                "earlier version of it and no longer applies; a TA reads it again",
                f"{ko} 부분에 대한 조교의 결정({decision.decision}, {decision.when})은 이전 버전에 "
                "대한 것이라 적용하지 않습니다. 조교가 다시 읽습니다", task=check.get("task"))


def reconcile(auto: float, maximum: float, steps: list[Step]) -> list[Step]:
    """``steps`` with what each one really changed: the close's amount, and a clamp step wherever the
    total was held at 0 or at the maximum; afterwards ``auto + sum(points)`` is the final total.

    In order: the close takes everything so far (and the points of any later adjustment, said so);
    a score the instructor sets replaces the running total (and overrides the close); at the end the
    total without the bonuses is kept within 0..max, and the bonuses (``--above-max``) go on top."""
    out: list[Step] = []
    running, closed, bonus = float(auto), False, 0.0
    top = maximum if maximum > 0 else float("inf")
    for step in steps:
        if step.kind == "closed":
            step = replace(step, points=round(-running, 4))
            running, closed = 0.0, True
        elif step.kind == "set":  # its points are the value set; as a step, the amount it changed
            value = step.points
            step = replace(step, points=round(value - running, 4))
            running, closed, top = value, False, max(top, value)  # a set score may be above the maximum
        elif closed and step.points:
            out.append(step)
            out.append(Step("clamp", -step.points,
                            f"the total stays 0 after the close date: this {_pts(step.points)} does not "
                            "change it",
                            f"제출 종료 이후라 총점은 0점 그대로입니다: {_pts(step.points)}점은 "
                            "반영되지 않습니다"))
            continue
        elif step.kind == "bonus":
            bonus += step.points
        else:
            running += step.points
        out.append(step)
    if closed:
        return out
    extra = f" before the bonus of {bonus:+g}" if bonus else ""
    extra_ko = f"(가산점 {bonus:+g}점 제외)" if bonus else ""
    if running > top + 1e-9:
        out.append(Step("clamp", round(top - running, 4),
                        f"capped at the maximum {top:g}: the steps above{extra} add up to "
                        f"{round(running, 2):g}",
                        f"만점 {top:g}점으로 제한: 위의 변경{extra_ko}을 더하면 {round(running, 2):g}점"
                        "입니다"))
    elif running < -1e-9:
        out.append(Step("clamp", round(-running, 4),
                        f"kept at 0: the steps above{extra} add up to {round(running, 2):g}",
                        f"0점으로 유지: 위의 변경{extra_ko}을 더하면 {round(running, 2):g}점입니다"))
    return out


__all__ = ["ACCEPTED", "Drift", "adjustment_step", "check_step", "check_void_step", "drift", "findings_of",
           "pending_step", "reconcile",
           "review_step"]
