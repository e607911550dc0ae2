"""The desk's one queue: everything a person decides in a batch folder, read from the same records and
the same class model `grade review` reads (grader/instructor/term/).

An item is one thing to decide: a flagged submission (accept or reject), a log part the lesson's reader
was unsure of (confirm or take), a submission that crashed or ran out of time and a roster student with
nothing submitted (an adjustment: keep, set a score, excuse), an adjustment made on an earlier version
of the code (confirm it).  Its state is ``pending`` (never decided), ``decided`` (a decision applies to
what it judged) or ``again`` (the decision judged another version).  ``seen`` is how many decisions are
recorded on it: a decision sent back with it is refused when another one landed since (term/decide.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.engine.classmodel import ClassModel, Row
from grader.instructor.term.decide import adjustment_rows, pair_rows, review_rows
from grader.instructor.term.records import Adjustment, Decision, PairDecision
from grader.instructor.term.steps import adjustment_step, check_step, drift, review_step

KINDS = {  # kind -> (English, Korean) label
    "flag": ("flagged submission", "표시된 제출물"),
    "check": ("log part a TA reads", "조교가 읽을 로그 부분"),
    "crash": ("crash or timeout", "오류·시간 초과"),
    "missing": ("nothing submitted", "미제출"),
    "adjustment": ("adjustment on an earlier version", "이전 버전에 대한 조정"),
    "similarity": ("similar pair", "유사한 코드 쌍"),
}
STATES = {"pending": ("pending", "결정 대기"), "decided": ("decided", "결정됨"),
          "again": ("pending again", "다시 결정 대기")}
CRASHED = ("unreadable", "timeout", "error")
CANNED = {  # the reason the student reads when the TA gives none (one click), in both languages
    "accept": "reviewed by a TA: the flagged code is fine / 조교 검토: 표시된 코드에 문제가 없습니다",
    "reject": "reviewed by a TA: the flagged code reaches into the grader / 조교 검토: 표시된 코드가 "
              "채점기를 건드립니다",
    "confirm": "a TA read it: it answers what was asked / 조교 확인: 요구한 답입니다",
    "take": "a TA read it: it does not answer what was asked / 조교 확인: 요구한 답이 아닙니다",
    "keep": "a TA looked at it: the grade stands / 조교 확인: 점수 유지",
    "set": "score set by a TA after a manual check / 조교가 직접 확인해 점수를 정함",
    "excuse": "excused / 면제",
    "clear": "similar for an ordinary reason: nothing to pursue / 흔한 이유로 비슷함: 조치 없음",
    "refer": "referred to the instructor / 강사에게 넘김",
}


@dataclass(frozen=True)
class Action:
    verb: str  # what the form posts: accept | reject | confirm | take | keep | set | excuse | reconfirm
    en: str
    ko: str
    effect: str  # what it changes, in points, for the TA
    reason: str  # the canned reason the student reads (editable), both languages
    value: bool = False  # needs a number (a score to set)
    reads: tuple[str, str] = ("", "")  # the step the student reads after it (the canned reason), en and ko


@dataclass
class Item:
    kind: str
    row: Row
    state: str
    seen: int  # decisions recorded on it (term/decide.py refuses a stale one)
    task: str = ""
    check: dict | None = None
    latest: Decision | Adjustment | PairDecision | None = None
    changed: str = ""  # for ``again``: what changed since the decision
    actions: list[Action] = field(default_factory=list)
    pair: dict[str, str] | None = None  # a similar pair: its row of similarity.csv (``row`` is its ``a``)
    other: Row | None = None  # the pair's ``b``
    same: list[Item] = field(default_factory=list)  # a check: the others undecided with the same text

    @property
    def key(self) -> str:
        """Unique in the class: the kind, the student's id and the check's key (the pair's other id)."""
        last = str(self.check["key"]) if self.check else (self.pair["b"] if self.pair else "")
        return "/".join((self.kind, self.row.id, last))

    @property
    def sub(self) -> str:
        """What the form posts beside the id: the check's key, or the pair's other student."""
        return self.key.split("/", 2)[2]

    @property
    def ta(self) -> str:
        return self.latest.ta if self.latest is not None else ""

    @property
    def verdict(self) -> str:
        """The decision that counts, for the TA: 'take by bob: reason'."""
        d = self.latest
        if d is None:
            return ""
        by = f" by {d.ta}" if d.ta else ""
        what = f"{d.kind} {d.points:g}" if isinstance(d, Adjustment) else d.decision
        return f"{what}{by}, {d.when}: {d.reason}"


def _flag_actions(row: Row) -> list[Action]:
    restored, held = row.review.withheld_points, row.review.held_points

    def reads(verb: str) -> tuple[str, str]:
        step = review_step(row, Decision(row.id, verb, CANNED[verb], ""))
        return step.en, step.ko

    return [Action("accept", "Accept", "승인", f"+{restored:g} (of {held:g} withheld)", CANNED["accept"],
                   reads=reads("accept")),
            Action("reject", "Reject", "거부", f"+0 ({held:g} stay withheld)", CANNED["reject"],
                   reads=reads("reject"))]


def _check_actions(row: Row, check: dict) -> list[Action]:
    pts = float(check.get("points") or 0)

    def reads(verb: str, taken: float) -> tuple[str, str]:
        step = check_step(check, Decision(row.id, verb, CANNED[verb], "", check=str(check["key"])), taken)
        return step.en, step.ko

    return [Action("confirm", "Confirm", "확인", "+0 (its points stay)", CANNED["confirm"],
                   reads=reads("confirm", 0.0)),
            Action("take", "Take", "감점", f"-{pts:g}", CANNED["take"], reads=reads("take", pts))]


def _adjust_actions(row: Row, missing: bool) -> list[Action]:
    def reads(verb: str, kind: str) -> tuple[str, str]:
        step = adjustment_step(Adjustment(row.id, "", 0.0, CANNED[verb], "", kind))
        if kind != "set":
            return step.en, step.ko
        return (step.en.replace("set by the instructor to 0", "set by the instructor to SCORE"),
                step.ko.replace("점수를 0점으로", "점수를 SCORE점으로"))

    keep = [] if missing else [Action("keep", "Keep", "유지", "+0 (the total stays)", CANNED["keep"],
                                      reads=reads("keep", "points"))]
    return keep + [Action("set", "Set score", "점수 지정", "the total becomes the value", CANNED["set"],
                          value=True, reads=reads("set", "set")),
                   Action("excuse", "Excuse", "면제", "excused (no total)", CANNED["excuse"],
                          reads=reads("excuse", "excused"))]


def _review_item(row: Row, rows: list[Decision]) -> Item:
    done = review_rows(rows, row)
    latest = _latest(done)
    state, changed = "pending", ""
    if latest is not None:
        moved = drift(row, latest)
        state, changed = ("again", moved.words()) if moved else ("decided", "")
    return Item("flag", row, state, len(done), "", None, latest, changed, _flag_actions(row))


def _check_item(row: Row, check: dict, rows: list[Decision]) -> Item:
    done = review_rows(rows, row, str(check["key"]))
    latest = _latest(done)
    state, changed = "pending", ""
    if latest is not None:
        stale = bool(latest.hash and latest.hash != check.get("hash"))
        state = "again" if stale else "decided"
        changed = "the student changed this part since" if stale else ""
    return Item("check", row, state, len(done), str(check.get("task") or ""), check, latest, changed,
                _check_actions(row, check))


def _adjusted_item(kind: str, row: Row, adjustments: list[Adjustment]) -> Item:
    """A crash, a timeout or a missing student: decided by an adjustment on the current submission."""
    done = adjustment_rows(adjustments, row)
    latest = done[-1] if done else None
    state, changed = "pending", ""
    if latest is not None:
        stale = bool(latest.hash and row.hash and latest.hash != row.hash)
        state, changed = ("again", "the submission changed since") if stale else ("decided", "")
    return Item(kind, row, state, len(done), "", None, latest, changed,
                _adjust_actions(row, kind == "missing"))


def _latest(done: list[Decision]) -> Decision | None:
    ranked = sorted(enumerate(done), key=lambda p: (p[1].when, p[0]))
    return ranked[-1][1] if ranked else None


def _pair_items(model: ClassModel, pairs: list[dict[str, str]], outcomes: list[PairDecision]) -> list[Item]:
    """The pairs `grade similarity` flagged whose two students are in the class."""
    items = []
    for p in pairs:
        a, b = model.row(p["a"]), model.row(p["b"])
        if a is None or b is None:
            continue
        done = pair_rows(outcomes, p["a"], p["b"])
        latest = done[-1] if done else None
        state, changed = "pending", ""
        if latest is not None:
            moved = bool(latest.similarity and latest.similarity != p.get("similarity"))
            state = "again" if moved else "decided"
            changed = f"the similarity was {latest.similarity}, now {p.get('similarity')}" if moved else ""
        items.append(Item("similarity", a, state, len(done), "", None, latest, changed,
                          [Action("clear", "Clear", "조치 없음", "no grade changes", CANNED["clear"]),
                           Action("refer", "Refer", "넘김", "no grade changes", CANNED["refer"])], p, b))
    return items


def build_queue(model: ClassModel, reviews: list[Decision], adjustments: list[Adjustment],
                pairs: list[dict[str, str]] | None = None, outcomes: list[PairDecision] | None = None
                ) -> list[Item]:
    """Every item of the class, student by student in the gradebook's order, then the similar pairs."""
    items: list[Item] = []
    for row in model.rows:
        if row.status == "missing":
            items.append(_adjusted_item("missing", row, adjustments))
            continue
        if row.status in CRASHED:
            items.append(_adjusted_item("crash", row, adjustments))
        if row.review.flagged:
            items.append(_review_item(row, reviews))
        items += [_check_item(row, c, reviews) for c in row.checks]
        own = adjustment_rows(adjustments, row)
        old = [a for a in own if a.hash and row.hash and a.hash != row.hash]
        if old and row.status not in CRASHED:  # made on an earlier version: confirm it or correct it
            items.append(Item("adjustment", row, "again", len(own), old[-1].task, None, old[-1],
                              f"{len(old)} adjustment(s) made on an earlier version",
                              [Action("reconfirm", "Confirm", "확인",
                                      "no change (binds them to this version)", "")]))
    _group_same(items)
    return items + _pair_items(model, pairs or [], outcomes or [])


def _normalised(text: str) -> str:
    return " ".join(text.casefold().split())


def _group_same(items: list[Item]) -> None:
    """Each undecided check learns the others of its key whose student wrote the same text (normalised):
    decided together, as Gradescope groups answers."""
    groups: dict[tuple[str, str], list[Item]] = {}
    for item in items:
        if item.kind == "check" and item.check is not None and item.state != "decided":
            groups.setdefault((str(item.check["key"]), _normalised(str(item.check.get("saw") or ""))),
                              []).append(item)
    for group in groups.values():
        for item in group:
            item.same = [x for x in group if x is not item]


@dataclass(frozen=True)
class Filters:
    state: str = ""
    kind: str = ""
    task: str = ""
    student: str = ""
    ta: str = ""

    def keep(self, item: Item) -> bool:
        s = self.student.casefold()
        state = item.state == self.state or (self.state == "open" and item.state != "decided")
        return ((not self.state or state)
                and (not self.kind or item.kind == self.kind)
                and (not self.task or item.task == self.task)
                and (not s or any(s in r.id.casefold() or s in r.name.casefold()
                                  for r in (item.row, item.other) if r is not None))
                and (not self.ta or item.ta == self.ta))


def counts(items: list[Item]) -> dict[str, int]:
    """How many items in each state and of each kind."""
    out = {k: 0 for k in (*STATES, *KINDS)}
    for item in items:
        out[item.state] += 1
        out[item.kind] += 1
    return out


__all__ = ["CANNED", "KINDS", "STATES", "Action", "Filters", "Item", "build_queue", "counts"]
