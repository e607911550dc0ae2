"""Review a LEETCODE_LOG.md: findings a TA would write, and points (3.0 per problem, the first two).

Per problem: 2.0 for the 8 required fields present and well formed; 0.25 for each of time and space whose
Big-O parses, 0.25 more when it holds for the student's code (code/claims.py); -0.5 for a problem that is
not Medium, not Math-tagged, or the other's twin (never below 0). Prose is never scored.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .bigo import Complexity, ParseError, compare, find_all_bigo, parse
from .catalog import Problem, find_problem
from .code.claims import Claim, Measure, hold
from .code.coverage import function_source
from .parser import REQUIRED, Field, ProblemEntry, clean_value, parse_log
from .unsure import UNSURE, has_reason, is_unsure, names_field
from .values import classify_solved, parse_difficulty
from .vocab import CUE, DATES, LABELS_EN, LABELS_KO, MONTHS, NEAREST, REVIEW, Two, message, short

__all__ = ["MAX_POINTS", "BreakdownItem", "Finding", "LinkedFailure", "LogReview", "ProblemReview",
           "review_file", "review_log"]

PROBLEMS = 2
PER_PROBLEM = 3.0
MAX_POINTS = PROBLEMS * PER_PROBLEM
FIELD_POINTS = 2.0 / len(REQUIRED)
BIGO_STEP = 0.25  # a complexity earns it when its Big-O parses, and again when it holds
BIGO_POINTS = 2 * BIGO_STEP
_PARTS = ("time", "space")  # the two complexity fields
TASK_FIT_PENALTY = 0.5
# text the reader placed nothing of is a log with this many words (a paragraph, not a title): a TA reads it
UNPLACED_WORDS = 12
# a log is read up to this many characters (the longest real one is about 2,000; the report quotes as many):
# a file of megabytes is no log, and the reader's work grows faster than its length
READ_AT_MOST = 64_000


@dataclass
class Finding:
    severity: str  # "error" (missing/malformed), "warning", "info", "unsure" (a TA reads it)
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
    # how each claim was held: 'measured' (run and counted), 'catalog' (by the approach the log names)
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

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class _Ctx:
    """One problem's review: what was read of it and its points; its findings go to the log's review."""

    k: int
    entry: ProblemEntry
    out: LogReview  # the log's review, which both problems write their findings, failures and runs into
    sources: dict[str, str]  # the practice code: each logged function's source is read from it
    measure: Measure | None  # runs a practice function, counted, in the worker (costmeter)
    review: ProblemReview  # what is read of the problem, as the report shows it
    points: dict[str, float] = field(default_factory=lambda: {"fields": 0.0, "time": 0.0, "space": 0.0})
    penalty: float = 0.0
    problem: Problem | None = None
    source: str | None = None  # the problem's practice function as the student wrote it
    # time/space -> the claim read, as written, and its line
    claims: dict[str, tuple[Complexity, str, int]] = field(default_factory=dict)
    asked: bool = False  # a claim was left to a TA (amortized, an undefined variable)

    def say(self, severity: str, code: str, fld: str | None, at: int | None, key: str = "",
            **values: Any) -> None:
        self.out.findings.append(_finding(severity, code, self.k, fld, at, key, **values))

    def about(self, name: str, severity: str, code: str, key: str = "", **values: Any) -> None:
        """A finding on the time or space claim, on its line: {quote} quotes it, {time} and {space} each."""
        quotes = {n: message("quote", written=said, line=at) for n, (_, said, at) in self.claims.items()}
        self.say(severity, code, name, self.claims[name][2], key, quote=quotes[name], **quotes, **values)

    def fault(self, code: str, name: str, at: int, key: str = "", **values: Any) -> None:
        """An error, or ``unsure`` if the problem's text may hold what it lacks (unsure.py): points kept."""
        unsure = is_unsure(code, name, self.entry)
        if unsure is None:
            self.say("error", code, name, at, key, **values)
            return
        saw, seen_at = unsure
        self.points["fields"] += 0.0 if code == "no_bigo" else FIELD_POINTS
        if name in ("time", "space") and code != "no_reason":
            self.points[name] += BIGO_POINTS
        # on the line holding what the reader saw, where it can tell: a TA looks there first
        self.say(UNSURE, f"unsure_{code}", name, seen_at or at, "unsure_settled", saw=message(saw))

    def penalize(self, code: str, fld: str, at: int, **values: Any) -> None:
        """A problem that does not fit the task (not Medium, not Math, the other's twin): one penalty."""
        self.say("warning", code, fld, at, penalty=TASK_FIT_PENALTY, **values)
        self.penalty = TASK_FIT_PENALTY

    def line_for(self, name: str) -> int:
        f = self.entry.fields.get(name)
        return f.line if f is not None else self.entry.line


