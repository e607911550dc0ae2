"""Recording a decision: the one writer `grade review`, `grade adjust` and `grade desk` share.

Each function checks the decision against the row, then appends it to its file under the term's lock
(records.term_lock), so two writers never lose each other's row.  A caller that showed a person an item
passes ``seen``, how many decisions on that item it showed (``item_count``): when another one landed in
between (a second TA on the same item), the decision is refused with what the other one decided
(``Stale``) instead of silently overriding it.  The caller re-renders the class afterwards.
"""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from pathlib import Path

from grader.engine.classmodel import Row
from grader.instructor.term.errors import TermError
from grader.instructor.term.records import (
    ADJUSTMENTS,
    PAIR_DECISIONS,
    PAIR_REVIEWS,
    REVIEWS,
    WITHDRAW,
    WITHDRAWN,
    Adjustment,
    Decision,
    PairDecision,
    latest_checks,
    latest_decisions,
    live_adjustments,
    now,
    pair_key,
    read_adjustments,
    read_pair_reviews,
    read_reviews,
    term_lock,
    write_adjustments,
    write_pair_reviews,
    write_reviews,
)
from grader.instructor.term.steps import findings_of


class Stale(TermError):
    """Someone decided the item after the person deciding last saw it: nothing was written."""

    def __init__(self, en: str, ko: str, latest: Decision | Adjustment | PairDecision | None) -> None:
        super().__init__(en, ko)
        self.latest = latest


def reason_of(text: str | None) -> str:
    if not (text or "").strip():
        raise TermError("--reason TEXT is required (it is shown to the student)",
                        "--reason TEXT가 필요합니다(학생에게 보입니다)")
    return " ".join(str(text).split())


def one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def _mine(row: Row, who: str) -> bool:
    return who.casefold() in (row.id.casefold(), row.name.casefold())


def review_rows(rows: list[Decision], row: Row, check: str = "") -> list[Decision]:
    """The decisions recorded on one item: ``row``'s flag (``check`` "") or its check ``check``."""
    return [d for d in rows if _mine(row, d.id) and d.check == check]


def adjustment_rows(rows: list[Adjustment], row: Row) -> list[Adjustment]:
    return [a for a in rows if _mine(row, a.id)]


def _refuse_if_moved(seen: int | None, done: list, what: str) -> None:
    """``seen`` decisions were shown; ``done`` are those recorded now: another landed in between."""
    if seen is None or len(done) == seen:
        return
    last = done[-1] if done else None
    if isinstance(last, (Decision, PairDecision)):
        by, who = (f" by {last.ta}", f"({last.ta}) ") if last.ta else ("", "")
        said = f"{last.decision} ({last.reason}, {last.when})"
        raise Stale(f"{what} was decided{by} while you read it: {said}; nothing was recorded, read it again "
                    "and decide",
                    f"읽는 동안 다른 결정이 기록되었습니다{who}: {said}. 아무것도 기록하지 않았습니다. "
                    "다시 읽고 결정하세요", last)
    if isinstance(last, Adjustment):
        by, who = (f" by {last.ta}", f"({last.ta}) ") if last.ta else ("", "")
        raise Stale(f"{what} changed{by} while you read it: {last.kind} {last.points:g} ({last.reason}, "
                    f"{last.when}); nothing was recorded, read it again and decide",
                    f"읽는 동안 다른 조정이 기록되었습니다{who}: {last.kind} {last.points:g} "
                    f"({last.reason}). 아무것도 기록하지 않았습니다. 다시 읽고 결정하세요", last)
    raise Stale(f"{what} changed while you read it; nothing was recorded, read it again",
                "읽는 동안 바뀌었습니다. 아무것도 기록하지 않았습니다. 다시 읽으세요", None)


def decide_flag(out: Path, row: Row, decision: str, reason: str | None, note: str = "", ta: str = "",
                seen: int | None = None) -> Decision | None:
    """Accept or reject a flagged submission; the decision it replaces (None: the first)."""
    if not row.review.flagged:
        raise TermError(f"{row.id} is not flagged for review", f"{row.id}은(는) 검토 대상이 아닙니다")
    if decision not in ("accept", "reject"):
        raise TermError(f"a flagged submission is accepted or rejected, not {decision!r}",
                        f"표시된 제출물은 accept나 reject로 결정합니다: {decision!r}")
    why = reason_of(reason)
    with term_lock(out):
        rows = read_reviews(out / REVIEWS)
        done = review_rows(rows, row)
        _refuse_if_moved(seen, done, f"{row.id}'s review")
        earlier = _latest(done)
        rows.append(Decision(row.id, decision, why, now(), row.hash, findings_of(row), one_line(note), "",
                             one_line(ta)))
        write_reviews(out / REVIEWS, rows)
    return earlier


