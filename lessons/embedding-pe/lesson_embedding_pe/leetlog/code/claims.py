"""A log's complexity claim held to the student's code as it runs (costmeter.py): counts that outgrow the
claim contradict it, counts it fits meet it (unless they fit the other bound of the approach the log names
just as well), and counts that grow clearly slower are held to the catalog approaches whose bounds fit
them (the ones the code implements). Where nothing is measured, the claim is
held to the approach the log names in the catalog's words, else to every approach the catalog describes.
An amortized bound or a variable nothing defines is a TA's to judge; an unknown problem is not held against
the claim. The review (review.py) turns what is found here into findings and points."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bigo import Complexity, Growth, Term, compare
from ..catalog import Approach, Problem
from ..vocab import CUE, Two, message
from .costmeter import BETWEEN, FITS, OVER, UNDER, Measurement, judge, shown
from .coverage import parameters, size_name

__all__ = ["Claim", "Held", "Measure", "hold", "identify"]

Measure = Callable[[str], "Measurement | None"]  # practice function -> its runs, None: not run


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
    it was held: 'measured' (run and counted), 'catalog' (by the log's words); None: not held."""

    holds: bool = True
    said: list[tuple[str, str, str, dict[str, Any]]] = field(default_factory=list)
    held_by: str | None = None
    asked: bool = False  # left to a TA: an amortized bound, an undefined variable
    measured: tuple[str, dict[str, Any]] | None = None  # the practice function and its runs

    def say(self, severity: str, code: str, key: str = "", **values: Any) -> None:
        self.said.append((severity, code, key, values))

    def ask(self, code: str, key: str = "", **values: Any) -> Held:
        """Left to a TA: an unsure finding, and this held."""
        self.say("unsure", code, key, **values)
        self.asked = True
        return self


def hold(claim: Claim, p: Problem | None, source: str | None, measure: Measure | None) -> Held:
    """Hold ``claim`` on problem ``p`` to the practice function ``source`` (as the student wrote it), run
    and counted by ``measure``."""
    held, name = Held(), claim.part
    if CUE["amortized"].search(claim.value):  # not a worst case: right or not by what is averaged
        return held.ask("unsure_amortized")
    if p is None:
        return held
    # the practice function's size (Pow's n, Roman's num; n where the problem has no practice function)
    fn = p.function or ""
    size = size_name(fn, source)
    # the reference's variables, and the size
    known = {v for a in p.approaches for c in (*a.bounds("time"), *a.bounds("space")) for v in c.variables}
    known |= {"n", p.size, size}
    # a parameter that is not the size ('O(log x)', Pow's base): the work does not grow with it
    others = set(parameters(fn, source)) - known
    unknown = sorted(v for v in claim.bounds[0].variables if v not in known and not re.search(
        rf"(?<![\w(]){re.escape(v)}{CUE['defines'].pattern}", claim.entry_text, re.I))
    if unknown:
        # a phrase's letters ('O(bits of n)' read as b·i·t·s·o·f·n) are said as the phrase the student wrote
        words = re.findall(r"[^\W\d_]+", claim.written)
        said = ", ".join(unknown) if set(unknown) <= set(words) else "'" + re.sub(
            r"^\s*[OΘΩoθω]\s*\(|\)\s*$", "", claim.written).strip() + "'"
        return held.ask("unsure_undefined_variable", "unsure_not_size" if set(unknown) <= others else "",
                        said=said, variable=said, function=fn, variables=Two(
                            p.variables_en or "n is the input size", p.variables_ko or "n은 입력 크기"))
    # 'O(log num)': the code's own name for the size is the catalog's n
    # ('O(log x)' for Palindrome Number: LeetCode's own name for its size)
    bounds = [_digits(_renamed(_renamed(c, p.size), size), claim.entry_text) for c in claim.bounds]
    found = measure(fn) if measure is not None and fn else None
    if found is None:
        return _by_log(held, claim, bounds, p, "")
    held.measured = fn, found.to_dict()
    # only a claim in the size itself is compared with counts at growing n ('O(log x)' is about x)
    judged = judge(bounds[0], name, found) if bounds[0].variables <= {"n"} else None
    verdict = judged.verdict if judged is not None else None
    if found.hidden and verdict != OVER:
        # work hidden from the counter: counts that outgrow the claim refute it all the same (the hidden work
        # only adds to them); else neither they nor the log's words can hold it
        return held.ask("unsure_measured", "unsure_hidden", function=fn, why=Two(*found.hidden))
    if judged is None:
        note = message("not_measured", function=fn, why=Two(*found.why)) if found.why is not None else ""
        return _by_log(held, claim, bounds, p, note)
    numbers = Two(*shown(judged, found, name))
    named = identify(p, claim.approach_text)
    of_named = _holding(name, bounds, named)
    if verdict == UNDER or (verdict == BETWEEN and judged.grows_like == "1" and of_named):
        # counts that grow clearly slower; or bytes too flat to tell O(log n) from O(1) where the claim is the
        # bound of the approach the log names (a recursion log n deep, which the depth would show): the
        # approaches the counts fit say what the code does
        return _by_counts(held, claim, bounds, p, found, numbers)
    if verdict == FITS and not of_named and _fitting(named, name, found):
        # counts that fit the claim and the named approach's other bound alike (n and n log log n) do not
        # tell them apart: the approach the student's own words name does
        return _by_log(held, claim, bounds, p, "")
    held.held_by = "measured"
    if verdict == BETWEEN:
        held.say("unsure", "unsure_measured", function=fn, numbers=numbers)
    elif verdict != FITS:
        like = f"O({judged.grows_like})" if judged.grows_like else None
        grows = message("grows_like" if like else "grows", like=like, written=claim.written)
        held.say("warning", "complexity_inconsistent", "measured_contradicts", function=fn, numbers=numbers,
                 grows=grows)
    held.holds = verdict != OVER
    return held


