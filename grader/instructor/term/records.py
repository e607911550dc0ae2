"""The instructor's decisions, one CSV each in the batch folder, appended to and never rewritten by a grade.

* ``adjustments.csv``: ``id,task,points,reason,when,kind,note,hash,ta,withdraws`` (every row counts;
  a correction is another row); ``kind`` is ``points`` (an adjustment within the maximum), ``bonus`` (may
  go above it), ``set`` (``points`` is the total the instructor sets), ``excused``, or ``withdrawn``: the
  undo of the student's adjustment made at ``withdraws`` (its ``when``), which then counts as never
  made (the withdrawal is the instructor's record, never a step on the student's page);
* ``reviews.csv``: ``id,decision,reason,when,hash,findings,note,check,ta`` (decision ``accept`` or
  ``reject`` on a flagged submission; the latest one counts; ``withdraw`` undoes the one before it).
  A row with a ``check`` is a TA's decision
  on one check the lesson passed provisionally (results.json ``ta_checks``): ``confirm`` (the points
  stay) or ``take`` (the points its tests earned are taken); its ``hash`` is the check's, the content it
  judged, and the latest one per student and check counts.

``hash`` is the submission's content hash (its done-marker's ``submission_hash``) the decision was made
on, and ``findings`` the tamper scan's findings it judged (a JSON list): a regrade of other code or with
other findings makes a review pending again, and marks an adjustment as made on an earlier version.
``note`` is the instructor's own and never reaches a student's page; ``ta`` names who decided (`grade
review --ta`, the desk's token), for the instructor only.  Files written before these columns existed
(the first four or five) still read; their rows are bound to nothing.

``similarity-reviews.csv`` (``a,b,decision,reason,when,similarity,note,ta``) holds the outcome a person
recorded on a pair `grade similarity` flagged: ``clear`` (nothing to pursue) or ``refer`` (taken
further); the latest per pair counts, bound to the similarity it judged.  It is the instructor's
alone: no student's total or page reads it.

``grade batch`` (resume or ``--force``) never touches them, ``grade merge`` takes the union, so a
decision outlives every regrade.  Writers hold ``DIR/.term.lock`` while they read and rewrite a file.
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import io
from collections.abc import Iterator
from dataclasses import astuple, dataclass
from datetime import datetime, timezone
from pathlib import Path

from grader.instructor.term.errors import TermError
from grader.paths import write_atomic

POLICY = "policy.toml"
TIMES = "submitted_at.csv"
ADJUSTMENTS = "adjustments.csv"
REVIEWS = "reviews.csv"
PAIR_REVIEWS = "similarity-reviews.csv"
TERM_FILES = (POLICY, TIMES, ADJUSTMENTS, REVIEWS)
ADJUSTMENT_HEADER = ("id", "task", "points", "reason", "when", "kind", "note", "hash", "ta", "withdraws")
REVIEW_HEADER = ("id", "decision", "reason", "when", "hash", "findings", "note", "check", "ta")
WITHDRAW = "withdraw"  # a review row that undoes the decision before it (the flag's, or one check's)
DECISIONS = ("accept", "reject", WITHDRAW)
CHECK_DECISIONS = ("confirm", "take", WITHDRAW)  # a TA's decision on a provisional check
WITHDRAWN = "withdrawn"  # an adjustments row that undoes the one made at ``withdraws`` (its ``when``)
KINDS = ("points", "bonus", "set", "excused", WITHDRAWN)
PAIR_HEADER = ("a", "b", "decision", "reason", "when", "similarity", "note", "ta")
PAIR_DECISIONS = ("clear", "refer")  # a flagged similarity pair: nothing to pursue, or taken further


@dataclass(frozen=True)
class Adjustment:
    id: str
    task: str
    points: float
    reason: str
    when: str
    kind: str = "points"  # points | bonus | set | excused (KINDS)
    note: str = ""  # the instructor's private note
    hash: str = ""  # the submission it was made on ("" in a file older than the column)
    ta: str = ""  # who made it (never shown to the student)
    withdraws: str = ""  # kind ``withdrawn``: the ``when`` of the adjustment it undoes


@dataclass(frozen=True)
class Decision:
    id: str
    decision: str  # accept | reject
    reason: str
    when: str
    hash: str = ""  # the submission it judged
    findings: str = ""  # the findings it judged: a JSON list of their English text
    note: str = ""
    check: str = ""  # a TA's decision on this check's key (results.json ``ta_checks``); "": the flag
    ta: str = ""  # who decided (never shown to the student)


@dataclass(frozen=True)
class PairDecision:
    a: str
    b: str
    decision: str  # clear | refer
    reason: str
    when: str
    similarity: str = ""  # the similarity it judged, as similarity.csv wrote it
    note: str = ""
    ta: str = ""

    def pair(self) -> tuple[str, str]:
        return pair_key(self.a, self.b)


def pair_key(a: str, b: str) -> tuple[str, str]:
    """A pair's one name, whichever way round it is given."""
    x, y = a.casefold(), b.casefold()
    return (x, y) if x <= y else (y, x)