def _finding(severity: str, code: str, k: int | None, fld: str | None, at: int | None, key: str = "",
             **values: Any) -> Finding:
    """A finding with message ``key`` (``code`` by default); {label} and {Label} name its field."""
    if fld is not None:
        values = {"label": Two(LABELS_EN[fld].lower(), LABELS_KO[fld]),
                  "Label": Two(LABELS_EN[fld], LABELS_KO[fld]), **values}
    said = message(key or code, k=k, **values)
    return Finding(severity, code, k, fld, at, said.ko, said.en)


# -- the fields: each filled one earns FIELD_POINTS unless its check says it is not well formed -------

def _missing(ctx: _Ctx, name: str) -> None:
    """A field missing, empty or still the template's, quoting the nearest sentence of the prose."""
    f = ctx.entry.fields.get(name)
    said = CUE["comment"].sub("", f.raw).strip() if f is not None else ""  # 'none' in words: '없음', 'N/A'
    where = "missing" if f is None else "template" if CUE["placeholder_left"].search(f.raw or "") else \
        "none" if said and not clean_value(f.raw) else "empty"  # (not a pair's other half: 'x → -')
    near = _nearest_sentence(ctx.entry, name) if f is None else None
    line = near[0] if near else ctx.line_for(name)
    ctx.fault("missing_field", name, line, where=message(f"where_{where}", said=said),
              quote=message("nearest", line=line, said=near[1]) if near else "",
              hint=message(f"hint_{name}"))


def _problem(ctx: _Ctx, name: str, f: Field) -> bool:
    """Which catalog problem the field (or heading) names; a leading number the title contradicts is the
    section's when it is this problem's place (1 or 2) or another number follows ('1. 50. Pow(x, n)')."""
    text, line = f.value, f.line
    match = find_problem(text)
    place = CUE["section_number"].match(text)
    if match.conflict and place and int(place.group(1)) == match.number and (
            match.number in (ctx.k, ctx.entry.index) or re.match(r"\d{1,4}\b", text[place.end():])):
        match = find_problem(text[place.end():])
    p = ctx.problem = match.problem
    if p is None and match.number is None:
        # 'Power 문제': which problem it is (so its difficulty, its complexities) is a TA's to read
        ctx.say(UNSURE, "unsure_unknown_problem", "problem", line, text=text)
    elif p is None:
        ctx.say("info", "unknown_problem", "problem", line, text=text)
    elif match.conflict:
        ctx.say("warning", "number_title_mismatch", "problem", line, number=match.number, p=p)
    if p is not None:
        ctx.review.number, ctx.review.title, ctx.review.math = p.number, p.title, p.is_math
        ctx.source = function_source(ctx.sources, p.function) if p.function else None
    return True


def _difficulty(ctx: _Ctx, name: str, f: Field) -> bool:
    """Readable, and the catalog's if known (the task fit is judged by the catalog's)."""
    stated = ctx.review.difficulty = parse_difficulty(f.value)
    p = ctx.problem
    if stated is None:
        ctx.say("error", "bad_difficulty", name, f.line, value=f.value)
    elif p is not None and stated != p.difficulty:
        ctx.say("warning", "difficulty_mismatch", name, f.line, stated=stated, p=p)
    return stated is not None