def the_check(row: Row, key: str | None) -> dict:
    """The provisional check ``key`` of ``row`` (its only one when no key is given)."""
    keys = [str(c["key"]) for c in row.checks]
    if not keys:
        raise TermError(f"{row.id} has no check a TA reads", f"{row.id}에는 조교가 읽을 확인 항목이 없습니다")
    if key is None and len(keys) > 1:
        raise TermError(f"{row.id} has {len(keys)} checks: name one with --check ({', '.join(keys)})",
                        f"{row.id}의 확인 항목이 {len(keys)}개입니다. --check로 하나를 고르세요"
                        f"({', '.join(keys)})")
    if key is not None and key not in keys:
        raise TermError(f"{row.id} has no check {key!r} (it has: {', '.join(keys)})",
                        f"{row.id}에는 {key!r} 확인 항목이 없습니다({', '.join(keys)})")
    return next(c for c in row.checks if key is None or c["key"] == key)


def decide_check(out: Path, row: Row, key: str | None, decision: str, reason: str | None, note: str = "",
                 ta: str = "", seen: int | None = None) -> tuple[dict, Decision | None]:
    """Confirm a provisional check or take its points, bound to the content it judged (its hash)."""
    check = the_check(row, key)
    if decision not in ("confirm", "take"):
        raise TermError(f"a check is confirmed or taken, not {decision!r}",
                        f"확인 항목은 confirm이나 take로 결정합니다: {decision!r}")
    why = reason_of(reason)
    with term_lock(out):
        rows = read_reviews(out / REVIEWS)
        done = review_rows(rows, row, str(check["key"]))
        _refuse_if_moved(seen, done, f"{row.id}'s check {check['key']}")
        earlier = _latest(done)
        rows.append(Decision(row.id, decision, why, now(), str(check.get("hash") or ""), "", one_line(note),
                             str(check["key"]), one_line(ta)))
        write_reviews(out / REVIEWS, rows)
    return check, earlier


def add_adjustment(out: Path, adj: Adjustment, row: Row, seen: int | None = None) -> None:
    """Append ``adj`` to adjustments.csv (every row counts)."""
    with term_lock(out):
        rows = read_adjustments(out / ADJUSTMENTS)
        _refuse_if_moved(seen, adjustment_rows(rows, row), f"{row.id}'s adjustments")
        rows.append(adj)
        write_adjustments(out / ADJUSTMENTS, rows)


def confirm_adjustments(out: Path, row: Row, seen: int | None = None) -> int:
    """Bind the student's adjustments to the submission graded now; how many were made on another one."""
    with term_lock(out):
        rows = read_adjustments(out / ADJUSTMENTS)
        _refuse_if_moved(seen, adjustment_rows(rows, row), f"{row.id}'s adjustments")
        moved = sum(1 for a in rows if _mine(row, a.id) and a.hash != row.hash and a.kind != WITHDRAWN)
        write_adjustments(out / ADJUSTMENTS, [replace(a, hash=row.hash) if _mine(row, a.id) else a
                                              for a in rows])
    return moved


def withdraw_adjustment(out: Path, row: Row, when: str, reason: str | None, note: str = "",
                        ta: str = "") -> Adjustment:
    """Undo one of ``row``'s adjustments that count, the one made at ``when`` (``"last"``: the latest):
    a ``withdrawn`` row naming it is appended, so the file keeps both. The adjustment undone."""
    why = reason_of(reason)
    with term_lock(out):
        rows = read_adjustments(out / ADJUSTMENTS)
        live = [a for _, a in live_adjustments(rows)[0] if _mine(row, a.id)]
        if not live:
            raise TermError(f"{row.id} has no adjustment to withdraw", f"{row.id}에는 철회할 조정이 없습니다")
        # the file is appended to: the last row that counts is the latest
        found = live if when == "last" else [a for a in live if a.when == when]
        if not found:
            listed = "; ".join(f"{a.when} ({a.kind} {a.points:g}: {a.reason})" for a in live)
            raise TermError(f"{row.id} has no adjustment made at {when!r} that counts (theirs: {listed})",
                            f"{row.id}에는 {when!r}에 한 조정이 없습니다({listed})")
        target = found[-1]
        rows.append(Adjustment(target.id, target.task, 0.0, why, now(precise=True), WITHDRAWN, one_line(note),
                               row.hash, one_line(ta), target.when))
        write_adjustments(out / ADJUSTMENTS, rows)
    return target


