"""The term's files of several batch folders as one: what `grade merge` keeps of each shard's decisions."""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.instructor.term.errors import TermError
from grader.instructor.term.policy import read_policy
from grader.instructor.term.records import (
    ADJUSTMENTS,
    PAIR_REVIEWS,
    POLICY,
    REVIEWS,
    TIMES,
    Adjustment,
    Decision,
    PairDecision,
    latest_checks,
    latest_decisions,
    read_adjustments,
    read_pair_reviews,
    read_reviews,
    union,
    write_adjustments,
    write_pair_reviews,
    write_reviews,
)
from grader.instructor.term.times import read_times_csv, write_times


def merged_policy(sources: list[Path], out: Path, chosen: Path | None = None) -> Path | None:
    """The one policy of the merge: ``chosen`` (``grade merge --policy``), else the shards' own when they
    agree.  TermError, before anything is written, when they differ and none was chosen."""
    if chosen is not None:
        read_policy(chosen)
        return chosen
    folders = [out, *[s for s in sources if s.resolve() != out.resolve()]]
    policies = [d / POLICY for d in folders if (d / POLICY).exists()]
    if not policies:
        return None
    differ = [p for p in policies[1:] if read_policy(p) != read_policy(policies[0])]
    if differ:
        raise TermError(f"the shards' late policies differ ({policies[0]} and {differ[0]}): choose one with "
                        "--policy FILE; nothing was merged",
                        f"샤드의 지각 규정이 서로 다릅니다({policies[0]}, {differ[0]}). --policy FILE로 "
                        "하나를 고르세요. 아무것도 합치지 않았습니다")
    return policies[0]


def _verdict(d: Decision) -> str:
    return f"{d.decision} of {d.when} ({d.reason})"


def _who(d: Decision) -> str:
    """The student and, for a TA's decision on a check, the check: how a conflict is named."""
    return f"{d.id} (check {d.check})" if d.check else d.id


def _counting(folder: Path) -> dict[tuple[str, str], Decision]:
    """(casefolded id, check key or "") -> the decision that counts in ``folder``: the flag's and each
    check's (a withdrawn one counts as none)."""
    reviews = read_reviews(folder / REVIEWS)
    out = {(k, ""): d for k, d in latest_decisions(reviews).items()}
    out.update(latest_checks(reviews))
    return out


def conflicting_decisions(folders: list[Path]) -> list[tuple[str, list[tuple[Path, Decision]]]]:
    """Students whose decision that counts differs between ``folders`` (e.g. two runs of one shard), on
    a flagged submission or on one of a TA's checks: (who, each folder's decision)."""
    per = {d: _counting(d) for d in folders}
    out = []
    for which in sorted({k for latest in per.values() for k in latest}):
        found = [(d, latest[which]) for d, latest in per.items() if which in latest]
        if len({x.decision for _, x in found}) > 1:
            out.append((_who(found[0][1]), found))
    return out


def merge_term(sources: list[Path], out: Path, policy: Path | None = None,
               prefer: Path | None = None) -> list[str]:
    """Union of adjustments and review decisions (the merged folder's own first), the times of all,
    one policy (``merged_policy``); the warnings (bilingual) for the instructor. TermError when a file
    is malformed.  Every decision the merge overrides is named with both verdicts and their times; with
    ``prefer``, the other folders' decisions for a student whose verdicts conflict are dropped (named)."""
    warnings: list[str] = []
    folders = [out, *[s for s in sources if s.resolve() != out.resolve()]]
    before = _counting(out)  # what the merged folder decided so far (flags and checks)
    dropped: set[tuple[Path, str, str]] = set()
    if prefer is not None:
        for who, found in conflicting_decisions(folders):
            for d, x in found:
                if d.resolve() != prefer.resolve():
                    dropped.add((d.resolve(), x.id.casefold(), x.check))
                    warnings.append(f"{who}: dropped the {_verdict(x)} in {d} (--prefer {prefer}) / "
                                    f"--prefer에 따라 {d}의 결정({x.decision}, {x.when})을 버렸습니다")
    adjustments: list[Adjustment] = []
    reviews: list[Decision] = []
    for d in folders:
        adjustments = union(adjustments, read_adjustments(d / ADJUSTMENTS))
        reviews = union(reviews, [x for x in read_reviews(d / REVIEWS)
                                  if (d.resolve(), x.id.casefold(), x.check) not in dropped])
    after: dict[tuple[str, str], Decision] = {(k, ""): d for k, d in latest_decisions(reviews).items()}
    after.update(latest_checks(reviews))
    for key, old in before.items():  # the merged folder's decision replaced by a newer one from a shard
        new = after.get(key)
        if new is not None and new != old and new.decision != old.decision:
            warnings.append(f"{_who(old)}: the {_verdict(new)} overrides the {_verdict(old)} / 새 결정"
                            f"({new.decision}, {new.when})이 이전 결정({old.decision}, {old.when})을 "
                            "대신합니다")
    pairs: list[PairDecision] = []  # similarity outcomes: the instructor's record, kept like the rest
    for d in folders:
        pairs = union(pairs, read_pair_reviews(d / PAIR_REVIEWS))
    if adjustments:
        write_adjustments(out / ADJUSTMENTS, adjustments)
    if reviews:
        write_reviews(out / REVIEWS, reviews)
    if pairs:
        write_pair_reviews(out / PAIR_REVIEWS, pairs)
    times: dict = {}
    for d in folders:
        if (d / TIMES).exists():
            for sid, when in read_times_csv(d / TIMES).items():
                if sid in times and times[sid] != when:
                    warnings.append(f"{sid}: two submission times ({times[sid].isoformat()} kept, "
                                    f"{when.isoformat()} in {d}) / 제출 시각이 둘입니다")
                times.setdefault(sid, when)
    if times:
        write_times(out / TIMES, times, "merge")
    first = merged_policy(sources, out, policy)
    if first is not None and first.resolve() != (out / POLICY).resolve():
        shutil.copyfile(first, out / POLICY)
    return warnings


__all__ = ["TermError", "conflicting_decisions", "merge_term", "merged_policy"]