def _by_counts(held: Held, claim: Claim, bounds: list[Complexity], p: Problem, found: Measurement,
               numbers: Two) -> Held:
    """A claim the counts grow clearly slower than: right if it is the bound of an approach whose bound
    fits the counts (what the code implements), else looser than the code; no approach fits: the log's."""
    name, other = claim.part, "space" if claim.part == "time" else "time"
    fitting = _fitting(p.approaches, name, found)
    if not fitting:
        return _by_log(held, claim, bounds, p, "")
    held.held_by = "measured"
    # the code's approach: one both parts' counts fit ('fast, iterative' and not 'loop'); none (a wheel's
    # trial division: steps near n at these sizes, as a sieve's, and bytes flat, as no sieve's): a TA's
    code = _fitting(fitting, other, found)
    if not code:
        return held.ask("unsure_measured", function=p.function, numbers=numbers)
    if _holding(name, bounds, code):
        return held
    # the claim is the bound of an approach the log names whose time the steps do not outgrow, the counts
    # fit another's: trial division by the primes up to √k, near n^1.15 at these sizes, fits a sieve's
    # bounds in both parts: a TA's
    named = [a for a in identify(p, claim.approach_text)
             if (steps := judge(a.bounds("time")[0], "time", found)) is None or steps.verdict != OVER]
    if _holding(name, bounds, named) and not any(a in code for a in named):
        return held.ask("unsure_measured", function=p.function, numbers=numbers)
    bounds_of = list(dict.fromkeys(str(a.bounds(name)[0]) for a in code))
    held.say("warning", "complexity_worse", "against_named", by=message("by_measured", numbers=numbers), p=p,
             approach=_names(code, _OR), bound=Two(_OR.en.join(bounds_of), _OR.ko.join(bounds_of)),
             whose=message("whose_code"), note="", also="")
    held.holds = False
    return held


def _fitting(approaches: Sequence[Approach], name: str, found: Measurement) -> list[Approach]:
    """Those of ``approaches`` whose ``name`` bound the counts fit, bytes over the top of the range (a fixed
    buffer, numpy's 64 KiB for a sum, bends the whole range's slope)."""
    def fits(c: Complexity) -> bool:
        judged = judge(c, name, found, strict=True) if c.variables <= {"n"} else None
        return judged is not None and judged.verdict == FITS
    return [a for a in approaches if any(fits(c) for c in a.bounds(name))]


