"""Review a LEETCODE_LOG.md: findings a TA would write, and points.

Scoring (6.0 in all, 3.0 per problem, first two problems graded):
  * fields, 2.0: 0.25 for each of the 8 required fields present and well formed
    (difficulty readable; time/space with a one-line reason; 'solved' says alone
    or after a solution, and then carries a YYYY-MM-DD redo date);
  * complexity, 1.0: for time and for space, 0.25 when the Big-O parses and
    0.25 when it matches a known approach for the catalogued problem (worse or
    better than every known approach costs that 0.25; unknown problems or
    different variables are not held against the student);
  * task fit, up to -0.5: a problem that is not Medium, not Math-tagged, or the
    same as the other one loses 0.5 (never below 0 for the problem).
Prose quality is never scored. An empty or untouched log scores 0.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import costmeter
from .bigo import Complexity, ParseError, Term, compare, find_all_bigo, parse
from .catalog import Approach, Problem, find_problem, identify
from .codecost import implemented, parameters, size_name
from .costmeter import Measurement
from .coverage import function_source, says_why
from .mathtext import to_plain
from .parser import REQUIRED, Field, ProblemEntry, parse_log, unlabelled
from .prose import split_sentences
from .unsure import COPULA as _COPULA
from .unsure import SETTLED_BY_TA, UNSURE, is_unsure
from .values import classify_solved, parse_difficulty  # noqa: F401  (tests read them here)
from .vocab import CUE, HINTS, LABELS_EN, LABELS_KO, NEAREST, REASON_EXAMPLE, Two, message
from .vocab import short as _short

__all__ = [
    "MAX_POINTS", "BreakdownItem", "Finding", "LinkedFailure", "LogReview", "ProblemReview",
    "classify_solved", "parse_difficulty", "review_file", "review_log",
]

PROBLEMS = 2
PER_PROBLEM = 3.0
MAX_POINTS = PROBLEMS * PER_PROBLEM
FIELD_POINTS = 2.0 / len(REQUIRED)
BIGO_PARSE_POINTS = 0.25
BIGO_CONSISTENT_POINTS = 0.25
TASK_FIT_PENALTY = 0.5
LESSON_EXAMPLES = {50, 204, 202, 12}  # the lesson's candidate list, which includes an Easy one
WARM_UP = 202  # Happy Number: the practice's Easy warm-up (practice.py's RULE says why it never counts)


@dataclass
class Finding:
    severity: str  # "error" (missing/malformed), "warning", "info"
    code: str
    problem: int | None
    field: str | None
    line: int | None
    message_ko: str
    message_en: str


@dataclass
class LinkedFailure:
    """A failing practice edge case shown next to the log's 'what went wrong'."""

    problem: int
    function: str
    failure: str
    line: int | None
    went_wrong: str


@dataclass
class BreakdownItem:
    item: str
    points: float
    max_points: float


@dataclass
class ProblemReview:
    index: int
    line: int
    number: int | None = None
    title: str | None = None
    difficulty: str | None = None  # LeetCode's, when catalogued, else the student's
    math: bool | None = None
    time: str | None = None
    space: str | None = None
    solved: str | None = None
    points: float = 0.0
    max_points: float = PER_PROBLEM
    # how each complexity claim was held to the code: 'measured' (run and counted), 'code' (read from it,
    # nothing measured or the counts left it open), or absent (no practice code for it)
    held_by: dict[str, str] = field(default_factory=dict)


@dataclass
class LogReview:
    points: float
    max_points: float
    breakdown: list[BreakdownItem]
    findings: list[Finding]
    linked_failures: list[LinkedFailure] = field(default_factory=list)
    problems: list[ProblemReview] = field(default_factory=list)
    measured: dict[str, dict] = field(default_factory=dict)  # practice function -> its runs (costmeter)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def _parse_date(text: str) -> _dt.date | None:
    m = CUE["date"].search(text)
    try:
        return _dt.date(*map(int, re.findall(r"\d+", m.group())[:3])) if m else None
    except ValueError:
        return None


class _Ctx:
    """Collects one problem's findings and points."""

    def __init__(self, slot: int, entry: ProblemEntry, findings: list[Finding],
                 sources: dict[str, str] | None, measure: Measure | None) -> None:
        self.k = slot
        self.entry = entry
        self.findings = findings
        self.points = {"fields": 0.0, "time": 0.0, "space": 0.0}  # earned, per breakdown line
        self.penalty = 0.0
        self.measured: dict[str, dict] = {}
        self.quotes: dict[str, Quote] = {}  # time/space -> the Big-O read, as written, and its line
        self.sources = sources  # the practice code, to see which approach it implements
        self.measure = measure  # runs a practice function, counted, in the worker (costmeter)
        self.held_by: dict[str, str] = {}

    def say(self, severity: str, code: str, fld: str | None, at: int | None, key: str = "",
            **values: Any) -> None:
        """A finding with message ``key`` of vocab.toml (``code`` by default), {k} this problem's slot."""
        said = message(key or code, k=self.k, **values)
        self.findings.append(Finding(severity, code, self.k, fld, at, said.ko, said.en))

    def line_for(self, name: str) -> int:
        f = self.entry.fields.get(name)
        return f.line if f is not None else self.entry.line