def now(precise: bool = False) -> str:
    """The time a row is recorded; ``precise`` (an adjustment: its time is what a withdrawal names, so two
    made within one second stay apart) to the microsecond."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds" if precise else "seconds")


def _rows(path: Path, header: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    if not path.exists():
        return []
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise TermError(f"{path}: cannot read it ({exc})", f"{path}: 읽을 수 없습니다") from None
    reader = csv.DictReader(io.StringIO(text))
    found = tuple(f.strip() for f in reader.fieldnames or ())
    if found != header[: len(found)] or len(found) < 4:  # an older file has the first columns only
        raise TermError(f"{path}: the header must be {','.join(header)}",
                        f"{path}: 머리글은 {','.join(header)}여야 합니다")
    return [(n, {**dict.fromkeys(header, ""), **{k.strip(): (v or "").strip() for k, v in r.items() if k}})
            for n, r in enumerate(reader, start=2)]


def read_adjustments(path: Path) -> list[Adjustment]:
    out = []
    for line, r in _rows(path, ADJUSTMENT_HEADER):
        try:
            points = float(r["points"])
        except ValueError:
            raise TermError(f"{path}: line {line}: points {r['points']!r} is not a number",
                            f"{path}: {line}행: 점수 {r['points']!r}이(가) 수가 아닙니다") from None
        if not r["id"]:
            raise TermError(f"{path}: line {line}: no id", f"{path}: {line}행: id가 없습니다")
        kind = r["kind"] or "points"
        if kind not in KINDS:
            raise TermError(f"{path}: line {line}: kind must be one of {', '.join(KINDS)}, found {kind!r}",
                            f"{path}: {line}행: kind는 {', '.join(KINDS)} 중 하나여야 합니다: {kind!r}")
        if kind == WITHDRAWN and not r["withdraws"]:
            raise TermError(f"{path}: line {line}: a withdrawal names the adjustment it undoes (withdraws)",
                            f"{path}: {line}행: 철회 행에는 철회할 조정(withdraws)이 있어야 합니다")
        out.append(Adjustment(r["id"], r["task"], points, r["reason"], r["when"], kind, r["note"], r["hash"],
                              r["ta"], r["withdraws"]))
    return out


def read_reviews(path: Path) -> list[Decision]:
    out = []
    for line, r in _rows(path, REVIEW_HEADER):
        allowed = CHECK_DECISIONS if r["check"] else DECISIONS
        if r["decision"] not in allowed or not r["id"]:
            raise TermError(f"{path}: line {line}: decision must be {' or '.join(allowed)}, with an id",
                            f"{path}: {line}행: 결정은 {' 또는 '.join(allowed)}이고 id가 있어야 합니다")
        out.append(Decision(r["id"], r["decision"], r["reason"], r["when"], r["hash"], r["findings"],
                            r["note"], r["check"], r["ta"]))
    return out


def read_pair_reviews(path: Path) -> list[PairDecision]:
    out = []
    for line, r in _rows(path, PAIR_HEADER):
        if r["decision"] not in PAIR_DECISIONS or not r["a"] or not r["b"]:
            allowed = " or ".join(PAIR_DECISIONS)
            raise TermError(f"{path}: line {line}: decision must be {allowed}, with a and b",
                            f"{path}: {line}행: 결정은 {allowed}이고 a와 b가 있어야 합니다")
        out.append(PairDecision(r["a"], r["b"], r["decision"], r["reason"], r["when"], r["similarity"],
                                r["note"], r["ta"]))
    return out


def write_pair_reviews(path: Path, rows: list[PairDecision]) -> None:
    write_atomic(path, _csv(PAIR_HEADER, [astuple(d) for d in rows]))


def latest_decisions(decisions: list[Decision]) -> dict[str, Decision]:
    """Casefolded id -> the review decision that counts: the latest by time, the later row on a tie
    (a TA's decisions on checks are ``latest_checks``)."""
    out: dict[str, Decision] = {}
    for d in sorted(enumerate(decisions), key=lambda p: (p[1].when, p[0])):
        if not d[1].check:
            out[d[1].id.casefold()] = d[1]
            if d[1].decision == WITHDRAW:  # undone: pending again, as if never decided
                del out[d[1].id.casefold()]
    return out


def latest_checks(decisions: list[Decision]) -> dict[tuple[str, str], Decision]:
    """(casefolded id, check key) -> the TA's decision that counts on that check, as ``latest_decisions``."""
    out: dict[tuple[str, str], Decision] = {}
    for d in sorted(enumerate(decisions), key=lambda p: (p[1].when, p[0])):
        if d[1].check:
            out[(d[1].id.casefold(), d[1].check)] = d[1]
            if d[1].decision == WITHDRAW:
                del out[(d[1].id.casefold(), d[1].check)]
    return out


def withdrawals(decisions: list[Decision]) -> list[Decision]:
    """The rows that undid a decision (for the instructor's notes; a student never sees them)."""
    return [d for d in decisions if d.decision == WITHDRAW]


def live_adjustments(adjustments: list[Adjustment]) -> tuple[list[tuple[int, Adjustment]], list[Adjustment]]:
    """(the adjustments that count, with their place in the file; the withdrawals, each with what it
    undid found by id and time)."""
    gone = {(a.id.casefold(), a.withdraws) for a in adjustments if a.kind == WITHDRAWN}
    live = [(i, a) for i, a in enumerate(adjustments)
            if a.kind != WITHDRAWN and (a.id.casefold(), a.when) not in gone]
    return live, [a for a in adjustments if a.kind == WITHDRAWN]


def _csv(header: tuple[str, ...], rows: list[tuple]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow([f"{x:g}" if isinstance(x, float) else x for x in row])
    return buf.getvalue()


def write_adjustments(path: Path, rows: list[Adjustment]) -> None:
    write_atomic(path, _csv(ADJUSTMENT_HEADER, [astuple(a) for a in rows]))


def write_reviews(path: Path, rows: list[Decision]) -> None:
    write_atomic(path, _csv(REVIEW_HEADER, [astuple(d) for d in rows]))


@contextlib.contextmanager
def term_lock(out: Path) -> Iterator[None]:
    """Held while a term file is read and rewritten, so two commands never lose each other's row."""
    with open(out / ".term.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def union(first: list, second: list) -> list:
    """``first`` then what ``second`` adds, exact duplicates once (a merge of shards' decisions)."""
    seen = set(first)
    out = list(first)
    for x in second:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out
