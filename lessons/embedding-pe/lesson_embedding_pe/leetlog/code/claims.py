"""A log's complexity claim held to the student's code: run and counted where it can be (costmeter.py),
else the approach the log names and the code implements (codecost.py), else every approach the catalog
knows. An amortized bound or a variable nothing defines is a TA's to judge; an unknown problem is not
held against the claim. The review (review.py) turns what is found here into findings and points."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..bigo import Complexity, Term, compare
from ..catalog import Approach, Problem
from ..vocab import CUE, Two, message
from . import costmeter
from .codecost import implemented, parameters, size_name

__all__ = ["Claim", "Held", "Measure", "hold", "identify", "readings"]

Measure = Callable[[str], "costmeter.Measurement | None"]  # practice function -> its runs, None: not run


@dataclass(frozen=True)
class Claim:
    """A time or space claim as the log makes it."""

    part: str  # "time" | "space"
    bounds: list[Complexity]  # each Big-O the field gives, the claim first
    written: str  # the claim as the student wrote it
    value: str  # the field's whole text
    entry_text: str  # everything under the problem, where a variable may be defined ('b is the bits')
    approach_text: str  # the final approach and both complexities, where an approach is named


@dataclass
class Held:
    """Whether a claim earns its point, the findings on it (severity, code, message key, values) and how
    it was held: 'measured', 'code' (read from it), 'catalog' (no code); None: not held."""

    holds: bool = True
    said: list[tuple[str, str, str, dict[str, Any]]] = field(default_factory=list)
    held_by: str | None = None
    asked: bool = False  # left to a TA: an amortized bound, an undefined variable
    measured: tuple[str, dict[str, Any]] | None = None  # the practice function and its runs

    def say(self, severity: str, code: str, key: str = "", **values: Any) -> None:
        self.said.append((severity, code, key, values))


def hold(claim: Claim, p: Problem | None, sources: dict[str, str], source: str | None,
         measure: Measure | None) -> Held:
    """Hold ``claim`` on problem ``p`` to the practice function ``source`` (as the student wrote it)."""
    held, name = Held(), claim.part
    if CUE["amortized"].search(claim.value):  # not a worst case: right or not by what is averaged
        held.say("unsure", "unsure_amortized")
        held.asked = True
        return held
    if p is None:
        return held
    # the reference's variables, and the practice function's parameters (Pow's x and n, Roman's num)
    known = {v for a in p.approaches for c in (*a.bounds("time"), *a.bounds("space")) for v in c.variables}
    known |= {"n", *(parameters(p.function, source) if p.function else ())}
    undefined = ", ".join(sorted(v for v in claim.bounds[0].variables if v not in known and not re.search(
        rf"(?<![\w(]){re.escape(v)}{CUE['defines'].pattern}", claim.entry_text, re.I)))
    if undefined:
        held.say("unsure", "unsure_undefined_variable",
                 said=Two(undefined, undefined + ("가" if undefined[-1].isalpha() else "이")),
                 variables=Two(p.variables_en or "n is the input size", p.variables_ko or "n은 입력 크기"))
        held.asked = True
        return held
    fn = p.function or ""
    # 'O(log num)': the code's own name for the size is the catalog's n
    bounds = [_renamed(c, size_name(fn, source)) for c in claim.bounds] if fn else claim.bounds
    found = measure(fn) if measure is not None and fn else None
    if found is not None:
        held.measured = fn, found.to_dict()
    # only a claim in the size itself is compared with counts at growing n ('O(log x)' is about x)
    judged = costmeter.judge(bounds[0], name, found) if found is not None and bounds[0].variables <= {"n"} \
        else None
    if judged is None or found is None or judged.verdict == costmeter.UNDER:
        held.held_by = "code" if source else "catalog"
        # a claim it contradicts says the reading was the code's, and why nothing was measured
        why = found.why if found is not None else None
        note = message("not_measured", function=fn, why=Two(*why)) if why is not None else ""
        held.holds = _named_approach(held, claim, bounds, p, sources, source, note)
        return held
    held.held_by = "measured"
    numbers = Two(*costmeter.shown(judged, found))
    if judged.verdict == costmeter.BETWEEN:
        held.say("unsure", "unsure_measured", function=fn, numbers=numbers)
    elif judged.verdict != costmeter.FITS:
        like = f"O({judged.grows_like})" if judged.grows_like else None
        grows = message("grows_like" if like else "grows", like=like, written=claim.written)
        held.say("warning", "complexity_inconsistent", "measured_contradicts", function=fn, numbers=numbers,
                 grows=grows)
    held.holds = judged.verdict != costmeter.OVER
    return held


def _named_approach(held: Held, claim: Claim, bounds: list[Complexity], p: Problem, sources: dict[str, str],
                    source: str | None, note: Two | str) -> bool:
    """The claim against the approach the log names and the code implements, not the best of any (the
    sieve of Eratosthenes is not O(n) because the linear sieve is), else against every known one: one
    that holds for some of them only is a TA's, unless a family named alone ('a sieve') is its usual one."""
    name, text = claim.part, claim.approach_text
    in_log, in_code, named = readings(p, text, source)
    pool = named or p.described
    holding = [a for a in pool if _holds(name, bounds, a)]
    if holding:
        # named by a family's words alone (no member's own words, no code that says which): its usual member
        family = bool(named) and not in_code and not any(a.variant and re.search(a.variant, text, re.I)
                                                          for a in named)
        if len(holding) < len(pool) and not (family and pool[0] in holding):
            held.say("unsure", "unsure_approach", yes=_names(holding),
                     no=_names([a for a in pool if a not in holding]))
        return True
    # the bound it contradicts: the named approach's, else the best known
    bound, approach = (named[0].bounds(name)[0], named[0]) if named else p.best(name)
    order = compare(bounds[0], bound)
    if order is None and not named:
        held.say("info", "incomparable", best=bound, variables=Two(
            p.variables_en or "the variable is the input size", p.variables_ko or "변수는 입력 크기"))
    if order is None:  # other variables: with a named approach, the reference's to explain, not a fault
        return True
    code = "complexity_worse" if order > 0 else "complexity_inconsistent"
    if not named:
        known = ", ".join(sorted({str(k) for a in p.described for k in a.bounds(name)}))
        held.say("warning", code, "complexity_worse" if order > 0 else "complexity_better", p=p,
                 approach=approach.name, known=known, best=bound, note=note)
        return False
    other = next((a for a in p.approaches if a not in named and _holds(name, bounds, a)), None)
    by = message("by_log_code" if approach in in_code else "by_log")
    found = implemented(p.function or "", sources.get("leetcode")) if approach in in_code else None
    shown = found.keys.get(approach.code) if found is not None else None
    if shown is not None:  # the line of the student's leetcode.py that shows the approach
        by = message("by_log_code_at" if approach in in_log else "by_code_at",
                     where=message("code_at", line=shown[0], text=shown[1]))
    held.say("warning", code, "against_named", by=by, p=p, approach=approach.name, bound=bound,
             whose=message("whose_code" if shown is not None else "whose_log"), note=note,
             also=message("also_other", written=claim.written, other=other.name) if other else "")
    return False