def _nearest_sentence(entry: ProblemEntry, name: str) -> tuple[int, str] | None:
    """The student's sentence to quote when ``name`` was not found in their prose: a real sentence
    (not a heading, not a bold title), and never one holding the field's own words (quoting that
    one as "none of them gives it" would contradict the quote); None when no sentence is fit."""
    candidates: list[tuple[int, str]] = []
    for other in NEAREST.get(name, ()):
        f = entry.get(other)
        if f is not None and f.label == "sentence":
            if other in ("time", "space"):  # around its Big-O, which may sit late in a long sentence
                candidates.append((f.line, _excerpt(f.raw, f.value.split(" — ")[0])))
            else:
                candidates.append((f.line, f.value if f.value in f.raw else f.raw))
    rest = list(reversed(entry.sentences)) if name == "solved" else list(entry.sentences)
    for line, text in [*candidates, *rest]:
        plain = _plain_sentence(text)
        if plain and not _names_field(name, plain):
            return line, plain
    return None


# A complexity's own name: a sentence with it holds that claim (one with only the other's Big-O does not).
_OWN_NAME = {"time": CUE["own_time"], "space": CUE["own_space"]}


def _names_field(name: str, sentence: str) -> bool:
    """Whether ``sentence`` holds field ``name``'s own words (then it is no 'nearest' to quote)."""
    from .unsure import field_words

    own = _OWN_NAME.get(name)
    return bool(own.search(sentence)) if own is not None else field_words(name, sentence)


def _plain_sentence(text: str) -> str:
    """``text`` as a sentence to quote: Markdown's emphasis marks and a heading's ``#`` off; "" when it
    is no sentence (a heading, or a title alone: few words and no sentence's end)."""
    one = " ".join(text.split())
    if re.match(r"^#{1,6}\s", one):
        return ""
    plain = CUE["emphasis"].sub("", one).strip()
    words = len(plain.split())
    ends = bool(CUE["sentence_end"].search(plain))
    return plain if words >= 4 or (ends and words >= 2) else ""


