"""LeetCode problems a student may log, with the facts the review checks.

Only facts we are sure of: LeetCode difficulty, whether the problem carries the
Math topic tag, and the complexities of the standard accepted approaches. The
lesson's own list mixes difficulties (Happy Number is Easy), which is why the
review needs this table rather than trusting the student's label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .bigo import Complexity, compare, parse
from .vocab import CUE, Two, load

__all__ = ["Approach", "Problem", "ProblemMatch", "CATALOG", "find_problem", "get", "identify"]


@dataclass(frozen=True)
class Approach:
    """One accepted way to solve a problem, with its time and space."""

    name_en: str
    name_ko: str
    time: str
    space: tuple[str, ...]
    # How a log or code names this approach (identify()): ``names`` its family in the log's words,
    # ``variant`` the words that single it out within the family, ``code`` the key codecost.py gives the
    # practice function's code when it implements this approach (read from its syntax tree).
    names: str = ""
    variant: str = ""
    code: str = ""
    # other time bounds that are just as true of it: per-digit tables are O(log num) for the digits they
    # read and O(1) for num <= 3999
    time_also: tuple[str, ...] = ()

    @property
    def name(self) -> Two:
        return Two(self.name_en, self.name_ko)

    @property
    def time_bigo(self) -> Complexity:
        return _parsed(self.time)

    @property
    def space_bigo(self) -> tuple[Complexity, ...]:
        return tuple(map(_parsed, self.space))

    def bounds(self, name: str) -> tuple[Complexity, ...]:
        """Its 'time' bounds (the usual one first) or its 'space' bounds."""
        return tuple(map(_parsed, (self.time, *self.time_also) if name == "time" else self.space))


@dataclass(frozen=True)
class Problem:
    number: int
    title: str
    difficulty: str  # "Easy" | "Medium" | "Hard"
    tags: tuple[str, ...]
    approaches: tuple[Approach, ...]
    variables_en: str = ""  # what the Big-O variables mean
    variables_ko: str = ""
    function: str | None = None  # name in exercises/leetcode.py, when there is a practice
    aliases: tuple[str, ...] = field(default=())

    @property
    def described(self) -> tuple[Approach, ...]:
        """The approaches a log is held to when neither it nor the code names one: all but those known
        by the code alone (an O(n) loop for Pow is what a student's code may do, not a known answer)."""
        return tuple(a for a in self.approaches if a.names or not a.code)

    @property
    def is_math(self) -> bool:
        return "Math" in self.tags

    @property
    def label(self) -> str:
        return f"{self.number}. {self.title}"

    def best(self, name: str) -> tuple[Complexity, Approach]:
        """The lowest ``name`` ('time' or 'space') bound of any approach, and that approach; ties keep
        the catalog order (the usual one first)."""
        bounds = [(c, a) for a in self.approaches for c in a.bounds(name)[:1 if name == "time" else None]]
        best = bounds[0]
        for c, a in bounds[1:]:
            if compare(c, best[0]) == -1:
                best = (c, a)
        return best


@cache
def _parsed(text: str) -> Complexity:
    return parse(text)


def _approach(a: dict[str, Any], families: dict[str, str]) -> Approach:
    def cue(key: str) -> str:
        return families.get(a.get(key, ""), a.get(key, ""))
    return Approach(a["en"], a["ko"], a["time"], tuple(a["space"]), cue("names"), cue("variant"),
                    a.get("code", ""), tuple(a.get("time_also", ())))


def _load() -> tuple[Problem, ...]:
    """catalog.toml beside this module: the problems, each with its approaches."""
    data = load("catalog.toml")
    return tuple(
        Problem(p["number"], p["title"], p["difficulty"], tuple(p["tags"]),
                tuple(_approach(a, data["families"]) for a in p["approach"]), p.get("variables_en", ""),
                p.get("variables_ko", ""), p.get("function"), tuple(p.get("aliases", ())))
        for p in data["problem"])


def _key(text: str) -> str:
    """Letters and digits only, lowercased: 'Pow(x, n)' -> 'powxn'."""
    return "".join(c for c in text.lower() if c.isalnum())


CATALOG: tuple[Problem, ...] = _load()
_BY_NUMBER = {p.number: p for p in CATALOG}
# every title and alias as a key, once: prose logs look up every sentence
_TITLES = tuple((_key(name), p) for p in CATALOG for name in (p.title, *p.aliases))


def identify(problem: Problem, text: str, source: str | None = None) -> tuple[Approach, ...]:
    """The catalog's approaches that the log's words (``text``: its final approach and complexities)
    and the practice function's ``source`` describe; () when neither names one. A family word ('fast
    exponentiation', 'sieve') names every member unless a member's own words single it out
    ('recursive', 'Eratosthenes'); where the log and the code both name some, those both name win, and
    where they name different ones, the code's: a claim is held to what the student's code does."""
    hits = tuple(a for a in problem.approaches if a.names and re.search(a.names, text, re.I))
    singled = tuple(a for a in hits if a.variant and re.search(a.variant, text, re.I))
    from_log = singled or hits
    from_code: tuple[Approach, ...] = ()
    if source and problem.function:
        from .codecost import implemented

        code = implemented(problem.function, source)
        from_code = tuple(a for a in problem.approaches if code is not None and a.code in code.keys)
    both = tuple(a for a in from_log if a in from_code)
    return both or from_code or from_log  # the code is what the claim is about: it decides where they differ


def get(number: int) -> Problem | None:
    return _BY_NUMBER.get(number)


@dataclass(frozen=True)
class ProblemMatch:
    problem: Problem | None
    number: int | None  # the number the student wrote, if any
    by: str  # "title", "number" or "none"

    @property
    def conflict(self) -> bool:
        """The student's number names another problem than their title."""
        return self.by == "title" and self.number is not None and self.problem is not None \
            and self.number != self.problem.number


def _find_number(text: str) -> int | None:
    for form in ("label", "dotted", "beon", "alone"):  # in this order: the first form found names it
        m = CUE[f"problem_number_{form}"].search(text)
        if m:
            return int(m.group(1))
    return None


def _find_title(text: str) -> Problem | None:
    """Longest title or alias contained in the text, so 'Super Pow' is not 'Pow'."""
    key = _key(text)
    # short aliases ('pow') must be the whole text, or they match inside words
    hits = [(len(k), p) for k, p in _TITLES if (k == key if len(k) < 5 else k in key)]
    return max(hits, key=lambda hit: hit[0])[1] if hits else None


def find_problem(text: str) -> ProblemMatch:
    """Which catalog problem a free-text 'problem' field names.

    Accepts '50. Pow(x, n)', 'Pow(x,n)', 'LeetCode 204', '#202 Happy Number',
    '문제 50번 Pow(x, n) 풀었음'. The title wins over the number when they disagree
    (numbers are the easier one to mistype); the mismatch is reported.
    """
    number = _find_number(text)
    titled = _find_title(text)
    if titled is not None:
        return ProblemMatch(titled, number, "title")
    if number is not None and number in _BY_NUMBER:
        return ProblemMatch(_BY_NUMBER[number], number, "number")
    return ProblemMatch(None, number, "none")
