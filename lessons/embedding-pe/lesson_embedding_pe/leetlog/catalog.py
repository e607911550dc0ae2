"""LeetCode problems a student may log (catalog.toml): difficulty, Math tag, the accepted approaches'
complexities. The lesson's list mixes levels (Happy Number is Easy): the review trusts this, not the log."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, reduce
from typing import Any

from .bigo import Complexity, compare, parse
from .vocab import CUE, Two, load

__all__ = ["Approach", "Problem", "ProblemMatch", "CATALOG", "find_problem", "get"]


@dataclass(frozen=True)
class Approach:
    """One accepted way to solve a problem, with its time and space."""

    name_en: str
    name_ko: str
    time: str
    space: tuple[str, ...]
    # how a log names it, and whether practice code may implement it (code/claims.py): catalog.toml's head
    names: str = ""
    variant: str = ""
    code: str = ""
    # other time bounds just as true of it: per-digit tables are O(log num), and O(1) for num <= 3999
    time_also: tuple[str, ...] = ()

    @property
    def name(self) -> Two:
        return Two(self.name_en, self.name_ko)

    @property
    def space_bigo(self) -> tuple[Complexity, ...]:
        return self.bounds("space")

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
    aliases: tuple[str, ...] = ()
    lesson: str = ""  # its place in the lesson's own list: "warm_up", "example", or not there
    size: str = "n"  # LeetCode's own name for the input n measures ('O(log x)' for Palindrome Number)

    @property
    def described(self) -> tuple[Approach, ...]:
        """Those a log is held to when neither it nor the code names one: not those known by the code
        alone (an O(n) loop for Pow is what a student's code may do, not a known answer)."""
        return tuple(a for a in self.approaches if a.names or not a.code)

    @property
    def is_math(self) -> bool:
        return "Math" in self.tags

    @property
    def label(self) -> str:
        return f"{self.number}. {self.title}"

    def best(self, name: str) -> tuple[Complexity, Approach]:
        """The lowest ``name`` bound of any approach, and that approach; ties (and incomparable bounds)
        keep the catalog order, the usual one first."""
        bounds = [(c, a) for a in self.approaches for c in a.bounds(name)[:1 if name == "time" else None]]
        return reduce(lambda lowest, b: b if compare(b[0], lowest[0]) == -1 else lowest, bounds)


_parsed = cache(parse)  # each bound is parsed once


def _load() -> tuple[Problem, ...]:
    """catalog.toml, lists as tuples; an approach's words may name a shared [families] entry."""
    data = load("catalog.toml")

    def facts(d: dict[str, Any]) -> dict[str, Any]:
        out = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items() if k != "approach"}
        return out | {k: data["families"].get(out[k], out[k]) for k in ("names", "variant") if k in out}
    return tuple(Problem(**facts(p), approaches=tuple(Approach(**facts(a)) for a in p["approach"]))
                 for p in data["problem"])


def _key(text: str) -> str:
    """Letters and digits only, lowercased: 'Pow(x, n)' -> 'powxn'."""
    return "".join(c for c in text.lower() if c.isalnum())


CATALOG: tuple[Problem, ...] = _load()
_BY_NUMBER = {p.number: p for p in CATALOG}
get = _BY_NUMBER.get  # a problem by its LeetCode number, or None
# every title and alias as a key, once: prose logs look up every sentence
_TITLES = tuple((_key(name), p) for p in CATALOG for name in (p.title, *p.aliases))


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


def find_problem(text: str) -> ProblemMatch:
    """The problem a field names ('50. Pow(x, n)', '문제 50번'): its longest title or alias ('Super Pow' is
    not 'Pow'; a short alias only alone), else its number; a title wins over a number (easier to mistype)."""
    found = (CUE[f"problem_number_{form}"].search(text) for form in ("label", "dotted", "beon", "alone"))
    number = next((int(m.group(1)) for m in found if m), None)  # in this order: the first form found
    key = _key(text)
    titled = max(((len(k), p) for k, p in _TITLES if (k == key if len(k) < 5 else k in key)),
                 key=lambda hit: hit[0], default=(0, None))[1]
    if titled is not None:
        return ProblemMatch(titled, number, "title")
    named = _BY_NUMBER.get(number) if number is not None else None
    return ProblemMatch(named, number, "number" if named is not None else "none")