def _excerpt(text: str, needle: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters around ``needle``."""
    one = " ".join(text.split())
    at = one.find(needle)
    if len(one) <= limit or at < 0:
        return one
    start = max(0, min(at - (limit - len(needle)) // 2, len(one) - limit))
    cut = one[start:start + limit]
    return ("…" if start else "") + cut + ("…" if start + limit < len(one) else "")


def _check_presence(ctx: _Ctx, name: str) -> Field | None:
    f = ctx.entry.fields.get(name)
    if f is not None and f.filled:
        return f
    template = f is not None and bool(CUE["placeholder_left"].search(f.raw or ""))  # the template's <...>
    line = ctx.line_for(name)
    near = _nearest_sentence(ctx.entry, name) if f is None else None
    quote: Two | str = ""
    if near is not None:
        line = near[0]
        said = near[1] if near[1].startswith("…") or near[1].endswith("…") else _short(near[1], 80)
        quote = message("nearest", line=line, said=said)
    where = "template" if template else "empty" if f is not None else "missing"
    ctx.say("error", "missing_field", name, line, label=_label(name, lower=False), quote=quote,
            where=message(f"where_{where}"), hint=Two(HINTS["en"][name], HINTS["ko"][name]))
    return None


def _review_problem_field(ctx: _Ctx) -> Problem | None:
    f = ctx.entry.get("problem")
    if f is None and ctx.entry.heading:  # '## 문제 1: 50. Pow(x, n)' names the problem already
        f = Field("problem", ctx.entry.heading, ctx.entry.line, "heading", ctx.entry.heading)
    f = f or _check_presence(ctx, "problem")
    text = f.value if f is not None else ""
    if f is not None:
        ctx.points["fields"] += FIELD_POINTS
    if not text:
        return None
    match = find_problem(text)
    if match.conflict and _section_number(text, match.number, ctx):
        match = find_problem(CUE["section_number"].sub("", text, count=1))  # '## 1. Pow(x, n)': its place
    line = f.line if f is not None else ctx.entry.line
    if match.problem is None and match.number is None:
        # 'Power 문제': no number, no title the catalog knows; which problem it is (its difficulty, its
        # complexities) is a TA's to read, not a pass by default
        ctx.say(UNSURE, "unsure_unknown_problem", "problem", line, text=text)
        return None
    if match.problem is None:
        ctx.say("info", "unknown_problem", "problem", line, text=text)
        return None
    p = match.problem
    if match.conflict:
        ctx.say("warning", "number_title_mismatch", "problem", line, number=match.number, p=p)
    return p


def _section_number(text: str, number: int | None, ctx: _Ctx) -> bool:
    """Whether the number leading ``text`` is the section's place in the log, not the problem's number:
    it is this problem's place (1 or 2), or another number follows it ('1. 50. Pow(x, n)')."""
    m = CUE["section_number"].match(text)
    if m is None or number is None or int(m.group(1)) != number:
        return False
    rest = text[m.end():]
    return number in (ctx.k, ctx.entry.index) or bool(re.match(r"\d{1,4}\b", rest))


def _review_difficulty(ctx: _Ctx, problem: Problem | None) -> str | None:
    f = _check_presence(ctx, "difficulty")
    stated = parse_difficulty(f.value) if f is not None else None
    if f is not None and stated is None:
        ctx.say("error", "bad_difficulty", "difficulty", f.line, value=f.value)
    elif f is not None:
        ctx.points["fields"] += FIELD_POINTS
    if f is not None and stated and problem is not None and stated != problem.difficulty:
        ctx.say("warning", "difficulty_mismatch", "difficulty", f.line, stated=stated, p=problem)
    return problem.difficulty if problem is not None else stated


def _review_task_fit(ctx: _Ctx, problem: Problem | None, difficulty: str | None) -> None:
    line = ctx.line_for("difficulty") if problem is None else ctx.line_for("problem")
    if difficulty is not None and difficulty != "Medium":
        name = Two(problem.label, problem.label) if problem is not None else Two(f"problem {ctx.k}",
                                                                                   f"문제 {ctx.k}")
        number = problem.number if problem is not None else None
        # the warm-up's reason is the rule's own words (practice.py's RULE), not another one
        why = "warm_up" if number == WARM_UP else "example" if number in LESSON_EXAMPLES else "task"
        ctx.say("warning", "not_medium", "difficulty", line, name=name, difficulty=difficulty,
                why=message(f"why_{why}"), penalty=TASK_FIT_PENALTY)
        ctx.penalty = TASK_FIT_PENALTY
    if problem is not None and not problem.is_math:
        ctx.say("warning", "not_math", "problem", line, p=problem, tags=", ".join(problem.tags),
                penalty=TASK_FIT_PENALTY)
        ctx.penalty = TASK_FIT_PENALTY


def _has_reason(value: str, spans: list[tuple[int, int]]) -> bool:
    rest = value
    for start, end in sorted(spans, reverse=True):
        rest = rest[:start] + " " + rest[end:]
    rest = to_plain(rest).text  # LaTeX markup ('$', '\\mathcal{') is not a reason
    rest = _COPULA.sub(" ", CUE["separators"].sub(" ", rest))  # 'O(1)이다.' states the claim, gives no reason
    return sum(c.isalpha() for c in rest) >= 2


def _review_complexity(ctx: _Ctx, name: str, problem: Problem | None) -> Complexity | None:
    """Presence+reason (field point), parse and consistency (0.25 each)."""
    f = _check_presence(ctx, name)
    if f is None:
        return None
    matches = find_all_bigo(f.value)
    if _has_reason(f.value, [(m.start, m.end) for m in matches]):
        ctx.points["fields"] += FIELD_POINTS
    elif f.label == "sentence":  # read from prose: quote the sentence that gave the Big-O
        ex = REASON_EXAMPLE[name]
        ctx.say("error", "no_reason", name, f.line, "no_reason_sentence", label=_label(name), line=f.line,
                excerpt=_excerpt(f.raw, f.value), value=f.value, example=Two(ex[0], ex[1]))
    else:
        ctx.say("error", "no_reason", name, f.line, label=_label(name),
                example=Two(REASON_EXAMPLE[name][0], REASON_EXAMPLE[name][2]))
    if not matches:
        ctx.say("error", "no_bigo", name, f.line, label=_label(name), value=f.value)
        return None
    parsed: list[Complexity] = []
    read: list[Quote] = []  # what each parsed Big-O was read from: messages quote that, never a rendering
    for m in matches:
        try:
            parsed.append(parse(m.written))  # as written: LaTeX reads as plain, positions stay the student's
            read.append(Quote(m.written, f.line_of(m.written)))
        except ParseError as e:
            if not parsed and m is matches[0]:
                ctx.say("error", "bad_bigo", name, f.line_of(m.written), label=_label(name),
                        written=m.written, error=e.message, char=e.position + 1)
    if not parsed:
        return None
    ctx.points[name] += BIGO_PARSE_POINTS
    ctx.quotes[name] = read[0]
    held = _held_back(ctx, name, problem, f, parsed[0], read[0])
    if held or problem is None or _held_to_code(ctx, name, problem, parsed, read[0]):
        ctx.points[name] += BIGO_CONSISTENT_POINTS
    return parsed[0]


Measure = Callable[[str], "Measurement | None"]  # practice function -> its measurement, None: not run


def _held_to_code(ctx: _Ctx, name: str, p: Problem, parsed: list[Complexity], quote: Quote) -> bool:
    """The claim held to the student's function as measured (costmeter: run at growing n in the worker,
    its steps, recursion depth and bytes counted); where nothing was measured, or the counts only show
    the claim is no tighter than needed, as read from the code and the catalog (``_consistent``)."""
    found = ctx.measure(p.function) if ctx.measure is not None and p.function else None
    if found is not None:
        ctx.measured[p.function or ""] = found.to_dict()
    claim = _renamed(parsed[0], size_name(p.function, function_source(ctx.sources, p.function))) \
        if p.function else parsed[0]
    # only a claim in the size itself is compared with counts at growing n ('O(log x)' is about x)
    judged = costmeter.judge(claim, name, found) if found is not None and claim.variables <= {"n"} else None
    if judged is None or judged.verdict == costmeter.UNDER:
        ctx.held_by[name] = "code" if function_source(ctx.sources, p.function or "") else "catalog"
        first = len(ctx.findings)
        held = _consistent(ctx, name, p, parsed, quote)
        if found is not None and found.why is not None and not held and len(ctx.findings) > first:
            f = ctx.findings[-1]  # say the reading was the code's, and why nothing was measured
            note = message("not_measured", function=p.function, why=Two(*found.why))
            f.message_en, f.message_ko = f.message_en + note.en, f.message_ko + note.ko
        return held
    ctx.held_by[name] = "measured"
    if judged.verdict == costmeter.FITS:
        return True
    numbers = Two(*costmeter.shown(judged, found))
    said: dict[str, Any] = {"label": _label(name), "quote": quote.two, "function": p.function or "",
                            "numbers": numbers}
    if judged.verdict == costmeter.BETWEEN:
        ctx.say(UNSURE, "unsure_measured", name, quote.line, **said)
        return True
    like = f"O({judged.grows_like})" if judged.grows_like else None
    grows = message("grows_like" if like else "grows", like=like, written=quote.written)
    ctx.say("warning", "complexity_inconsistent", name, quote.line, "measured_contradicts", grows=grows,
            **said)
    return False


def _held_back(ctx: _Ctx, name: str, problem: Problem | None, f: Field, claim: Complexity,
               quote: Quote) -> bool:
    """Whether the claim is a TA's to judge rather than the catalog's: an amortized or average bound, or
    a variable neither the problem, the code nor the log defines ('O(b)'). Unsure, no point taken."""
    if CUE["amortized"].search(f.value):  # not a worst case: right or not by what is averaged
        ctx.say(UNSURE, "unsure_amortized", name, quote.line, label=_label(name), quote=quote.two)
        return True
    if problem is None:
        return False
    undefined = sorted(v for v in claim.variables if v not in _known_variables(ctx, problem)
                       and not _defined(v, _entry_text(ctx.entry)))
    if not undefined:
        return False
    said = ", ".join(undefined)
    ctx.say(UNSURE, "unsure_undefined_variable", name, quote.line, label=_label(name), quote=quote.two,
            said=Two(said, said + ("가" if said[-1].isalpha() else "이")),
            variables=Two(problem.variables_en or "n is the input size",
                          problem.variables_ko or "n은 입력 크기"))
    return True


def _known_variables(ctx: _Ctx, problem: Problem) -> set[str]:
    """The variables a claim about ``problem`` may use unexplained: the reference's, and the practice
    function's parameters (Pow's x and n, Integer to Roman's num)."""
    known = {v for a in problem.approaches for c in (a.time_bigo, *a.space_bigo) for v in c.variables} | {"n"}
    if problem.function:
        source = function_source(ctx.sources, problem.function)
        known |= set(parameters(problem.function, source))
    return known


def _defined(variable: str, text: str) -> bool:
    """'b is the number of bits', 'b = 비트 수', 'where b denotes …', 'b는 자릿수': the log says what it
    is."""
    v = re.escape(variable)
    return bool(re.search(rf"(?<![\w(]){v}{CUE['defines'].pattern}", text, re.I))


@dataclass(frozen=True)
class Quote:
    """A Big-O exactly as the student wrote it, and the line it is on."""

    written: str
    line: int

    @property
    def two(self) -> Two:  # in Korean a particle after it follows the Big-O, not the line
        return Two(f'"{self.written}" (line {self.line})', f'{self.line}행의 "{self.written}"')


def _label(name: str, lower: bool = True) -> Two:
    """A field's template label in both languages ('time complexity' inside an English sentence)."""
    return Two(LABELS_EN[name].lower() if lower else LABELS_EN[name], LABELS_KO[name])


def _approach(a: Approach) -> Two:
    return Two(a.name_en, a.name_ko)


def _bounds(name: str, a: Approach) -> tuple[Complexity, ...]:
    return a.time_bounds if name == "time" else a.space_bigo


def _holds(name: str, parsed: list[Complexity], a: Approach) -> bool:
    return any(compare(c, k) == 0 for c in parsed for k in _bounds(name, a))


def _approach_text(entry: ProblemEntry) -> str:
    """What the log says of the method it submitted: its final approach and its complexities (a first
    idea is not the approach the complexities are about)."""
    return "\n".join(f.value for n, f in entry.fields.items() if n in ("final_approach", "time", "space"))


def _consistent(ctx: _Ctx, name: str, p: Problem, parsed: list[Complexity], quote: Quote) -> bool:
    """The claim against the approach the log names and the code implements (catalog.identify), not
    against the best bound of any approach: the sieve of Eratosthenes is not O(n) because the linear
    sieve is. A family named by its words alone ('a sieve') is its usual member (the catalog's first) when
    the claim holds for that one. When neither names one and the approaches disagree, or the claim holds
    only for a family's other member, the reader is not sure: a TA reads it."""
    source = function_source(ctx.sources, p.function) if p.function else None
    if p.function:  # 'O(log num)': the code's own name for the size is the catalog's n
        parsed = [_renamed(c, size_name(p.function, source)) for c in parsed]
    text = _approach_text(ctx.entry)
    named = identify(p, text, source)
    # named by a family's words alone: no member's own words, no code that says which
    family = bool(named) and not (source and identify(p, "", source)) and not any(
        a.variant and re.search(a.variant, text, re.I) for a in named)
    pool = named or p.described
    holding = [a for a in pool if _holds(name, parsed, a)]
    if named and not holding:
        in_code = bool(source) and named[0] in identify(p, "", source)
        return _against_named(ctx, name, p, named, parsed, quote, in_code)
    if family and pool[0] in holding:
        return True  # a family named by its usual member's words ('sieve', 'fast exponentiation'): that one
    if holding and len(holding) < len(pool):
        others = [a for a in pool if a not in holding]
        yes, no = (Two(*(", ".join(getattr(a, f"name_{lang}") for a in x) for lang in ("en", "ko")))
                   for x in (holding, others))
        ctx.say(UNSURE, "unsure_approach", name, quote.line, label=_label(name), quote=quote.two, yes=yes,
                no=no)
        return True
    if holding:
        return True
    best, best_approach = p.best(name)
    known = [k for a in p.described for k in _bounds(name, a)]
    mine = parsed[0]
    order = compare(mine, best)
    said: dict[str, Any] = {"label": _label(name), "quote": quote.two, "best": best}  # the span, its line
    if order is None:
        ctx.say("info", "incomparable", name, quote.line, variables=Two(
            p.variables_en or "the variable is the input size", p.variables_ko or "변수는 입력 크기"), **said)
        return True
    known_list = ", ".join(sorted({str(k) for k in known}))
    ctx.say("warning", "complexity_worse" if order > 0 else "complexity_inconsistent", name, quote.line,
            "complexity_worse" if order > 0 else "complexity_better", p=p, approach=_approach(best_approach),
            known=known_list, **said)
    return False


def _against_named(ctx: _Ctx, name: str, p: Problem, named: tuple[Approach, ...], parsed: list[Complexity],
                   quote: Quote, from_code: bool) -> bool:
    """A claim that does not hold for the approach the log names (and the code implements)."""
    approach = named[0]
    bound = _bounds(name, approach)[0]
    order = compare(parsed[0], bound)
    if order is None:
        return True  # other variables: the incomparable case is the reference's to explain, not a fault
    other = next((a for a in p.approaches if a not in named and _holds(name, parsed, a)), None)
    by = message("by_log_code" if from_code else "by_log")
    shown = _code_line(ctx, p, approach) if from_code else None
    if shown is not None:  # the line of the student's code that shows the approach
        in_log = approach in identify(p, _approach_text(ctx.entry))
        by = message("by_log_code_at" if in_log else "by_code_at", where=message("code_at", line=shown[0],
                                                                                    text=shown[1]))
    also = message("also_other", written=quote.written, other=_approach(other)) if other else ""
    ctx.say("warning", "complexity_worse" if order > 0 else "complexity_inconsistent", name, quote.line,
            "against_named", by=by, p=p, approach=_approach(approach), label=_label(name), bound=bound,
            quote=quote.two, also=also, whose=message("whose_code" if shown is not None else "whose_log"))
    return False


def _renamed(c: Complexity, old: str, new: str = "n") -> Complexity:
    """``c`` with variable ``old`` called ``new`` (when ``new`` is not already one of its variables)."""
    if old == new or old not in c.variables or new in c.variables:
        return c
    terms = tuple(Term.of({(new if v == old else v): g for v, g in t.factors}) for t in c.terms)
    return Complexity(terms, c.notation)


def _code_line(ctx: _Ctx, p: Problem, approach: Approach) -> tuple[int, str] | None:
    """(line, text) of the practice code that shows ``approach`` (codecost.py), in the student's file."""
    for key in ("leetcode", "notebook"):
        text = (ctx.sources or {}).get(key)
        found = implemented(p.function, text) if text and p.function else None
        if found is not None and approach.code in found.keys:
            return found.keys[approach.code] if key == "leetcode" else None
    return None


def _review_solved(ctx: _Ctx) -> str | None:
    f = _check_presence(ctx, "solved")
    if f is None:
        return None
    how = classify_solved(f.value)
    if how is None:
        ctx.say("error", "bad_solved", "solved", f.line, value=f.value)
        return None
    redo = ctx.entry.get("redo_date")
    # its redo date, or one written on the "solved" line itself ("after a solution, redo 2026-10-05")
    date = _parse_date(redo.value if redo is not None else f.value)
    if redo is not None and date is None:
        ctx.say("error" if how == "solution" else "warning", "bad_date", "redo_date", redo.line,
                value=redo.value)
    if how == "solution" and date is None and redo is None:
        ctx.say("error", "redo_date_missing", "redo_date", ctx.line_for("redo_date"))
    if how == "solution" and date is None:
        return how
    ctx.points["fields"] += FIELD_POINTS
    return how


def _check_consistency(ctx: _Ctx, time: Complexity | None, space: Complexity | None) -> None:
    held = {f.field for f in ctx.findings if f.problem == ctx.k and f.code in _HELD_BACK}
    if time is not None and space is not None and not held and compare(space, time) == 1:
        t, sp = ctx.quotes["time"], ctx.quotes["space"]
        ctx.say("warning", "space_exceeds_time", "space", sp.line, space=sp.two, time=t.two)
    for dup in ctx.entry.duplicates:
        first = ctx.entry.fields[dup.name]
        ctx.say("warning", "duplicate_field", dup.name, dup.line, label=_label(dup.name, lower=False),
                first=first.line, line=dup.line)


_HELD_BACK = ("unsure_amortized", "unsure_undefined_variable")


def _review_entry(
    slot: int, entry: ProblemEntry, findings: list[Finding], sources: dict[str, str] | None = None,
    measure: Measure | None = None,
) -> tuple[_Ctx, ProblemReview, Problem | None]:
    ctx = _Ctx(slot, entry, findings, sources, measure)
    problem = _review_problem_field(ctx)
    difficulty = _review_difficulty(ctx, problem)
    for name in ("first_idea", "final_approach", "what_went_wrong"):  # present is well formed
        ctx.points["fields"] += FIELD_POINTS if _check_presence(ctx, name) is not None else 0.0
    time = _review_complexity(ctx, "time", problem)
    space = _review_complexity(ctx, "space", problem)
    solved = _review_solved(ctx)
    _check_consistency(ctx, time, space)
    _review_task_fit(ctx, problem, difficulty)
    pr = ProblemReview(
        slot, entry.line,
        number=problem.number if problem else None, title=problem.title if problem else None,
        difficulty=difficulty, math=problem.is_math if problem else None,
        time=str(time) if time else None, space=str(space) if space else None, solved=solved,
        held_by=dict(ctx.held_by),
    )
    return ctx, pr, problem


def _zero(findings: list[Finding], code: str, ko: str, en: str, line: int | None = None) -> LogReview:
    findings.append(Finding("error", code, None, None, line, ko, en))
    breakdown = [BreakdownItem(f"problem {k}", 0.0, PER_PROBLEM) for k in range(1, PROBLEMS + 1)]
    return LogReview(0.0, MAX_POINTS, breakdown, findings)


def _said_zero(findings: list[Finding], code: str, line: int | None = None, **values: Any) -> LogReview:
    said = message(code, **values)
    return _zero(findings, code, said.ko, said.en, line)


def review_file(path: str | Path, practice: dict[str, str] | None = None) -> LogReview:
    """Review LEETCODE_LOG.md at ``path``; a missing file scores 0 with a finding."""
    p = Path(path)
    if not p.is_file():
        return _said_zero([], "missing_file", name=p.name)
    return review_log(p.read_text(encoding="utf-8", errors="replace"), practice)


def review_log(text: str | None, practice: dict[str, str] | None = None,
               unsolved: dict[str, str] | None = None, sources: dict[str, str] | None = None,
               measure: Measure | None = None) -> LogReview:
    """Findings and points for a log; ``practice`` maps a practice function
    (my_pow, count_primes, is_happy, int_to_roman) to its failing edge case, ``unsolved`` each one
    the practice code leaves unsolved to how ('stub', 'missing'; coverage.py), None when not known;
    ``sources`` the practice code itself (module -> text), so the catalog compares a complexity with
    the approach the code implements; ``measure`` runs a practice function, counted, in the worker
    (costmeter.py), so a claim is held to what the code does."""
    findings: list[Finding] = []
    if text is None or not text.strip():
        return _said_zero(findings, "empty_log")
    parsed = parse_log(text)
    if not parsed.problems and _has_words(text):
        return _unplaced(text)
    if not parsed.problems:
        return _said_zero(findings, "no_fields")
    if parsed.filled_fields == 0:
        return _said_zero(findings, "template_untouched", parsed.problems[0].line)
    return _review_entries(parsed.problems, findings, practice or {}, unsolved, sources, measure)


# A log the reader placed nothing of is still a log when it has this many words of its own: a title or a
# stray line is not, a paragraph is. Such a log goes to a TA whole; the reader is sure of nothing in it.
UNPLACED_WORDS = 12
# The field a TA decides for each public part of a problem (loggrade's groups: problem, approach,
# complexity, what went wrong, solved), so that each part is a TA check of its own.
_UNPLACED_FIELDS = ("problem", "first_idea", "time", "what_went_wrong", "solved")


_BIGO_POINTS = BIGO_PARSE_POINTS + BIGO_CONSISTENT_POINTS


def _has_words(text: str) -> bool:
    """Whether ``text`` holds words of the student's own beyond headings, comments and placeholders."""
    body = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    body = "\n".join(line for line in body.splitlines() if not re.match(r"^\s*#{1,6}\s", line))
    body = CUE["placeholder_left"].sub(" ", body)
    return len(re.findall(r"[^\W\d_]{2,}", body)) >= UNPLACED_WORDS


def _unplaced(text: str) -> LogReview:
    """Text the reader could not place in any problem or field: never a sure 0, a TA reads it. The
    points stay provisionally, and each part of each problem is one unsure finding (one TA check)."""
    findings: list[Finding] = []
    breakdown: list[BreakdownItem] = []
    for k in range(1, PROBLEMS + 1):
        for name in _UNPLACED_FIELDS:
            said = message("unsure_unplaced", k=k, label=_label(name, lower=False))
            findings.append(Finding(UNSURE, "unsure_unplaced", k, name, None, said.ko, said.en))
        breakdown += _breakdown(k, 2.0, _BIGO_POINTS, _BIGO_POINTS, 0.0)
    points = round(sum(b.points for b in breakdown), 4)
    return LogReview(points, MAX_POINTS, breakdown, findings)


def _review_entries(
    entries: list[ProblemEntry], findings: list[Finding], practice: dict[str, str],
    unsolved: dict[str, str] | None = None, sources: dict[str, str] | None = None,
    measure: Measure | None = None,
) -> LogReview:
    breakdown: list[BreakdownItem] = []
    reviews: list[ProblemReview] = []
    linked: list[LinkedFailure] = []
    seen: dict[int, int] = {}
    measured: dict[str, dict] = {}
    for slot in range(1, PROBLEMS + 1):
        if slot > len(entries):
            said = message("missing_problem", k=slot)
            findings.append(Finding("error", "missing_problem", slot, None, None, said.ko, said.en))
            breakdown.append(BreakdownItem(f"problem {slot}", 0.0, PER_PROBLEM))
            continue
        first = len(findings)
        ctx, pr, problem = _review_entry(slot, entries[slot - 1], findings, sources, measure)
        measured.update(ctx.measured)
        _settle(ctx, findings[first:])
        if problem is not None and problem.number in seen:
            ctx.say("warning", "duplicate_problem", "problem", ctx.line_for("problem"),
                    other=seen[problem.number], p=problem, penalty=TASK_FIT_PENALTY)
            ctx.penalty = TASK_FIT_PENALTY
        if problem is not None:
            seen.setdefault(problem.number, slot)
            linked += _link(ctx, problem, practice, findings)
            _check_coverage(ctx, problem, unsolved)
        pr.points = _items(ctx, breakdown)
        reviews.append(pr)
    if len(entries) > PROBLEMS:
        said = message("extra_problems", count=len(entries), graded=PROBLEMS)
        findings.append(Finding("info", "extra_problems", None, None, entries[PROBLEMS].line, said.ko,
                                said.en))
    points = round(sum(b.points for b in breakdown), 4)
    return LogReview(points, MAX_POINTS, breakdown, findings, linked, reviews, measured)


def _settle(ctx: _Ctx, mine: list[Finding]) -> None:
    """Sure or ask (leetlog/unsure.py): an error the reader is not sure of becomes ``unsure``, keeps
    its points provisionally, and says a TA will read that part."""
    for f in mine:
        if f.severity != "error" or f.code not in SETTLED_BY_TA or f.field is None:
            continue
        placed = ctx.entry.fields.get(f.field)
        emptied = placed is not None and not placed.filled
        if ctx.entry.implicit and f.code == "missing_field":  # a log all in prose: every sentence was read
            continue
        text = _unplaced_text(ctx.entry, f.field)
        saw = is_unsure(f.code, f.field, placed.value if placed else "", text, emptied)
        if saw is None:
            continue
        # it keeps the points its sure error would have taken: the field's (a missing Big-O's field point
        # was judged on its own, by the reason), and a complexity's Big-O points unless only its reason is
        ctx.points["fields"] += 0.0 if f.code == "no_bigo" else FIELD_POINTS
        if f.field in ("time", "space") and f.code != "no_reason":
            ctx.points[f.field] += _BIGO_POINTS
        f.severity = UNSURE
        f.code = f"unsure_{f.code}"
        said = message("unsure_settled", k=ctx.k, label=_label(f.field, lower=False), saw=saw)
        f.message_en, f.message_ko = said.en, said.ko


def _unplaced_text(entry: ProblemEntry, name: str) -> str:
    """What under a problem might still hold field ``name``: its prose, every field's continuation
    lines (where a label the parser does not know is swallowed), and for a complexity the other
    complexity's line (both said in one field). A field's own labelled line belongs to that field."""
    # the prose less each sentence a field was read from (prose.py): what is left was not placed
    placed = {" ".join(f.raw.split()) for f in entry.fields.values() if f.label == "sentence"}
    extra = split_sentences([(n, unlabelled(t)) for n, t in entry.extra]) if placed else []
    parts = [entry.heading, *(s.text for s in extra if " ".join(s.text.split()) not in placed)] if placed \
        else [entry.heading, *(t for _, t in entry.extra)]
    for other, f in entry.fields.items():
        rest = f.lines[1:] if f.lines else []
        if other == name or (other in ("time", "space") and name in ("time", "space")
                             and _OWN_NAME[name].search(f.raw)):
            rest = f.lines or [(f.line, f.raw)]
        elif name in ("time", "space") or {name, other} == {"first_idea", "final_approach"}:
            # the other complexity's own claim, a method's own words ('제곱근까지', 'n times'), the final
            # approach's for the first idea: none of them is this field (an unknown label no longer hides in
            # a field: parser._ends_field)
            rest = []
        parts += [t for _, t in rest]
    for d in entry.duplicates:
        parts.append(d.raw)
    return "\n".join(parts)


def _items(ctx: _Ctx, breakdown: list[BreakdownItem]) -> float:
    earned = sum(ctx.points.values())
    penalty = min(ctx.penalty, earned)
    breakdown += _breakdown(ctx.k, ctx.points["fields"], ctx.points["time"], ctx.points["space"], penalty)
    return round(earned - penalty, 4)


def _breakdown(k: int, fields: float, time: float, space: float, penalty: float) -> list[BreakdownItem]:
    """One problem's four lines of the breakdown."""
    return [
        BreakdownItem(f"problem {k}: fields present and well formed", round(fields, 4), 2.0),
        BreakdownItem(f"problem {k}: time complexity parses and matches a known approach", round(time, 4),
                      _BIGO_POINTS),
        BreakdownItem(f"problem {k}: space complexity parses and matches a known approach", round(space, 4),
                      _BIGO_POINTS),
        BreakdownItem(f"problem {k}: task fit (Medium, Math, distinct)",
                      -round(penalty, 4) if penalty else 0.0, 0.0),
    ]


def _link(
    ctx: _Ctx, problem: Problem, practice: dict[str, str], findings: list[Finding]
) -> list[LinkedFailure]:
    if not problem.function or problem.function not in practice:
        return []
    failure = practice[problem.function]
    wrong = ctx.entry.fields.get("what_went_wrong")
    line = wrong.line if wrong is not None else ctx.entry.line
    said = wrong.value if wrong is not None else ""
    ctx.say("info", "practice_failure", "what_went_wrong", line, function=problem.function, failure=failure,
            line=line)
    return [LinkedFailure(ctx.k, problem.function, failure, line, said)]



def _check_coverage(ctx: _Ctx, problem: Problem, unsolved: dict[str, str] | None) -> None:
    """A logged problem the practice code leaves unsolved, with no word on why: name both sides."""
    fn = problem.function
    if unsolved is None or fn is None or fn not in unsolved or says_why(_entry_text(ctx.entry)):
        return
    ctx.say("error", "not_in_code", "problem", ctx.line_for("problem"), p=problem, fn=fn,
            how=message("how_stub" if unsolved[fn] == "stub" else "how_missing"))


def _entry_text(entry: ProblemEntry) -> str:
    """Everything written under a problem: its fields and its prose."""
    parts = [f.raw for f in (*entry.fields.values(), *entry.duplicates)]
    return "\n".join([entry.heading, *parts, *(t for _, t in entry.extra)])