def _by_log(held: Held, claim: Claim, bounds: list[Complexity], p: Problem, note: Two | str) -> Held:
    """Nothing measured, or counts that do not say which approach: the claim against the approach the log
    names, not the best of any (the sieve of Eratosthenes is not O(n) because the linear sieve is), else
    against every described one: one that holds for some of them only is a TA's, unless a family named
    alone ('a sieve') is its usual one."""
    name, text = claim.part, claim.approach_text
    held.held_by = "catalog"
    named = identify(p, text)
    pool = named or p.described
    holding = _holding(name, bounds, pool)
    if holding:
        # named by a family's words alone (no member's own words): its usual member
        family = bool(named) and not any(a.variant and re.search(a.variant, text, re.I) for a in named)
        if len(holding) < len(pool) and not (family and pool[0] in holding):
            held.say("unsure", "unsure_approach", yes=_names(holding),
                     no=_names([a for a in pool if a not in holding]))
        return held
    # the bound it contradicts: the named approach's, else the best known
    bound, approach = (named[0].bounds(name)[0], named[0]) if named else p.best(name)
    order = compare(bounds[0], bound)
    if order is None:  # other variables: with a named approach, the reference's to explain, not a fault
        if not named:
            held.say("info", "incomparable", best=bound, variables=Two(
                p.variables_en or "the variable is the input size", p.variables_ko or "변수는 입력 크기"))
        return held
    held.holds = False
    code = "complexity_worse" if order > 0 else "complexity_inconsistent"
    if not named:
        known = ", ".join(sorted({str(k) for a in p.described for k in a.bounds(name)}))
        held.say("warning", code, "complexity_worse" if order > 0 else "complexity_better", p=p,
                 approach=approach.name, known=known, best=bound, note=note, limit=message(f"limit_{name}"))
        return held
    other = next((a for a in _holding(name, bounds, p.approaches) if a not in named), None)
    held.say("warning", code, "against_named", by=message("by_log"), p=p, approach=approach.name, bound=bound,
             whose=message("whose_log"), note=note,
             also=message("also_other", written=claim.written, other=other.name) if other else "")
    return held


def identify(problem: Problem, text: str) -> tuple[Approach, ...]:
    """The approaches the log's words name: a family word names every member unless a member's own words
    single it out; () when it names none."""
    hits = tuple(a for a in problem.approaches if a.names and re.search(a.names, text, re.I))
    return tuple(a for a in hits if a.variant and re.search(a.variant, text, re.I)) or hits


def _holding(name: str, bounds: list[Complexity], approaches: Sequence[Approach]) -> list[Approach]:
    """Those of ``approaches`` with a ``name`` bound the claim gives (any of the field's Big-Os)."""
    return [a for a in approaches if any(compare(c, k) == 0 for c in bounds for k in a.bounds(name))]


_COMMA, _OR = Two(", ", ", "), Two(" or ", " 또는 ")


def _names(approaches: list[Approach], sep: Two = _COMMA) -> Two:
    return Two(sep.en.join(a.name.en for a in approaches), sep.ko.join(a.name.ko for a in approaches))


def _digits(c: Complexity, text: str) -> Complexity:
    """``c`` with each variable the log defines as the size's digit count ('O(d)', d is the number of
    digits; 'O(n)', n is the number of bits) read as log n: d^p (log d)^q is (log n)^p (log log n)^q."""
    counts = {v for t in c.terms for v, g in t.factors if not (g.exp or g.fact or g.loglog) and re.search(
        rf"(?<![\w(]){re.escape(v)}{CUE['defines'].pattern}(?:{CUE['digit_count'].pattern})", text, re.I)}
    if not counts:
        return c
    terms = tuple(Term.of({("n" if v in counts else v): Growth(log=g.poly, loglog=g.log) if v in counts else g
                           for v, g in t.factors}) for t in c.terms)
    return Complexity(terms, c.notation)


def _renamed(c: Complexity, old: str) -> Complexity:
    """``c`` with variable ``old`` called n (when n is not already one of its variables)."""
    if old not in c.variables or "n" in c.variables:
        return c
    terms = tuple(Term.of({("n" if v == old else v): g for v, g in t.factors}) for t in c.terms)
    return Complexity(terms, c.notation)