def withdraw_decision(out: Path, row: Row, key: str | None, reason: str | None, note: str = "",
                      ta: str = "") -> tuple[str, Decision]:
    """Undo the review decision that counts on ``row`` (its flag's, or with ``key``, or where it has checks
    and no flag, one check's): a ``withdraw`` row is appended and the item is pending again. The check's
    key ("" for the flag) and the decision undone."""
    why = reason_of(reason)
    with term_lock(out):
        rows = read_reviews(out / REVIEWS)
        if key is not None or (not row.review.flagged and row.checks):
            key = str(the_check(row, key)["key"])
            checks = latest_checks(rows)
            earlier = next((checks[(k.casefold(), key)] for k in (row.id, row.name)
                            if (k.casefold(), key) in checks), None)
        else:
            key, flags = "", latest_decisions(rows)
            earlier = flags.get(row.id.casefold()) or flags.get(row.name.casefold())
        if earlier is None:
            what = f"check {key}" if key else "review"
            raise TermError(f"{row.id} has no {what} decision to withdraw",
                            f"{row.id}에는 철회할 결정이 없습니다")
        rows.append(Decision(earlier.id, WITHDRAW, why, now(), earlier.hash, earlier.findings, one_line(note),
                             key, one_line(ta)))
        write_reviews(out / REVIEWS, rows)
    return key, earlier


def pair_rows(rows: list[PairDecision], a: str, b: str) -> list[PairDecision]:
    return [d for d in rows if d.pair() == pair_key(a, b)]


def decide_pair(out: Path, pair: dict[str, str], decision: str, reason: str | None, note: str = "",
                ta: str = "", seen: int | None = None) -> PairDecision | None:
    """Record the outcome of a flagged similarity pair (a row of similarity.csv); the one it replaces."""
    if decision not in PAIR_DECISIONS:
        raise TermError(f"a similar pair is cleared or referred, not {decision!r}",
                        f"유사한 쌍은 clear나 refer로 결정합니다: {decision!r}")
    why = reason_of(reason)
    with term_lock(out):
        rows = read_pair_reviews(out / PAIR_REVIEWS)
        done = pair_rows(rows, pair["a"], pair["b"])
        _refuse_if_moved(seen, done, f"the pair {pair['a']} / {pair['b']}")
        rows.append(PairDecision(pair["a"], pair["b"], decision, why, now(), pair.get("similarity", ""),
                                 one_line(note), one_line(ta)))
        write_pair_reviews(out / PAIR_REVIEWS, rows)
    return done[-1] if done else None


def flagged_pairs(out: Path) -> list[dict[str, str]]:
    """The rows of similarity.csv `grade similarity` flagged (none when it did not run), with their rank."""
    path = out / "similarity.csv"
    if not path.is_file():
        return []
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    return [{**r, "rank": str(n)} for n, r in enumerate(rows, 1) if r.get("flagged") == "true"]


def the_pair(out: Path, a: str, b: str) -> dict[str, str]:
    key = pair_key(a, b)
    found = next((p for p in flagged_pairs(out) if pair_key(p["a"], p["b"]) == key), None)
    if found is None:
        raise TermError(f"{a} and {b} are not a pair `grade similarity` flagged in {out}",
                        f"{a}와 {b}는 {out}에서 grade similarity가 표시한 쌍이 아닙니다")
    return found


def _latest(done: list[Decision]) -> Decision | None:
    """The decision that counts among one item's: the latest by time, the later row on a tie."""
    ranked = sorted(enumerate(done), key=lambda p: (p[1].when, p[0]))
    return ranked[-1][1] if ranked else None


__all__ = ["Stale", "add_adjustment", "adjustment_rows", "confirm_adjustments", "decide_check", "decide_flag",
           "decide_pair", "flagged_pairs", "one_line", "pair_rows", "reason_of", "review_rows", "the_check",
           "the_pair", "withdraw_adjustment", "withdraw_decision"]
