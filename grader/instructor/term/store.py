"""Putting the term's inputs into the batch folder: checked whole first, then written (or nothing is)."""

from __future__ import annotations

import contextlib
import fcntl
import shutil
from collections.abc import Iterator
from pathlib import Path

from grader.instructor.term.errors import TermError
from grader.instructor.term.model import read_term
from grader.instructor.term.policy import read_policy
from grader.instructor.term.records import POLICY, TIMES
from grader.instructor.term.times import (
    GRADESCOPE_EXPORT,
    merge_times,
    read_gradescope_export,
    read_times_csv,
)


def unknown_ids(named: list[str], known: set[str]) -> list[str]:
    """The ids of ``named`` that are no id or submission name of the class (case-insensitive)."""
    folded = {k.strip().casefold() for k in known}
    return sorted({n for n in named if n.strip().casefold() not in folded})


def _refuse_unknown(what: str, unknown: list[str]) -> None:
    if unknown:
        shown = ", ".join(unknown[:10]) + (" …" if len(unknown) > 10 else "")
        raise TermError(f"{what} names {len(unknown)} id(s) not in the class: {shown} (a misspelling? "
                        "nothing was changed; --allow-unknown-ids stores them anyway)",
                        f"{what}에 이 반에 없는 id {len(unknown)}개가 있습니다: {shown} (오타인지 "
                        "확인하세요. 아무것도 바꾸지 않았습니다. --allow-unknown-ids로 그대로 저장할 수 "
                        "있습니다)")


def store_term_files(out: Path, policy: Path | None = None, times: Path | None = None,
                     submissions: Path | None = None, *, known: set[str] | None = None,
                     aliases: dict[str, str] | None = None, replace_times: bool = False) -> list[str]:
    """Copy ``policy`` and merge the submission times into ``out``; what was stored, for the instructor.

    The times come from ``times`` (``--submitted-at``), else from a Gradescope export's
    ``submission_metadata.yml`` in ``submissions``; they are merged into the stored ones (the ids they
    name updated, the others kept), or replace them all with ``replace_times``.  With ``known`` (the
    class's ids and submission names), a times file or an ``[extensions]`` entry naming anyone else is
    refused.  ``aliases`` (folded submission name or id -> id) make a student's names one key, so a
    correction by submission name replaces the time stored under the id (and says so).  Raises TermError
    (nothing written) on a bad file."""
    checked = read_policy(policy) if policy is not None else None  # checked before anything is written
    found = None
    if times is not None:
        found = (read_times_csv(times), f"--submitted-at {times.name}")
    elif submissions is not None and (submissions / GRADESCOPE_EXPORT).is_file():
        found = (read_gradescope_export(submissions / GRADESCOPE_EXPORT), "gradescope export")
    if known is not None:
        if checked is not None:
            _refuse_unknown(f"{policy} [extensions]", unknown_ids(list(checked.extensions), known))
        if times is not None and found is not None:  # a Gradescope export also names emails: not checked
            _refuse_unknown(str(times), unknown_ids(list(found[0]), known))
    stored = []
    out.mkdir(parents=True, exist_ok=True)
    if policy is not None and policy.resolve() != (out / POLICY).resolve():
        shutil.copyfile(policy, out / POLICY)
        stored.append(f"policy: {out / POLICY}")
    if found is not None:
        counted, replaced = merge_times(out / TIMES, found[0], found[1], replace=replace_times,
                                              aliases=aliases)
        how = "replaced all" if replace_times else counted.words()
        stored.append(f"submission times ({found[1]}; {how}): {out / TIMES} / 제출 시각 저장")
        stored += [f"  {r.line()}" for r in replaced]
    read_term(out)  # a hand-edited term file that is broken stops a batch before it grades, not after
    return stored


def require_batch_folder(out: Path) -> None:
    if not out.is_dir() or not ((out / "batch-manifest.json").exists() or any(out.glob("*/batch.json"))):
        raise TermError(f"{out} is not a folder written by `grade batch` or `grade merge`",
                        f"{out}은(는) `grade batch`나 `grade merge`가 쓴 폴더가 아닙니다")


@contextlib.contextmanager
def unless_batch_running(out: Path) -> Iterator[bool]:
    """True (holding the batch's lock) when no batch is writing ``out``; False when one is: it renders
    the class itself when it ends, with whatever the term files then say."""
    with open(out / ".lock", "a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


__all__ = ["GRADESCOPE_EXPORT", "TermError", "require_batch_folder", "store_term_files", "unknown_ids",
           "unless_batch_running"]
