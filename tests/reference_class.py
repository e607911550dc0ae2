"""One class of copies of the reference, graded once for the whole run: the term's and the decisions' tests.

tests/test_term.py and tests/test_decisions.py grade the same submissions with the same flags (the public pe
and tying tests): copies of solutions/ named alice, bob, carol, dave, erin, and mallory, flagged by the
tamper scan (it imports ``inspect``).  Rather than each grading its own, one `grade batch` grades the six
once for the whole run (tests/conftest.py ``built_once``, across xdist workers), with no policy, no times
and no roster: what the grader found, and nothing of the term.  A test's own class folder is then
``seeded`` with the graded folders of its students: copied, with the batch's secret, into a fresh output
folder, where the test's own real `grade batch` (its policy, its times, its shard) finds them already
graded (the same code, the same grading flags: the done-markers' hashes match) and renders the term on
them.  A test that changes a submission or forces a regrade grades it for real.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests import batch_cli
from tests.batch_cli import grade
from tests.conftest import ROOT, built_once

NAMES = ("alice", "bob", "carol", "dave", "erin", "mallory")
FLAGGED = "mallory"
FLAG = "\nimport inspect as _inspect  # flagged by the tamper scan: probe points withheld\n"
FILTER = ["--public-only", "-k", "test_pe or test_tying", "-j", "2", "--timeout", "120", "-q", "--lang", "en"]


def write_submissions(subs: Path, names: tuple[str, ...] = NAMES) -> Path:
    """The class's submission folders: copies of the reference, the flagged one importing ``inspect``."""
    for name in names:
        shutil.copytree(ROOT / "solutions", subs / name, ignore=shutil.ignore_patterns("__pycache__"))
    if FLAGGED in names:
        with open(subs / FLAGGED / "embedding.py", "a", encoding="utf-8") as fh:
            fh.write(FLAG)
    return subs


def _grade_class(folder: Path) -> None:
    subs = write_submissions(folder / "subs")
    grade("batch", str(subs), "--out", str(folder / "out"), *FILTER)


def graded(factory: pytest.TempPathFactory) -> Path:
    """The graded class: ``subs/`` and ``out/``, read only (built once for the whole run)."""
    return built_once(factory, "reference-class", _grade_class)


def seed(factory: pytest.TempPathFactory, out: Path, names: tuple[str, ...] | list[str]) -> Path:
    """``out`` holding the graded folders of ``names`` (tests/batch_cli.py ``seed``): the next `grade batch`
    there renders the term on them without grading."""
    return batch_cli.seed(graded(factory) / "out", out, names)
