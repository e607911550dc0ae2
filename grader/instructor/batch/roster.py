"""Who a submission belongs to (the roster CSV) and which submissions a shard grades."""

from __future__ import annotations

import argparse
import csv
import hashlib
from pathlib import Path

from grader.instructor.batch.discovery import Entry


def read_roster(path: Path) -> dict[str, str]:
    """Submission name -> student id from a CSV with a header.

    The name column is one of submission/name/file/folder/login; the id column
    one of id/student_id/sid/email. Without a recognised header the first two
    columns are used.
    """
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = [r for r in csv.reader(fh) if any(c.strip() for c in r)]
    if not rows:
        return {}
    head = [c.strip().lower() for c in rows[0]]
    names = [i for i, c in enumerate(head)
             if c in ("submission", "name", "file", "folder", "login", "github")]
    ids = [i for i, c in enumerate(head) if c in ("id", "student_id", "sid", "student", "email")]
    if names and ids:
        ni, ii, body = names[0], ids[0], rows[1:]
    else:
        ni, ii, body = 0, 1, rows
    roster = {}
    for r in body:
        if len(r) > max(ni, ii) and r[ni].strip():
            key = r[ni].strip().removesuffix(".zip").removesuffix(".ipynb")
            roster[key] = r[ii].strip() or key
    return roster


def shard_of(entries: list[Entry], k: int, n: int) -> list[Entry]:
    """The k-th (1-based) of n slices: sort by a hash of the name, deal round-robin.

    Deterministic from the names alone (every shard computes the same split)
    and balanced to within one submission.
    """
    ordered = sorted(entries, key=lambda e: (hashlib.sha256(e.name.encode()).hexdigest(), e.name))
    return [e for i, e in enumerate(ordered) if i % n == k - 1]


def parse_shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard expects K/N such as 2/8, got {text!r}") from None
    if not (n >= 1 and 1 <= k <= n):
        raise argparse.ArgumentTypeError(f"--shard {text}: K must be between 1 and N")
    return k, n