def _complexity(ctx: _Ctx, name: str, f: Field) -> bool:
    """A Big-O with a reason earns the field point; 0.25 more when it parses and 0.25 when it holds."""
    matches = find_all_bigo(f.value)
    reason, said = has_reason(f.value), "_sentence" if f.label == "sentence" else ""
    if not reason:  # read from prose (said): quote the sentence that gave the Big-O
        ctx.fault("no_reason", name, f.line, f"no_reason{said}", line=f.line, value=f.value,
                  excerpt=_excerpt(f.raw, f.value), example=message(f"example_{name}{said}"))
    if not matches:
        ctx.fault("no_bigo", name, f.line, value=f.value)
    read: list[tuple[Complexity, str]] = []  # messages quote what each was read from, never a rendering
    for m in matches:
        try:
            read.append((parse(m.written), m.written))  # as written: LaTeX reads as plain, positions stay
        except ParseError as e:
            if m is matches[0]:
                ctx.say("error", "bad_bigo", name, f.line_of(m.written), written=m.written, error=e.said,
                        char=e.position + 1)
    if not read:  # no Big-O, or none that parses
        return reason
    claim, written = read[0]
    ctx.claims[name] = claim, written, f.line_of(written)
    setattr(ctx.review, name, str(claim))
    ctx.points[name] += BIGO_STEP
    named = "\n".join(v.value for n, v in ctx.entry.fields.items() if n in ("final_approach", *_PARTS))
    held = hold(Claim(name, [c for c, _ in read], written, f.value, _entry_text(ctx.entry), named),
                ctx.problem, ctx.source, ctx.measure)
    for severity, code, key, values in held.said:
        ctx.about(name, severity, code, key, **values)
    ctx.asked |= held.asked
    if held.held_by is not None:
        ctx.review.held_by[name] = held.held_by
    if held.measured is not None:
        ctx.out.measured[held.measured[0]] = held.measured[1]
    ctx.points[name] += BIGO_STEP if held.holds else 0.0
    return reason


def _solved(ctx: _Ctx, name: str, f: Field) -> bool:
    """Alone or after a solution; after one, a redo date (its own field, or on the same line)."""
    how = ctx.review.solved = classify_solved(f.value, f.label)
    if how is None:
        ctx.fault("bad_solved", name, f.line, value=f.value)
        return False
    redo = ctx.entry.get("redo_date")
    date = _parse_date(redo.value if redo is not None else f.value)
    if redo is not None and date is None and CUE["relative_date"].search(redo.value):
        # 'D+3', '내일', 'next Monday': a day counted from one the log does not give; a TA reads it
        ctx.say(UNSURE, "unsure_bad_date", "redo_date", redo.line, "unsure_settled",
                saw=message("saw_relative_date"))
        return True
    if redo is not None and date is None:
        ctx.say("error" if how == "solution" else "warning", "bad_date", "redo_date", redo.line,
                value=redo.value)
    elif how == "solution" and date is None:
        ctx.say("error", "redo_date_missing", "redo_date", ctx.line_for("redo_date"))
    return how != "solution" or date is not None


# What checks a filled field's form (any other: filled is enough); REVIEW["order"] is the order they run in.
_CHECKS: dict[str, Callable[[_Ctx, str, Field], bool]] = {
    "problem": _problem, "difficulty": _difficulty, "time": _complexity, "space": _complexity,
    "solved": _solved}


