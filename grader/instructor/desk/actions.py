"""A decision sent from the desk, recorded through the writer `grade review` and `grade adjust` use
(grader/instructor/term/decide.py), then the class files and that student's pages rendered again."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path

from grader.engine.classmodel import ClassModel, Row
from grader.instructor.desk.queue import CANNED
from grader.instructor.term.decide import (
    add_adjustment,
    confirm_adjustments,
    decide_check,
    decide_flag,
    decide_pair,
    one_line,
    reason_of,
    the_pair,
)
from grader.instructor.term.errors import TermError
from grader.instructor.term.model import load_class, render_class
from grader.instructor.term.records import Adjustment, now
from grader.instructor.term.store import unless_batch_running

_RENDER = threading.Lock()  # one render at a time in this server: two would write the same class files


@dataclass(frozen=True)
class Sent:
    """What the page posted."""

    kind: str
    id: str
    check: str
    verb: str
    reason: str
    note: str
    seen: int
    value: str = ""
    also: tuple[tuple[str, int], ...] = ()  # a check: the students who wrote the same, with what was seen


def _row(model: ClassModel, key: str) -> Row:
    row = model.row(key)
    if row is None:
        raise TermError(f"no student {key!r} in {model.out}", f"{model.out}에 {key!r} 학생이 없습니다")
    return row


def _number(text: str, signed: bool) -> float:
    try:
        value = float(text)
    except ValueError:
        raise TermError(f"the points must be a number, found {text!r}",
                        f"점수는 수여야 합니다: {text!r}") from None
    if value != value or abs(value) > 1e6 or (value < 0 and not signed):
        raise TermError(f"{text!r} is not a usable score here",
                        f"{text!r}은(는) 여기서 쓸 수 없는 점수입니다")
    return value


def record(out: Path, sent: Sent, ta: str) -> tuple[Row, bool]:
    """Record ``sent`` as ``ta``'s decision and render the class files and that student's pages; the row
    it was made on and whether the pages were written (False while a batch writes the folder: the batch
    renders them when it ends). TermError (decide.Stale included) when refused: nothing written."""
    model = load_class(out)
    row = _row(model, sent.id)
    rendered = {row.id}
    if not sent.reason.strip() and sent.kind != "student":  # one click: the canned reason of that choice
        sent = replace(sent, reason=CANNED.get(sent.verb, ""))
    if sent.kind == "flag":
        decide_flag(out, row, sent.verb, sent.reason, sent.note, ta, sent.seen)
    elif sent.kind == "check":
        others = [(_row(model, who), seen) for who, seen in sent.also]  # all found before one is written
        decide_check(out, row, sent.check, sent.verb, sent.reason, sent.note, ta, sent.seen)
        for other, seen in others:  # the same text, decided at once (each refused alone when stale)
            decide_check(out, other, sent.check, sent.verb, sent.reason, sent.note, ta, seen)
            rendered.add(other.id)
    elif sent.kind in ("crash", "missing", "student"):
        add_adjustment(out, _adjustment(row, sent, ta), row, sent.seen)
    elif sent.kind == "adjustment" and sent.verb == "reconfirm":
        confirm_adjustments(out, row, sent.seen)
    elif sent.kind == "similarity":  # the instructor's record alone: no student's page changes
        decide_pair(out, the_pair(out, row.id, sent.check), sent.verb, sent.reason, sent.note, ta, sent.seen)
        return row, True
    else:
        raise TermError(f"nothing to {sent.verb!r} on a {sent.kind!r} item",
                        f"{sent.kind!r} 항목에는 {sent.verb!r} 결정을 할 수 없습니다")
    with _RENDER, unless_batch_running(out) as free:
        if free:
            render_class(out, only=rendered)
    return row, free


def _adjustment(row: Row, sent: Sent, ta: str) -> Adjustment:
    """keep (+0, the grade stands), points (a signed change), set (a score), excuse."""
    why = reason_of(sent.reason)
    if sent.verb == "keep" and row.status != "missing":
        kind, points = "points", 0.0
    elif sent.verb == "points" and row.status != "missing":
        kind, points = "points", _number(sent.value, signed=True)
    elif sent.verb == "set":
        kind, points = "set", _number(sent.value, signed=False)
    elif sent.verb == "excuse":
        kind, points = "excused", 0.0
    else:
        raise TermError(f"{sent.verb!r} is not an adjustment here",
                        f"{sent.verb!r}은(는) 여기서 할 수 없는 조정입니다")
    return Adjustment(row.id, "", points, why, now(precise=True), kind, one_line(sent.note), row.hash,
                      one_line(ta))


__all__ = ["Sent", "record"]
