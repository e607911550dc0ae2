"""The term's files of several batch folders as one: what `grade merge` keeps of each shard's decisions."""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.instructor.term.errors import TermError
from grader.instructor.term.policy import read_policy
from grader.instructor.term.records import (
    ADJUSTMENTS,
    POLICY,
    REVIEWS,
    TIMES,
    read_adjustments,
    read_reviews,
    union,
    write_adjustments,
    write_reviews,
)
from grader.instructor.term.times import read_times_csv, write_times


def merge_term(sources: list[Path], out: Path) -> list[str]:
    """Union of adjustments and review decisions (the merged folder's own first), the times of all,
    one policy; the warnings (bilingual) for the instructor. TermError when a file is malformed."""
    warnings: list[str] = []
    folders = [out, *[s for s in sources if s.resolve() != out.resolve()]]
    adjustments, reviews = [], []
    for d in folders:
        adjustments = union(adjustments, read_adjustments(d / ADJUSTMENTS))
        reviews = union(reviews, read_reviews(d / REVIEWS))
    if adjustments:
        write_adjustments(out / ADJUSTMENTS, adjustments)
    if reviews:
        write_reviews(out / REVIEWS, reviews)
    times: dict = {}
    for d in folders:
        if (d / TIMES).exists():
            for key, when in read_times_csv(d / TIMES).items():
                if key in times and times[key] != when:
                    warnings.append(f"{key}: two submission times ({times[key].isoformat()} kept, "
                                    f"{when.isoformat()} in {d}) / 제출 시각이 둘입니다")
                times.setdefault(key, when)
    if times:
        write_times(out / TIMES, times, "merge")
    policies = [d / POLICY for d in folders if (d / POLICY).exists()]
    if policies:
        first = policies[0]
        for other in policies[1:]:
            if read_policy(other) != read_policy(first):
                warnings.append(f"{other} differs from {first}: kept {first} / 샤드의 지각 규정이 서로 달라 "
                                f"{first}를 사용합니다")
        if first.resolve() != (out / POLICY).resolve():
            shutil.copyfile(first, out / POLICY)
    return warnings


__all__ = ["TermError", "merge_term"]