def _parse_date(text: str) -> _dt.date | None:
    """The first real date in one of vocab.toml's forms ('2026-12-21', '21 Dec 2026', '12/21/2026')."""
    for form in DATES:
        if m := form.search(text):
            month = int(m["m"]) if m["m"].isdigit() else MONTHS[m["m"][:3].lower()]
            year = m.groupdict().get("y") or "2000"  # no year: any year's day (2000's has Feb 29)
            with suppress(ValueError):  # not a real date ('21/12/2026' as month 21): the next form reads it
                return _dt.date(int(year) + (2000 if len(year) == 2 else 0), month, int(m["d"]))
    return None


# -- quoting the student --------------------------------------------------------------------------------

def _nearest_sentence(entry: ProblemEntry, name: str) -> tuple[int, str] | None:
    """The sentence to quote when ``name`` was not found in the prose: a field's it is said beside, else the
    prose's; never one with the field's words ("none gives it" would be false)."""
    beside: list[tuple[int, str]] = []
    for other in NEAREST.get(name, ()):
        f = entry.get(other)
        if f is not None and f.label == "sentence":  # a complexity's around its Big-O, maybe late in it
            # a problem's value is its title, not a sentence: the sentence that names it is quoted
            said = _excerpt(f.raw, f.value.split(" — ")[0]) if other in ("time", "space") else \
                f.value if f.value in f.raw and other != "problem" else f.raw
            beside.append((f.line, said))
    # a labelled field's own answer (read again only to look for a field it may also give) is no sentence
    answers = {" ".join(f.value.split()) for f in entry.fields.values() if f.label != "sentence"}
    for line, text in [*beside, *(entry.sentences[::-1] if name == "solved" else entry.sentences)]:
        one = " ".join(text.split())
        plain = "" if re.match(r"^#{1,6}\s", one) or one in answers else CUE["emphasis"].sub("", one).strip()
        words = len(plain.split())
        if (words >= 4 or words >= 2 and CUE["sentence_end"].search(plain)) and not names_field(name, plain):
            return line, plain if plain.startswith("…") or plain.endswith("…") else short(plain, 80)
    return None


