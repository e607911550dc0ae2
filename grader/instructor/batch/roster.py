"""Who a submission belongs to (the roster CSV) and which submissions a shard grades.

The roster's columns are found by header, in any order and in either language; where the headers
leave the submission column open (``id,name`` or no header), the column whose values match the
submissions' folder names is it.  Every batch says how many submissions the roster matched
(``Roster.matched``); ``grade batch`` stops when under half the roster has a submission.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from grader.instructor.batch.discovery import Entry

ROSTER = "roster.csv"  # kept in the batch folder, as the policy is: a rerun without --roster uses it

# Headers, casefolded, spaces and dashes as underscores. The submission column: what the folders are named.
SUBMISSION_HEADERS = ("submission", "submission_name", "file", "folder", "login", "github", "username",
                      "제출", "제출물", "제출_파일", "파일", "폴더", "깃허브", "아이디")
# The id column: what the gradebook and the LMS know the student by.
ID_HEADERS = ("id", "student_id", "sid", "student_number", "student_no", "student", "sis_user_id", "email",
              "학번", "학생_번호", "학생번호", "이메일")
# A person's name: the submission column only where nothing better is named and its values are folder names.
NAME_HEADERS = ("name", "full_name", "student_name", "이름", "성명", "학생_이름")


class RosterError(ValueError):
    """A roster that cannot be read as one (bilingual: ``en`` and ``ko``)."""

    def __init__(self, en: str, ko: str) -> None:
        super().__init__(f"{en} / {ko}")


@dataclass
class Roster:
    """Submission name -> student id, and how the file was read (said to the instructor on every run)."""

    ids: dict[str, str] = field(default_factory=dict)
    submission_column: str = ""
    id_column: str = ""

    def matched(self, names: set[str]) -> int:
        """How many of the roster's students have a submission among ``names``."""
        return len(set(self.ids) & names)

    def said(self, names: set[str]) -> str:
        """The line a batch prints: the columns read and the count matched."""
        n, total = self.matched(names), len(self.ids)
        return (f"roster: {n} of {total} students matched a submission (of {len(names)} submissions; "
                f"submission column {self.submission_column!r}, id column {self.id_column!r}) / 명단 "
                f"{total}명 중 {n}명의 제출물을 찾았습니다(제출물 {len(names)}개)")


def _key(header: str) -> str:
    return "_".join(header.strip().casefold().replace("-", " ").split())


def _value(cell: str) -> str:
    return cell.strip().removesuffix(".zip").removesuffix(".ipynb")


def _first(head: list[str], wanted: tuple[str, ...], skip: set[int]) -> int | None:
    for name in wanted:  # by the order of preference, not the file's order of columns
        for i, h in enumerate(head):
            if h == name and i not in skip:
                return i
    return None


def _best_by_content(rows: list[list[str]], columns: list[int], folders: set[str]) -> int | None:
    """The column whose values name the most submission folders (case-insensitively); None if none does."""
    folded = {f.casefold() for f in folders}
    hits = {i: sum(1 for r in rows if i < len(r) and _value(r[i]).casefold() in folded) for i in columns}
    best = max(hits, key=lambda i: (hits[i], -i), default=None)
    return best if best is not None and hits[best] > 0 else None


def read_roster(path: Path, folders: set[str] | None = None, column: str | None = None) -> Roster:
    """The roster of ``path``: a CSV whose header names its columns in any order.

    The submission column is ``column`` when given (``--roster-column``), else the first header of
    SUBMISSION_HEADERS; failing that, the column (a NAME_HEADERS one or any other) whose values match
    the most of ``folders``.  The id column is the first header of ID_HEADERS left over.  Without a
    recognised header, the submission column is found by content the same way (the first column when
    nothing matches), the id column is the other of the first two, and the first row is data.  A
    name's ``.zip``/``.ipynb`` suffix is dropped; an empty id is the name."""
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = [r for r in csv.reader(fh) if any(c.strip() for c in r)]
    if not rows:
        return Roster()
    raw = [c.strip() for c in rows[0]]
    head = [_key(c) for c in raw]
    folders = folders or set()
    known = set(SUBMISSION_HEADERS) | set(ID_HEADERS) | set(NAME_HEADERS)
    has_header = column is not None or any(h in known for h in head)
    body = rows[1:] if has_header else rows
    width = max(len(r) for r in rows)
    if column is not None:
        if _key(column) not in head:
            raise RosterError(f"--roster-column {column!r} is not a column of {path} (its columns: "
                              f"{', '.join(raw)})",
                              f"--roster-column {column!r}은(는) {path}의 열이 아닙니다({', '.join(raw)})")
        sub = head.index(_key(column))
    elif has_header:
        found = _first(head, SUBMISSION_HEADERS, set())
        if found is None:  # `id,name` or `name,email`: the column whose values are the folders' names
            id_like = {i for i, h in enumerate(head) if h in ID_HEADERS}
            found = _best_by_content(body, [i for i in range(width) if i not in id_like], folders)
            if found is None:
                found = _best_by_content(body, list(range(width)), folders)
            if found is None:
                found = _first(head, NAME_HEADERS, set())
        if found is None:
            raise RosterError(f"{path}: no column names the submissions (headers: {', '.join(raw)}); name "
                              "it with --roster-column HEADER",
                              f"{path}: 제출물 이름 열을 찾지 못했습니다({', '.join(raw)}). "
                              "--roster-column HEADER로 알려 주세요")
        sub = found
    else:
        sub = _best_by_content(body, list(range(min(width, 2))), folders) or 0
    if has_header:
        idc = _first(head, ID_HEADERS, {sub})
        if idc is None:  # no id header: the first other column that is not a person's name, else none
            rest = [i for i in range(len(head)) if i != sub]
            idc = next((i for i in rest if head[i] not in NAME_HEADERS), None)
    else:
        idc = 1 if sub == 0 and width > 1 else (0 if sub != 0 else None)
    ids: dict[str, str] = {}
    for r in body:
        if len(r) > sub and r[sub].strip():
            key = _value(r[sub])
            ids[key] = (r[idc].strip() if idc is not None and idc < len(r) else "") or key

    def label(i: int | None) -> str:
        if i is None:
            return "-"
        return raw[i] if has_header and i < len(raw) else f"column {i + 1}"

    return Roster(ids, label(sub), label(idc))


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
