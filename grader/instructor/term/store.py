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
    read_gradescope_export,
    read_times_csv,
    write_times,
)


def store_term_files(out: Path, policy: Path | None = None, times: Path | None = None,
                     submissions: Path | None = None) -> list[str]:
    """Copy ``policy`` and the submission times into ``out``; what was stored, for the instructor.

    The times come from ``times`` (``--submitted-at``), else from a Gradescope export's
    ``submission_metadata.yml`` in ``submissions``. Raises TermError (nothing written) on a bad file."""
    if policy is not None:
        read_policy(policy)  # checked before anything is written
    found = None
    if times is not None:
        found = (read_times_csv(times), f"--submitted-at {times.name}")
    elif submissions is not None and (submissions / GRADESCOPE_EXPORT).is_file():
        found = (read_gradescope_export(submissions / GRADESCOPE_EXPORT), "gradescope export")
    stored = []
    out.mkdir(parents=True, exist_ok=True)
    if policy is not None and policy.resolve() != (out / POLICY).resolve():
        shutil.copyfile(policy, out / POLICY)
        stored.append(f"policy: {out / POLICY}")
    if found is not None:
        write_times(out / TIMES, found[0], found[1])
        stored.append(f"submission times ({found[1]}): {out / TIMES}")
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


__all__ = ["GRADESCOPE_EXPORT", "TermError", "require_batch_folder", "store_term_files",
           "unless_batch_running"]