def _excerpt(text: str, needle: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters around ``needle``, at spaces where one is near: a student reads
    whole words ('…each composite is', not '…ite is'; never half of a Korean word)."""
    one = " ".join(text.split())
    at = one.find(needle)
    if len(one) <= limit or at < 0:
        return one
    start = max(0, min(at - (limit - len(needle)) // 2, len(one) - limit))
    end = start + limit
    if start and one[start - 1] != " ":  # begin at the next word, unless that would cut into the needle
        space = one.find(" ", start, at)
        start = space + 1 if space >= 0 else start
    if end < len(one) and one[end] != " ":  # end after the last whole word, unless inside the needle
        space = one.rfind(" ", at + len(needle), end)
        end = space if space >= 0 else end
    return ("…" if start else "") + one[start:end] + ("…" if end < len(one) else "")


def _entry_text(entry: ProblemEntry) -> str:
    """Everything written under a problem: its fields and its prose."""
    parts = [f.raw for f in (*entry.fields.values(), *entry.duplicates)]
    return "\n".join([entry.heading, *parts, *(t for _, t in entry.extra)])


# -- the log as a whole -------------------------------------------------------------------------------

def _review_problem(ctx: _Ctx, practice: dict[str, str], unsolved: dict[str, str] | None,
                    seen: dict[int, int]) -> None:
    """Every field's rule on one problem, then what is judged across fields, problems and the code."""
    for name in REVIEW["order"]:
        f, check = ctx.entry.get(name), _CHECKS.get(name)
        # the heading names it where no field does ('### 문제' over 'x의 n제곱을 구하는 문제': its statement)
        heading = ctx.entry.heading
        if name == "problem" and heading and (f is None or find_problem(f.value).number is None
                                              and find_problem(heading).problem is not None):
            f = Field(name, heading, ctx.entry.line)
        if f is None:
            _missing(ctx, name)  # (its unsure finding may credit the points its error would take)
        elif check is None or check(ctx, name, f):
            ctx.points["fields"] += FIELD_POINTS
    p = ctx.problem
    if p is not None:
        ctx.review.difficulty = p.difficulty
    if {"time", "space"} <= ctx.claims.keys() and not ctx.asked \
            and compare(ctx.claims["space"][0], ctx.claims["time"][0]) == 1:
        ctx.about("space", "warning", "space_exceeds_time")
    for dup in ctx.entry.duplicates:
        ctx.say("warning", "duplicate_field", dup.name, dup.line, first=ctx.entry.fields[dup.name].line,
                line=dup.line)
    line = ctx.line_for("difficulty" if p is None else "problem")
    difficulty = ctx.review.difficulty
    if difficulty is not None and difficulty != "Medium":
        why = p.lesson if p is not None and p.lesson else "task"  # the warm-up's reason is practice.py's RULE
        ctx.penalize("not_medium", "difficulty", line, difficulty=difficulty, why=message(f"why_{why}"),
                     name=Two(p.label, p.label) if p else message("problem_k", k=ctx.k))
    if p is None:
        return
    if not p.is_math:
        ctx.penalize("not_math", "problem", line, p=p, tags=", ".join(p.tags))
    if p.number in seen:
        ctx.penalize("duplicate_problem", "problem", line, other=seen[p.number], p=p)
    seen.setdefault(p.number, ctx.k)
    fn = p.function or ""
    if fn in practice:  # a failing practice edge case, next to what the log says went wrong
        wrong, at = ctx.entry.fields.get("what_went_wrong"), ctx.line_for("what_went_wrong")
        ctx.say("info", "practice_failure", "what_went_wrong", at, function=fn, failure=practice[fn], line=at)
        ctx.out.linked_failures.append(
            LinkedFailure(ctx.k, fn, practice[fn], at, wrong.value if wrong else ""))
    if unsolved is not None and fn in unsolved and not CUE["why_not_in_code"].search(_entry_text(ctx.entry)):
        # a logged problem the practice code leaves unsolved, with no word on why (solved on LeetCode only...)
        ctx.say("error", "not_in_code", "problem", line, p=p, fn=fn,
                how=message("how_stub" if unsolved[fn] == "stub" else "how_missing"))


_TOPS = (2.0, BIGO_POINTS, BIGO_POINTS, 0.0)  # the most each of a problem's lines of the breakdown earns


def _breakdown(k: int, points: tuple[float, ...] | None) -> list[BreakdownItem]:
    """Problem ``k``'s lines of the breakdown; None: one line, nothing earned (no problem to read)."""
    if points is None:
        return [BreakdownItem(f"problem {k}", 0.0, PER_PROBLEM)]
    return [BreakdownItem(f"problem {k}: {item}", round(p, 4), top)
            for item, top, p in zip(REVIEW["breakdown"], _TOPS, points, strict=True)]


def _zero(code: str, said: Two | None = None, line: int | None = None, **values: Any) -> LogReview:
    """A log that scores 0, and the finding that says why: ``said``, else the message ``code``."""
    said = said or message(code, **values)
    return LogReview(0.0, MAX_POINTS, [b for k in range(1, PROBLEMS + 1) for b in _breakdown(k, None)],
                     [Finding("error", code, None, None, line, said.ko, said.en)])


def review_file(path: str | Path, practice: dict[str, str] | None = None) -> LogReview:
    """Review LEETCODE_LOG.md at ``path``; a missing file scores 0 with a finding."""
    p = Path(path)
    if not p.is_file():
        return _zero("missing_file", name=p.name)
    return review_log(p.read_text(encoding="utf-8", errors="replace"), practice)


def review_log(text: str | None, practice: dict[str, str] | None = None,
               unsolved: dict[str, str] | None = None, sources: dict[str, str] | None = None,
               measure: Measure | None = None) -> LogReview:
    """Findings and points for a log. ``practice``: function -> its failing edge case; ``unsolved``: those the
    code leaves unsolved; ``sources``: module -> the practice code; ``measure``: runs a function, counted."""
    if text is None or not text.strip():
        return _zero("empty_log")
    if len(text) > READ_AT_MOST:
        kept = text[:text.rfind("\n", 0, READ_AT_MOST) + 1 or READ_AT_MOST]
        out = review_log(kept, practice, unsolved, sources, measure)
        out.findings.append(_finding("warning", "log_cut", None, None, kept.count("\n") + 1,
                                     length=f"{len(text):,}", read=f"{len(kept):,}"))
        return out
    parsed = parse_log(text)
    entries = _graded_first(parsed.problems)
    if not entries and not _has_words(text):
        return _zero("no_fields")
    if entries and parsed.filled_fields == 0:
        return _zero("template_untouched", line=entries[0].line)
    out = LogReview(0.0, MAX_POINTS, [], [])
    seen: dict[int, int] = {}  # catalog number -> the first problem that logs it
    for k in range(1, PROBLEMS + 1):
        points: tuple[float, ...] | None = _TOPS
        if not entries:
            # text placed in no problem or field: never a sure 0; the points stay, each part is a TA check
            out.findings += [_finding(UNSURE, "unsure_unplaced", k, name, None)
                             for name in REVIEW["unplaced"]]
        elif k > len(entries):
            out.findings.append(_finding("error", "missing_problem", k, None, None))
            points = None
        else:
            entry = entries[k - 1]
            ctx = _Ctx(k, entry, out, sources or {}, measure, ProblemReview(k, entry.line))
            _review_problem(ctx, practice or {}, unsolved, seen)
            earned = sum(ctx.points.values())  # fields, time, space; the task fit's penalty never below 0
            penalty = min(ctx.penalty, earned)
            points = (*ctx.points.values(), -penalty or 0.0)
            ctx.review.points = round(earned - penalty, 4)
            out.problems.append(ctx.review)
        out.breakdown += _breakdown(k, points)
    # past the graded ones, a section left empty (the template's '## 문제 3' kept for later) is no problem,
    # nor a retrospective's 'Problem: …' naming none (KPT's Keep / Problem / Try) with no other label under it
    if extras := [e for e in entries[PROBLEMS:] if _is_problem(e)]:
        warm_up = any(a is not b for a, b in zip(entries, parsed.problems, strict=True))
        extra = min(extras, key=lambda e: e.line)  # the first one not graded
        out.findings.append(_finding("info", "extra_easy" if warm_up else "extra_problems", None, None,
                                     extra.line, count=PROBLEMS + len(extras), graded=PROBLEMS))
    out.points = round(sum(b.points for b in out.breakdown), 4)
    return out


def _graded_first(entries: list[ProblemEntry]) -> list[ProblemEntry]:
    """With more than two, an Easy one (a warm-up such as 202. Happy Number, logged beside two Medium ones)
    is graded after the others rather than push one out."""
    return sorted(entries, key=lambda e: len(entries) > PROBLEMS and _is_easy(e))


def _is_easy(entry: ProblemEntry) -> bool:
    return (found := entry.named.problem) is not None and found.difficulty == "Easy"


def _is_problem(entry: ProblemEntry) -> bool:
    """Whether an entry past the graded ones is a problem: it names one, or labels another field."""
    found = entry.named
    return found.problem is not None or found.number is not None or any(
        f.filled and f.label != "sentence" for name, f in entry.fields.items() if name != "problem")


def _has_words(text: str) -> bool:
    """Whether ``text`` holds a paragraph (UNPLACED_WORDS) besides headings, comments and placeholders."""
    body = CUE["comment"].sub(" ", text)
    body = "\n".join(line for line in body.splitlines() if not re.match(r"^\s*#{1,6}\s", line))
    body = CUE["placeholder_left"].sub(" ", body)
    return len(re.findall(r"[^\W\d_]{2,}", body)) >= UNPLACED_WORDS
