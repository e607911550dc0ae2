"""A stateful property test of the instructor's decisions over a small class (tests/decisions_class.py).

Hypothesis runs random sequences of what an instructor and the batch do: a regrade (the student's code
changed, or only its findings), `grade adjust` (points, a bonus above the maximum, a set score, an
excusal), `grade review --accept/--reject`, `grade term --submitted-at` with a partial times file,
and a split into two shards brought back with `grade merge`.  The real commands run in-process on the
folders; after every step it checks that:

* no decision is lost: every adjustment row is a step of its student; the latest review decision
  applies exactly when it judged the code and the findings graded now, else the review is pending;
* the totals reconcile: ``total = auto + sum(steps)``, within 0..max (max plus the bonuses);
* the stored times are the merge of every times file given;
* `grade export` never sends a pending review or an unknown time unasked (exit 2, nothing written).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from grader.instructor import merge as merge_command
from grader.instructor.export import batch_scores, unsendable
from grader.instructor.export import main as export_main
from grader.instructor.term.commands import adjust_main, review_main, term_main
from grader.instructor.term.model import load_class
from grader.instructor.term.records import ADJUSTMENTS, REVIEWS, TERM_FILES, read_adjustments, read_reviews
from grader.instructor.term.steps import findings_of
from grader.instructor.term.times import read_times_csv
from tests.decisions_class import FINDING_FRAMES, FINDING_SIGNAL, MAX, Student, write_class, write_student

POLICY = """\
due = 2026-03-10T23:59:00+09:00
close = 2026-03-17T23:59:00+09:00
[late]
per = "day"
deduct_percent = 10
"""
WHEN = {"early": "2026-03-10T20:00:00+09:00", "late": "2026-03-12T09:00:00+09:00",
        "closed": "2026-03-18T09:00:00+09:00"}
NAMES = ("ann", "bo", "cy", "di")


class Decisions(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="decisions-"))
        self.students = {"ann": Student("ann", 10.0), "bo": Student("bo", 6.0),
                         "cy": Student("cy", 8.0, True, (FINDING_SIGNAL,)), "di": Student("di", 9.0)}
        self.out = write_class(self.root / "class", list(self.students.values()))
        (self.root / "policy.toml").write_text(POLICY, encoding="utf-8")
        assert term_main([str(self.out), "--policy", str(self.root / "policy.toml"), "-q"]) == 0
        self.times: dict[str, str] = {}
        self.adjusted: dict[str, int] = dict.fromkeys(NAMES, 0)
        self.step = 0

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    # -- what happens -------------------------------------------------------------------------

    @rule(name=st.sampled_from(NAMES), code=st.booleans(), finding=st.booleans())
    def regrade(self, name: str, code: bool, finding: bool) -> None:
        """`grade batch` after a resubmission (new code) or with the scan's findings changed (cy)."""
        s = self.students[name]
        if code:
            s.version += 1
        if finding and s.flagged:
            s.findings = (FINDING_SIGNAL,) if len(s.findings) == 2 else (FINDING_SIGNAL, FINDING_FRAMES)
        write_student(self.out, s)

    @rule(name=st.sampled_from(NAMES), kind=st.sampled_from(["points", "bonus", "set", "excuse"]),
          points=st.sampled_from([-12, -3, 1.5, 5, 15]))
    def adjust(self, name: str, kind: str, points: float) -> None:
        argv = [str(self.out), name, "--reason", f"r{self.step}", "-q"]
        if kind == "points":
            argv.insert(2, str(points))
        elif kind == "bonus":
            argv[2:2] = [str(abs(points)), "--above-max"]
        elif kind == "set":
            argv += ["--set", str(abs(points))]
        else:
            argv.append("--excuse")
        assert adjust_main(argv) == 0
        self.adjusted[name] += 1
        self.step += 1

    @rule(accept=st.booleans())
    def review(self, accept: bool) -> None:
        flag = "--accept" if accept else "--reject"
        assert review_main([str(self.out), "cy", flag, "--reason", f"d{self.step}", "-q"]) == 0
        self.step += 1

    @rule(who=st.sets(st.sampled_from(NAMES), min_size=1, max_size=2),
          when=st.sampled_from(sorted(WHEN)))
    def times_file(self, who: set[str], when: str) -> None:
        """A partial times file: the ids it names are updated, the others kept."""
        path = self.root / f"times{self.step}.csv"
        path.write_text("id,submitted_at\n" + "".join(f"{n},{WHEN[when]}\n" for n in sorted(who)))
        assert term_main([str(self.out), "--submitted-at", str(path), "-q"]) == 0
        self.times.update(dict.fromkeys(who, WHEN[when]))
        self.step += 1

    @rule(split=st.sets(st.sampled_from(NAMES), min_size=1, max_size=3))
    def shard_and_merge(self, split: set[str]) -> None:
        """The class as two shard folders (each with the term's files) merged into a new folder."""
        shards = [self.root / f"s{self.step}a", self.root / f"s{self.step}b"]
        for k, (shard, names) in enumerate(zip(shards, (split, set(NAMES) - split), strict=True), start=1):
            write_class(shard, [self.students[n] for n in sorted(names)], shard=f"{k}/2")
            for f in TERM_FILES:
                if (self.out / f).exists():
                    shutil.copyfile(self.out / f, shard / f)
        merged = self.root / f"m{self.step}"
        assert merge_command.main([*map(str, shards), "--out", str(merged), "-q"]) == 0
        self.out = merged
        self.step += 1

    # -- what must always hold ----------------------------------------------------------------

    @invariant()
    def totals_reconcile(self) -> None:
        adjustments = read_adjustments(self.out / ADJUSTMENTS)
        for row in load_class(self.out).rows:
            raw = row.auto + sum(s.points for s in row.steps)
            assert row.total == pytest.approx(raw, abs=1e-6), (row.id, row.steps)
            bonus = sum(s.points for s in row.steps if s.kind == "bonus")
            top = max([MAX, *(a.points for a in adjustments if a.id == row.id and a.kind == "set")])
            assert -1e-9 <= row.total <= top + bonus + 1e-9

    @invariant()
    def no_decision_lost_none_misapplied(self) -> None:
        model = load_class(self.out)
        adjustments = read_adjustments(self.out / ADJUSTMENTS)
        for row in model.rows:
            kinds = [s.kind for s in row.steps]
            made = sum(1 for a in adjustments if a.id == row.id)
            assert made == self.adjusted[row.id]
            assert sum(k in ("adjustment", "bonus", "set", "excused") for k in kinds) == made
            stale = [a for a in adjustments if a.id == row.id and a.hash != row.hash]
            marked = [s for s in row.steps if "made on an earlier version" in s.en]
            assert len(marked) == len(stale)
        cy = model.row("cy")
        decisions = [d for d in read_reviews(self.out / REVIEWS) if d.id == "cy"]
        latest = max(enumerate(decisions), key=lambda p: (p[1].when, p[0]))[1] if decisions else None
        judged = latest is not None and latest.hash == cy.hash and latest.findings == findings_of(cy)
        review = [s for s in cy.steps if s.kind in ("review", "pending")]
        assert [s.kind for s in review] == ["review" if judged else "pending"]
        if judged and latest.decision == "accept":
            assert review[0].points == cy.review.withheld_points > 0
        else:
            assert review[0].points == 0

    @invariant()
    def times_are_merged_never_replaced(self) -> None:
        stored = read_times_csv(self.out / "submitted_at.csv") if self.times else {}
        assert {k: v.isoformat() for k, v in stored.items()} == self.times

    @invariant()
    def export_never_sends_what_is_not_final(self) -> None:
        scores = batch_scores(load_class(self.out))
        blocked = unsendable(scores)
        expected = [s for s in scores if s["pending"] or s["unknown_time"]]
        assert bool(blocked) == bool(expected)
        target = self.root / "moodle.csv"
        target.unlink(missing_ok=True)
        code = export_main(["moodle", str(self.out), "--item", "L3", "--out", str(target)])
        assert (code == 2 and not target.exists()) if blocked else (code == 0 and target.exists())


Decisions.TestCase.settings = settings(max_examples=10, stateful_step_count=8, deadline=None,
                                       suppress_health_check=list(HealthCheck))
test_decisions_state_machine = Decisions.TestCase