def readings(problem: Problem, text: str, source: str | None = None) -> tuple[tuple[Approach, ...], ...]:
    """The approaches the log's words name (a family word names every member unless a member's own words
    single it out), those the practice ``source`` implements, and those a claim is held to: those both
    name, else the code's (what the student's code does), else the log's."""
    hits = tuple(a for a in problem.approaches if a.names and re.search(a.names, text, re.I))
    in_log = tuple(a for a in hits if a.variant and re.search(a.variant, text, re.I)) or hits
    code = implemented(problem.function, source) if source and problem.function else None
    in_code = tuple(a for a in problem.approaches if code is not None and a.code in code.keys)
    return in_log, in_code, tuple(a for a in in_log if a in in_code) or in_code or in_log


def identify(problem: Problem, text: str, source: str | None = None) -> tuple[Approach, ...]:
    """The approaches a claim is held to (``readings``); () when neither log nor code names one."""
    return readings(problem, text, source)[2]


def _holds(name: str, bounds: list[Complexity], a: Approach) -> bool:
    return any(compare(c, k) == 0 for c in bounds for k in a.bounds(name))


def _names(approaches: list[Approach]) -> Two:
    return Two(", ".join(a.name.en for a in approaches), ", ".join(a.name.ko for a in approaches))


def _renamed(c: Complexity, old: str, new: str = "n") -> Complexity:
    """``c`` with variable ``old`` called ``new`` (when ``new`` is not already one of its variables)."""
    if old == new or old not in c.variables or new in c.variables:
        return c
    terms = tuple(Term.of({(new if v == old else v): g for v, g in t.factors}) for t in c.terms)
    return Complexity(terms, c.notation)
