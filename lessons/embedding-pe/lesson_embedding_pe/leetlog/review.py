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

from grader.author import particle

from . import costmeter
from .bigo import Complexity, ParseError, Term, compare, find_all_bigo, parse
from .catalog import Approach, Problem, find_problem, identify
from .codecost import implemented, parameters, size_name
from .costmeter import Measurement
from .coverage import function_source, says_why
from .mathtext import to_plain
from .parser import LABELS_EN, LABELS_KO, REQUIRED, Field, ProblemEntry, parse_log, unlabelled
from .prose import split_sentences
from .unsure import COPULA as _COPULA
from .unsure import SETTLED_BY_TA, TA_EN, TA_KO, UNSURE, is_unsure
from .values import classify_solved, parse_difficulty  # noqa: F401  (tests read them here)
from .vocab import CUE, HINTS, REASON_EXAMPLE

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


# --------------------------------------------------------------------------- small readers

def _parse_date(text: str) -> _dt.date | None:
    m = re.search(r"(\d{4})\s*[-./년]\s*(\d{1,2})\s*[-./월]\s*(\d{1,2})", text)
    if not m:
        return None
    try:
        return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


# --------------------------------------------------------------------------- review


class _Ctx:
    """Collects one problem's findings and points."""

    def __init__(self, slot: int, entry: ProblemEntry, findings: list[Finding]) -> None:
        self.k = slot
        self.entry = entry
        self.findings = findings
        self.field_points = 0.0
        self.time_points = 0.0
        self.space_points = 0.0
        self.penalty = 0.0
        self.measured: dict[str, dict] = {}
        self.quotes: dict[str, Quote] = {}  # time/space -> the Big-O read, as written, and its line
        self.sources: dict[str, str] | None = None  # the practice code, to see which approach it implements
        self.measure: Measure | None = None  # runs a practice function, counted, in the worker (costmeter)
        self.held_by: dict[str, str] = {}

    def add(self, severity: str, code: str, fld: str | None, line: int | None, ko: str, en: str) -> None:
        self.findings.append(Finding(severity, code, self.k, fld, line, ko, en))

    def line_for(self, name: str) -> int:
        f = self.entry.fields.get(name)
        return f.line if f is not None else self.entry.line


_HINT_EN, _HINT_KO = HINTS["en"], HINTS["ko"]


# Where a field missing from prose would most likely have been said, to quote that sentence.
_NEAREST = {
    "problem": (), "difficulty": ("problem",), "first_idea": ("final_approach",),
    "final_approach": ("first_idea",), "time": ("space", "final_approach"),
    "space": ("time", "final_approach"),
    "what_went_wrong": ("first_idea", "final_approach"), "solved": ("what_went_wrong",),
}


def _nearest_sentence(entry: ProblemEntry, name: str) -> tuple[int, str] | None:
    """The student's sentence to quote when ``name`` was not found in their prose: a real sentence
    (not a heading, not a bold title), and never one holding the field's own words (quoting that
    one as "none of them gives it" would contradict the quote); None when no sentence is fit."""
    candidates: list[tuple[int, str]] = []
    for other in _NEAREST.get(name, ()):
        f = entry.fields.get(other)
        if f is not None and f.filled and f.label == "sentence":
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


_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)")


def _plain_sentence(text: str) -> str:
    """``text`` as a sentence to quote: Markdown's emphasis marks and a heading's ``#`` off; "" when it
    is no sentence (a heading, or a title alone: few words and no sentence's end)."""
    one = " ".join(text.split())
    if re.match(r"^#{1,6}\s", one):
        return ""
    plain = _EMPHASIS.sub("", one).strip()
    words = len(plain.split())
    ends = bool(re.search(r"[.!?。]$|[다요음함][.]?$", plain))
    return plain if words >= 4 or (ends and words >= 2) else ""


# A template placeholder left in a field: '<...>' around words ('<TODO>', the template's own), not an
# HTML comment or tag, not 'a < b and c > d'.
_PLACEHOLDER = re.compile(
    r"<(?![!/\s])(?!(?:br|b|i|em|strong|code|sub|sup|span|p|div|a|u|s|del|kbd|mark|small|img|hr)\b)"
    r"[^<>\n]*[^<>\s]>|<\s*>", re.I)


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
    template = f is not None and bool(_PLACEHOLDER.search(f.raw or ""))  # left as the template's <...>
    where_en = ("still holds the template placeholder" if template
                else "is empty" if f is not None else "is missing")
    where_ko = ("템플릿 자리표시(<...>) 그대로입니다" if template
                else "비어 있습니다" if f is not None else "없습니다")
    line = ctx.line_for(name)
    quote_en = quote_ko = ""
    near = _nearest_sentence(ctx.entry, name) if f is None else None
    if near is not None:
        line = near[0]
        said = near[1] if near[1].startswith("…") or near[1].endswith("…") else _short(near[1], 80)
        quote_en = (" Your sentences were read as well and none of them gives it; "
                    f"the nearest is line {line}: \"{said}\"")
        quote_ko = f" 서술한 문장도 읽었지만 이 내용은 없었습니다. 가장 가까운 문장은 {line}행: \"{said}\""
    ctx.add("error", "missing_field", name, line,
            f"문제 {ctx.k}: '{LABELS_KO[name]}' 칸이 {where_ko}. {_HINT_KO[name]}{quote_ko}",
            f"Problem {ctx.k}: the '{LABELS_EN[name]}' field {where_en}; expected {_HINT_EN[name]}{quote_en}")
    return None


def _review_problem_field(ctx: _Ctx) -> Problem | None:
    f = ctx.entry.get("problem")
    if f is None and ctx.entry.heading:  # '## 문제 1: 50. Pow(x, n)' names the problem already
        f = Field("problem", ctx.entry.heading, ctx.entry.line, "heading", ctx.entry.heading)
    f = f or _check_presence(ctx, "problem")
    text = f.value if f is not None else ""
    if f is not None:
        ctx.field_points += FIELD_POINTS
    if not text:
        return None
    match = find_problem(text)
    if match.conflict and _section_number(text, match.number, ctx):
        match = find_problem(_SECTION_NUMBER.sub("", text, count=1))  # '## 1. Pow(x, n)': the section's place
    line = f.line if f is not None else ctx.entry.line
    if match.problem is None and match.number is None:
        # 'Power 문제': no number, no title the catalog knows; which problem it is (its difficulty, its
        # complexities) is a TA's to read, not a pass by default
        ctx.add(UNSURE, "unsure_unknown_problem", "problem", line,
                f"문제 {ctx.k}: {_quoted(text, '가')} 어느 LeetCode 문제인지 알 수 없어 난이도·복잡도를 "
                f"확인하지 못했습니다. 번호와 제목을 함께 쓰세요 (예: 50. Pow(x, n)). {TA_KO}",
                f"Problem {ctx.k}: the reader cannot tell which LeetCode problem '{_short(text)}' is, so its "
                f"difficulty and complexities were not checked; write its number and title (e.g. '50. Pow(x, "
                f"n)'). {TA_EN}")
        return None
    if match.problem is None:
        ctx.add("info", "unknown_problem", "problem", line,
                f"문제 {ctx.k}: {_quoted(text, '를')} 채점기 목록에서 찾지 못해 "
                "난이도·복잡도는 확인하지 않았습니다. "
                "번호와 제목을 함께 쓰면 확인할 수 있습니다 (예: 50. Pow(x, n)).",
                f"Problem {ctx.k}: '{_short(text)}' is not in the grader's catalog, so its difficulty and "
                "complexity were not checked; writing the number and title (e.g. '50. Pow(x, n)') "
                "lets it be.")
        return None
    p = match.problem
    if match.conflict:
        ctx.add("warning", "number_title_mismatch", "problem", line,
                f"문제 {ctx.k}: 번호 {particle(str(match.number), '와')} 제목 '{p.title}'"
                f"(실제 {p.number}번)이 맞지 않습니다. "
                "제목 기준으로 확인했습니다.",
                f"Problem {ctx.k}: number {match.number} does not match the title '{p.title}' (which is "
                f"{p.number}); checked as {p.label}, going by the title.")
    return p


# A section's own number before the problem's name: '1. Pow(x, n)', '2) 204. Count Primes',
# '1 - Happy Number'.
_SECTION_NUMBER = re.compile(r"^\s*\[?(\d{1,2})\s*(?:[.)\]:]|\s[-—–])\s*")


def _section_number(text: str, number: int | None, ctx: _Ctx) -> bool:
    """Whether the number leading ``text`` is the section's place in the log, not the problem's number:
    it is this problem's place (1 or 2), or another number follows it ('1. 50. Pow(x, n)')."""
    m = _SECTION_NUMBER.match(text)
    if m is None or number is None or int(m.group(1)) != number:
        return False
    rest = text[m.end():]
    return number in (ctx.k, ctx.entry.index) or bool(re.match(r"\d{1,4}\b", rest))


def _review_difficulty(ctx: _Ctx, problem: Problem | None) -> str | None:
    f = _check_presence(ctx, "difficulty")
    stated = parse_difficulty(f.value) if f is not None else None
    if f is not None and stated is None:
        ctx.add("error", "bad_difficulty", "difficulty", f.line,
                f"문제 {ctx.k}: 난이도 {_quoted(f.value, '를')} 읽지 못했습니다. "
                "Easy, Medium, Hard 중 하나만 쓰세요.",
                f"Problem {ctx.k}: could not read the difficulty '{_short(f.value)}'; write exactly one of "
                "Easy, Medium or Hard.")
    elif f is not None:
        ctx.field_points += FIELD_POINTS
    if f is not None and stated and problem is not None and stated != problem.difficulty:
        ctx.add("warning", "difficulty_mismatch", "difficulty", f.line,
                f"문제 {ctx.k}: 난이도를 {particle(stated, '로')} 적었지만 LeetCode에서 "
                f"{particle(problem.label, '은')} "
                f"{problem.difficulty}입니다. 난이도는 사이트에서 확인하세요.",
                f"Problem {ctx.k}: you wrote {stated}, but LeetCode lists {problem.label} as "
                f"{problem.difficulty}; check the difficulty on the site.")
    return problem.difficulty if problem is not None else stated


def _review_task_fit(ctx: _Ctx, problem: Problem | None, difficulty: str | None) -> None:
    line = ctx.line_for("difficulty") if problem is None else ctx.line_for("problem")
    if difficulty is not None and difficulty != "Medium":
        name = problem.label if problem is not None else f"problem {ctx.k}"
        name_ko = problem.label if problem is not None else f"문제 {ctx.k}"
        number = problem.number if problem is not None else None
        # the warm-up's reason is the rule's own words (practice.py's RULE), not another one
        lesson_en = (": it is leetcode.py's warm-up, whose code never counts, and the log takes Medium "
                     "problems only" if number == WARM_UP else
                     ": the lesson lists it as an example, but the task asks for two Medium math problems"
                     if number in LESSON_EXAMPLES else "; the task asks for two Medium problems tagged Math")
        lesson_ko = ("leetcode.py의 몸풀기 문제라 코드는 점수에 들어가지 않고, 기록은 Medium 문제만 받습니다"
                     if number == WARM_UP else
                     "수업 자료의 예시 목록에 있지만 과제는 Medium 수학 문제 2개입니다"
                     if number in LESSON_EXAMPLES else "과제는 수학 태그의 Medium 문제 2개입니다")
        ctx.add("warning", "not_medium", "difficulty", line,
                f"{particle(name_ko, '은')} LeetCode에서 Medium이 아니라 {difficulty}입니다. {lesson_ko} "
                f"(−{TASK_FIT_PENALTY}점).",
                f"{name} is {difficulty} on LeetCode, not Medium{lesson_en} (−{TASK_FIT_PENALTY}).")
        ctx.penalty = TASK_FIT_PENALTY
    if problem is not None and not problem.is_math:
        ctx.add("warning", "not_math", "problem", line,
                f"{problem.label}에는 Math 태그가 없습니다 (태그: {', '.join(problem.tags)}). "
                "과제는 수학 유형 "
                f"문제입니다 (−{TASK_FIT_PENALTY}점, 난이도 감점과 중복되지 않음).",
                f"{problem.label} is not tagged Math on LeetCode (tags: {', '.join(problem.tags)}); the task "
                f"asks for math problems (−{TASK_FIT_PENALTY}, not added to a difficulty deduction).")
        ctx.penalty = TASK_FIT_PENALTY


def _review_text_fields(ctx: _Ctx) -> None:
    for name in ("first_idea", "final_approach", "what_went_wrong"):
        if _check_presence(ctx, name) is not None:
            ctx.field_points += FIELD_POINTS


_SEPARATORS = re.compile(r"[\s\-—–:：,;.()（）/→=>|*`_]+")


def _has_reason(value: str, spans: list[tuple[int, int]]) -> bool:
    rest = value
    for start, end in sorted(spans, reverse=True):
        rest = rest[:start] + " " + rest[end:]
    rest = to_plain(rest).text  # LaTeX markup ('$', '\\mathcal{') is not a reason
    rest = _COPULA.sub(" ", _SEPARATORS.sub(" ", rest))  # 'O(1)이다.' states the claim, gives no reason
    return sum(c.isalpha() for c in rest) >= 2


_REASON_EXAMPLE = REASON_EXAMPLE  # a reason of each complexity's own kind, for the examples


def _review_complexity(ctx: _Ctx, name: str, problem: Problem | None) -> Complexity | None:
    """Presence+reason (field point), parse and consistency (0.25 each)."""
    f = _check_presence(ctx, name)
    if f is None:
        return None
    label_ko, label_en = LABELS_KO[name], LABELS_EN[name].lower()
    matches = find_all_bigo(f.value)
    if _has_reason(f.value, [(m.start, m.end) for m in matches]):
        ctx.field_points += FIELD_POINTS
    elif f.label == "sentence":  # read from prose: quote the sentence that gave the Big-O
        ctx.add("error", "no_reason", name, f.line,
                f"문제 {ctx.k}: {label_ko}에 이유가 없습니다. {f.line}행 \"{_excerpt(f.raw, f.value)}\"에서 "
                f"{particle(label_ko, '를')} {particle(f.value, '로')} 읽었지만 왜 그런지가 없습니다. "
                "같은 문장이나 다음 문장에 "
                f"이유를 덧붙이세요 (예: '… {_REASON_EXAMPLE[name][1]} 때문이다').",
                f"Problem {ctx.k}: the {label_en} has no reason: "
                f"line {f.line} \"{_excerpt(f.raw, f.value)}\" "
                f"gives it as {f.value} but not why; add the reason in that sentence or the next "
                f"(e.g. '... because {_REASON_EXAMPLE[name][0]}').")
    else:
        ctx.add("error", "no_reason", name, f.line,
                f"문제 {ctx.k}: {label_ko}에 이유가 없습니다. Big-O 뒤에 왜 그런지 한 줄을 덧붙이세요 "
                f"(예: '{_REASON_EXAMPLE[name][2]}').",
                f"Problem {ctx.k}: the {label_en} has no reason; add one line after the Big-O saying why "
                f"(e.g. '{_REASON_EXAMPLE[name][0]}').")
    if not matches:
        ctx.add("error", "no_bigo", name, f.line,
                f"문제 {ctx.k}: {label_ko} '{_short(f.value)}'에서 Big-O를 찾지 못했습니다. "
                "O(...) 형태로 쓰세요 "
                "(예: n^2가 아니라 O(n^2)).",
                f"Problem {ctx.k}: no Big-O found in the {label_en} '{_short(f.value)}'; write it as O(...), "
                "e.g. O(n^2) rather than n^2.")
        return None
    parsed: list[Complexity] = []
    read: list[Quote] = []  # what each parsed Big-O was read from: messages quote that, never a rendering
    for m in matches:
        try:
            parsed.append(parse(m.written))  # as written: LaTeX reads as plain, positions stay the student's
            read.append(Quote(m.written, f.line_of(m.written)))
        except ParseError as e:
            if not parsed and m is matches[0]:
                ctx.add("error", "bad_bigo", name, f.line_of(m.written),
                        f"문제 {ctx.k}: {label_ko} {_quoted(m.written, '를')} 읽지 못했습니다: {e.message} "
                        f"({e.position + 1}번째 글자).",
                        f"Problem {ctx.k}: could not read the {label_en} '{m.written}': {e.message} "
                        f"(character {e.position + 1}).")
    if not parsed:
        return None
    _award(ctx, name, BIGO_PARSE_POINTS)
    ctx.quotes[name] = read[0]
    held = _held_back(ctx, name, problem, f, parsed[0], read[0])
    if held or problem is None or _held_to_code(ctx, name, problem, parsed, read[0]):
        _award(ctx, name, BIGO_CONSISTENT_POINTS)
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
            f.message_en += f" (Read from your code: {p.function} could not be measured, {found.why[0]}.)"
            f.message_ko += f" (코드를 읽고 판단했습니다: {p.function} 측정 불가, {found.why[1]}.)"
        return held
    ctx.held_by[name] = "measured"
    if judged.verdict == costmeter.FITS:
        return True
    label_ko, label_en = LABELS_KO[name], LABELS_EN[name].lower()
    numbers_en, numbers_ko = costmeter.shown(judged, found)
    ran_ko = f"{particle(p.function or '', '을')} 입력을 키워 가며 실행해 세어"
    like = f"O({judged.grows_like})" if judged.grows_like else None
    if judged.verdict == costmeter.BETWEEN:
        ctx.add(UNSURE, "unsure_measured", name, quote.line,
                f"문제 {ctx.k}: {ran_ko} 본 결과({numbers_ko})가 {label_ko} {particle(quote.ko, '와')} "
                f"맞는지 분명하지 않습니다. {TA_KO}",
                f"Problem {ctx.k}: {p.function}, run on growing inputs and counted ({numbers_en}), neither "
                f"clearly fits nor clearly contradicts the {label_en} {quote.en}. {TA_EN}")
        return True
    grows_en = f"they grow like {like}, faster than {quote.written} allows" if like else (
        f"they grow faster than {quote.written} allows")
    grows_ko = f"{like}처럼 늘어나 {particle(quote.written, '이')} 허용하는 것보다 빠릅니다" if like else (
        f"{particle(quote.written, '이')} 허용하는 것보다 빠르게 늘어납니다")
    ctx.add("warning", "complexity_inconsistent", name, quote.line,
            f"문제 {ctx.k}: {label_ko} {particle(quote.ko, '은')} 코드와 맞지 않습니다. {ran_ko} 보니 "
            f"{numbers_ko}: {grows_ko}. 코드의 반복 횟수, 재귀 깊이, 배열 크기를 다시 세어 보세요.",
            f"Problem {ctx.k}: your code does not meet the {label_en} {quote.en}. {p.function}, run on "
            f"growing inputs and counted: {numbers_en}; {grows_en}. Recount the loop iterations, recursion "
            "depth and array sizes of your code.")
    return False


# An amortized or average bound is not a worst case: whether it is right depends on what is averaged over.
_AMORTIZED = CUE["amortized"]


def _held_back(ctx: _Ctx, name: str, problem: Problem | None, f: Field, claim: Complexity,
               quote: Quote) -> bool:
    """Whether the claim is a TA's to judge rather than the catalog's: an amortized or average bound, or
    a variable neither the problem, the code nor the log defines ('O(b)'). Unsure, no point taken."""
    label_ko, label_en = LABELS_KO[name], LABELS_EN[name].lower()
    if _AMORTIZED.search(f.value):
        ctx.add(UNSURE, "unsure_amortized", name, quote.line,
                f"문제 {ctx.k}: {label_ko} {particle(quote.ko, '은')} 분할 상환(평균) 복잡도입니다. "
                "무엇에 대한 "
                f"평균인지에 따라 맞을 수도 틀릴 수도 있습니다. {TA_KO}",
                f"Problem {ctx.k}: the {label_en} {quote.en} is an amortized (average) bound; "
                "whether it holds "
                f"depends on what it is averaged over. {TA_EN}")
        return True
    if problem is None:
        return False
    undefined = sorted(v for v in claim.variables if v not in _known_variables(ctx, problem)
                       and not _defined(v, _entry_text(ctx.entry)))
    if not undefined:
        return False
    said = ", ".join(undefined)
    ctx.add(UNSURE, "unsure_undefined_variable", name, quote.line,
            f"문제 {ctx.k}: {label_ko} {particle(quote.ko, '의')} 변수 "
            f"{said}{'가' if said[-1].isalpha() else '이'} "
            f"무엇인지 기록에 없습니다 (이 문제에서 {problem.variables_ko or 'n은 입력 크기'}). {TA_KO}",
            f"Problem {ctx.k}: the {label_en} {quote.en} uses {said}, which the log does not define "
            "(for this "
            f"problem, {problem.variables_en or 'n is the input size'}). {TA_EN}")
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
    return bool(re.search(rf"(?<![\w(]){v}\s*(?:=|:|is\b|are\b|means\b|denotes\b|stands\s+for\b|"
                          rf"(?:은|는|이|가|란)\s)", text, re.I))


def _award(ctx: _Ctx, name: str, points: float) -> None:
    if name == "time":
        ctx.time_points += points
    else:
        ctx.space_points += points


@dataclass(frozen=True)
class Quote:
    """A Big-O exactly as the student wrote it, and the line it is on."""

    written: str
    line: int

    @property
    def en(self) -> str:
        return f'"{self.written}" (line {self.line})'

    @property
    def ko(self) -> str:
        return f'{self.line}행의 "{self.written}"'  # a particle after it follows the Big-O, not the line


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
        label_ko, label_en = LABELS_KO[name], LABELS_EN[name].lower()
        others = [a for a in pool if a not in holding]
        yes_ko, no_ko = (", ".join(a.name_ko for a in x) for x in (holding, others))
        yes_en, no_en = (", ".join(a.name_en for a in x) for x in (holding, others))
        ctx.add(UNSURE, "unsure_approach", name, quote.line,
                f"문제 {ctx.k}: {label_ko} {particle(quote.ko, '은')} {yes_ko}에는 맞지만 {no_ko}에는 "
                f"맞지 않습니다. 기록에서 어느 방법인지 알 수 없었습니다. {TA_KO}",
                f"Problem {ctx.k}: the {label_en} {quote.en} holds for the {yes_en} but not for the {no_en}, "
                f"and the reader could not tell which one the log describes. {TA_EN}")
        return True
    if holding:
        return True
    if name == "time":
        best_approach = p.best_time()
        best = best_approach.time_bigo
    else:
        best, best_approach = p.best_space()
    known = [k for a in p.described for k in _bounds(name, a)]
    mine = parsed[0]
    order = compare(mine, best)
    label_ko, label_en = LABELS_KO[name], LABELS_EN[name].lower()
    line, said_en, said_ko = quote.line, quote.en, quote.ko  # the span read and its line: misreadings show
    if order is None:
        ctx.add("info", "incomparable", name, line,
                f"문제 {ctx.k}: {label_ko} {particle(said_ko, '를')} 기준 {particle(str(best), '와')} "
                "비교하지 못했습니다(변수가 다름). "
                f"기준에서 {p.variables_ko or '변수는 입력 크기'}.",
                f"Problem {ctx.k}: could not compare the {label_en} {said_en} with the reference {best}: the "
                f"variables differ. In the reference, {p.variables_en or 'the variable is the input size'}.")
        return True
    known_list = ", ".join(sorted({str(k) for k in known}))
    if order > 0:
        ctx.add("warning", "complexity_worse", name, line,
                f"문제 {ctx.k}: {p.label}의 {label_ko}를 {particle(said_ko, '로')} 적었습니다. "
                f"가장 좋은 방법은 {best_approach.name_ko}로 {best}입니다. 분석을 다시 하거나, 정말 그렇다면 "
                "LeetCode 제한에서 시간 초과가 날 수 있습니다 "
                f"(알려진 방법: {known_list}).",
                f"Problem {ctx.k}: you wrote the {label_en} of {p.label} as {said_en}: the best known is "
                f"{best} with {best_approach.name_en}. Recheck the analysis; a solution that really is that "
                f"slow likely times out on LeetCode's limits (known approaches: {known_list}).")
    else:
        ctx.add("warning", "complexity_inconsistent", name, line,
                f"문제 {ctx.k}: {p.label}의 {label_ko}를 {particle(said_ko, '로')} 적었는데, "
                f"가장 좋은 알려진 {best}"
                f"({best_approach.name_ko})보다도 좋습니다. "
                "새 알고리즘보다는 분석 실수일 가능성이 큽니다: "
                "반복 횟수, 재귀 깊이, 배열 크기를 다시 세어 보세요.",
                f"Problem {ctx.k}: you wrote the {label_en} of {p.label} as {said_en}, better than the best "
                f"known {best} ({best_approach.name_en}): inconsistent, an analysis slip is likelier than a "
                "new algorithm; "
                "recount the loop iterations, recursion depth and array sizes.")
    return False


def _against_named(ctx: _Ctx, name: str, p: Problem, named: tuple[Approach, ...], parsed: list[Complexity],
                   quote: Quote, from_code: bool) -> bool:
    """A claim that does not hold for the approach the log names (and the code implements)."""
    approach = named[0]
    bound = _bounds(name, approach)[0]
    order = compare(parsed[0], bound)
    label_ko, label_en = LABELS_KO[name], LABELS_EN[name].lower()
    if order is None:
        return True  # other variables: the incomparable case is the reference's to explain, not a fault
    other = next((a for a in p.approaches if a not in named and _holds(name, parsed, a)), None)
    by_en = "your log and code describe" if from_code else "your log describes"
    by_ko = "기록과 코드가 설명하는" if from_code else "기록이 설명하는"
    shown = _code_line(ctx, p, approach) if from_code else None
    if shown is not None:  # the line of the student's code that shows the approach
        where = f"leetcode.py line {shown[0]}: `{_short(shown[1], 70)}`"
        where_ko = f"leetcode.py {shown[0]}행: `{_short(shown[1], 70)}`"
        in_log = approach in identify(p, _approach_text(ctx.entry))
        by_en = f"your log and code ({where}) describe" if in_log else f"your code ({where}) describes"
        by_ko = f"기록과 코드({where_ko})가 설명하는" if in_log else f"코드({where_ko})가 보여 주는"
    whose_en, whose_ko = ("of your code", "코드의") if shown is not None else (
        "of the approach you describe", "적은 방법에 맞게")
    also_en = f"; {quote.written} is the bound of the {other.name_en}, a different approach" if other else ""
    also_ko = f" {particle(quote.written, '은')} 다른 방법인 {other.name_ko}의 복잡도입니다." if other else ""
    ctx.add("warning", "complexity_worse" if order > 0 else "complexity_inconsistent", name, quote.line,
            f"문제 {ctx.k}: {by_ko} {p.label} 풀이는 {approach.name_ko}이고, 그 {label_ko}는 {bound}입니다. "
            f"{particle(quote.ko, '와')} 맞지 않습니다.{also_ko} {whose_ko} "
            "반복 횟수, 재귀 깊이, 배열 크기를 다시 세어 보세요.",
            f"Problem {ctx.k}: {by_en} {p.label} solved with the {approach.name_en}, whose {label_en} is "
            f"{bound}, not {quote.en}{also_en}. Recount the loop iterations, recursion depth and array sizes "
            f"{whose_en}.")
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
        ctx.add("error", "bad_solved", "solved", f.line,
                f"문제 {ctx.k}: 풀이 방식 {_quoted(f.value, '이')} 분명하지 않습니다. "
                "'혼자' 또는 '풀이를 보고' 중 "
                "하나만 쓰세요.",
                f"Problem {ctx.k}: 'solved' reads '{_short(f.value)}'; write one of 'alone' or "
                "'after reading "
                "a solution'.")
        return None
    redo = ctx.entry.fields.get("redo_date")
    date = _parse_date(redo.value) if redo is not None and redo.filled else None
    if redo is not None and redo.filled and date is None:
        ctx.add("error" if how == "solution" else "warning", "bad_date", "redo_date", redo.line,
                f"문제 {ctx.k}: 다시 풀 날짜 {_quoted(redo.value, '가')} YYYY-MM-DD 형식의 날짜가 아닙니다.",
                f"Problem {ctx.k}: the redo date '{_short(redo.value)}' is not a date in YYYY-MM-DD.")
    if how == "solution" and date is None and (redo is None or not redo.filled):
        # A date written on the "solved" line itself ("after a solution, redo 2026-10-05") counts too.
        date = _parse_date(f.value)
    if how == "solution" and date is None:
        if redo is None or not redo.filled:
            ctx.add("error", "redo_date_missing", "redo_date", ctx.line_for("redo_date"),
                    f"문제 {ctx.k}: 풀이를 보고 풀었다면 다시 풀 날짜(YYYY-MM-DD)를 꼭 적으세요.",
                    f"Problem {ctx.k}: solved after reading a solution, so a redo date (YYYY-MM-DD) is "
                    "required.")
        return how
    ctx.field_points += FIELD_POINTS
    return how


def _check_consistency(ctx: _Ctx, time: Complexity | None, space: Complexity | None) -> None:
    held = {f.field for f in ctx.findings if f.problem == ctx.k and f.code in _HELD_BACK}
    if time is not None and space is not None and not held and compare(space, time) == 1:
        t, sp = ctx.quotes["time"], ctx.quotes["space"]
        ctx.add("warning", "space_exceeds_time", "space", sp.line,
                f"문제 {ctx.k}: 공간 {particle(sp.ko, '이')} 시간 {t.ko}보다 큽니다. "
                "메모리를 채우는 데도 시간이 들므로 "
                "둘 중 하나가 잘못됐을 가능성이 큽니다.",
                f"Problem {ctx.k}: space {sp.en} exceeds time {t.en}; filling memory takes time too, so one "
                "of the two is likely off.")
    for dup in ctx.entry.duplicates:
        first = ctx.entry.fields[dup.name]
        repr_label = f"'{LABELS_KO[dup.name]}'"
        ctx.add("warning", "duplicate_field", dup.name, dup.line,
                f"문제 {ctx.k}: {particle(repr_label, '이')} 두 번 있습니다 "
                f"({first.line}행, {dup.line}행). "
                "첫 번째만 채점합니다.",
                f"Problem {ctx.k}: '{LABELS_EN[dup.name]}' appears twice "
                f"(lines {first.line} and {dup.line}); "
                "the first is graded.")


_HELD_BACK = ("unsure_amortized", "unsure_undefined_variable")


def _review_entry(
    slot: int, entry: ProblemEntry, findings: list[Finding], sources: dict[str, str] | None = None,
    measure: Measure | None = None,
) -> tuple[_Ctx, ProblemReview, Problem | None]:
    ctx = _Ctx(slot, entry, findings)
    ctx.sources, ctx.measure = sources, measure
    problem = _review_problem_field(ctx)
    difficulty = _review_difficulty(ctx, problem)
    _review_text_fields(ctx)
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


def _quoted(text: str, josa: str) -> str:
    """'text' (shortened) with the particle its last sound takes: '다음 주 월요일'이, '2026-13-01'이."""
    return particle(f"'{_short(text)}'", josa)


def _short(text: str, limit: int = 60) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _zero(findings: list[Finding], code: str, ko: str, en: str, line: int | None = None) -> LogReview:
    findings.append(Finding("error", code, None, None, line, ko, en))
    breakdown = [BreakdownItem(f"problem {k}", 0.0, PER_PROBLEM) for k in range(1, PROBLEMS + 1)]
    return LogReview(0.0, MAX_POINTS, breakdown, findings)


def review_file(path: str | Path, practice: dict[str, str] | None = None) -> LogReview:
    """Review LEETCODE_LOG.md at ``path``; a missing file scores 0 with a finding."""
    p = Path(path)
    if not p.is_file():
        return _zero([], "missing_file",
                     f"{p.name} 파일이 없습니다. exercises/LEETCODE_LOG.md 템플릿을 채워 제출하세요.",
                     f"{p.name} was not found; fill in the exercises/LEETCODE_LOG.md template and submit it.")
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
        return _zero(findings, "empty_log", "LEETCODE_LOG.md가 비어 있습니다. 템플릿의 칸을 채우세요.",
                     "LEETCODE_LOG.md is empty; fill in the template's fields.")
    parsed = parse_log(text)
    if not parsed.problems and _has_words(text):
        return _unplaced(text)
    if not parsed.problems:
        return _zero(findings, "no_fields",
                     "문제 구역이나 항목 이름(문제, 난이도, 시간복잡도 ...)을 하나도 찾지 못했습니다. "
                     "템플릿 형식을 "
                     "따라 주세요.",
                     "No problem section or field label (Problem, Difficulty, Time complexity, ...) "
                     "was found; "
                     "please follow the template's layout.")
    if parsed.filled_fields == 0:
        return _zero(findings, "template_untouched",
                     "LEETCODE_LOG.md가 아직 빈 템플릿입니다. 채운 칸이 하나도 없습니다.",
                     "LEETCODE_LOG.md is still the blank template: no field has been filled in.",
                     parsed.problems[0].line)
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
    body = _PLACEHOLDER.sub(" ", body)
    return len(re.findall(r"[^\W\d_]{2,}", body)) >= UNPLACED_WORDS


def _unplaced(text: str) -> LogReview:
    """Text the reader could not place in any problem or field: never a sure 0, a TA reads it. The
    points stay provisionally, and each part of each problem is one unsure finding (one TA check)."""
    findings: list[Finding] = []
    breakdown: list[BreakdownItem] = []
    for k in range(1, PROBLEMS + 1):
        for name in _UNPLACED_FIELDS:
            findings.append(Finding(
                UNSURE, "unsure_unplaced", k, name, None,
                f"문제 {k}: 기록의 글을 어느 문제·칸에도 놓지 못했습니다 ('{LABELS_KO[name]}' 포함). "
                f"형식을 알아보지 못했을 뿐 내용이 없다고 확신할 수 없습니다. {TA_KO}",
                f"Problem {k}: the reader could not place any of the log's text in a problem or field "
                f"('{LABELS_EN[name]}' among them); it cannot be sure the log lacks it, only that it did not "
                f"recognise the layout. {TA_EN}"))
        breakdown += [
            BreakdownItem(f"problem {k}: fields present and well formed", 2.0, 2.0),
            BreakdownItem(f"problem {k}: time complexity parses and matches a known approach",
                          _BIGO_POINTS, _BIGO_POINTS),
            BreakdownItem(f"problem {k}: space complexity parses and matches a known approach",
                          _BIGO_POINTS, _BIGO_POINTS),
            BreakdownItem(f"problem {k}: task fit (Medium, Math, distinct)", 0.0, 0.0),
        ]
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
            findings.append(Finding(
                "error", "missing_problem", slot, None, None,
                f"문제 {slot}의 기록이 없습니다. 과제는 문제 2개입니다.",
                f"There is no entry for problem {slot}; the task asks for two problems."))
            breakdown.append(BreakdownItem(f"problem {slot}", 0.0, PER_PROBLEM))
            continue
        first = len(findings)
        ctx, pr, problem = _review_entry(slot, entries[slot - 1], findings, sources, measure)
        measured.update(ctx.measured)
        _settle(ctx, findings[first:])
        if problem is not None and problem.number in seen:
            ctx.add("warning", "duplicate_problem", "problem", ctx.line_for("problem"),
                    f"{particle(f'문제 {slot}', '은')} "
                    f"{particle(f'문제 {seen[problem.number]}', '와')} 같은 {problem.label}입니다. "
                    "서로 다른 문제 2개를 "
                    f"풀어야 합니다 (−{TASK_FIT_PENALTY}점).",
                    f"Problem {slot} is the same as problem {seen[problem.number]} ({problem.label}); "
                    "the task "
                    f"asks for two different problems (−{TASK_FIT_PENALTY}).")
            ctx.penalty = TASK_FIT_PENALTY
        if problem is not None:
            seen.setdefault(problem.number, slot)
            linked += _link(ctx, problem, practice, findings)
            _check_coverage(ctx, problem, unsolved)
        pr.points = _items(ctx, breakdown)
        reviews.append(pr)
    if len(entries) > PROBLEMS:
        findings.append(Finding(
            "info", "extra_problems", None, None, entries[PROBLEMS].line,
            f"문제가 {len(entries)}개 있습니다. 앞의 {PROBLEMS}개만 채점합니다.",
            f"The log has {len(entries)} problems; the first {PROBLEMS} are graded."))
    points = round(sum(b.points for b in breakdown), 4)
    return LogReview(points, MAX_POINTS, breakdown, findings, linked, reviews, measured)


# What an unsure check keeps: the points its sure "error" would have taken, per field.
_UNSURE_POINTS = {
    "missing_field": {"time": (FIELD_POINTS, BIGO_PARSE_POINTS + BIGO_CONSISTENT_POINTS),
                      "space": (FIELD_POINTS, BIGO_PARSE_POINTS + BIGO_CONSISTENT_POINTS)},
    "no_reason": {},
    "no_bigo": {"time": (0.0, BIGO_PARSE_POINTS + BIGO_CONSISTENT_POINTS),
                "space": (0.0, BIGO_PARSE_POINTS + BIGO_CONSISTENT_POINTS)},
}


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
        field_pts, bigo_pts = _UNSURE_POINTS[f.code].get(f.field, (FIELD_POINTS, 0.0))
        if f.code == "no_bigo":  # its field point was judged on its own (the reason)
            field_pts = 0.0
        ctx.field_points += field_pts
        if bigo_pts:
            _award(ctx, f.field, bigo_pts)
        f.severity = UNSURE
        f.code = f"unsure_{f.code}"
        name_en, name_ko = LABELS_EN[f.field], LABELS_KO[f.field]
        f.message_en = (f"Problem {ctx.k}: the reader is not sure about '{name_en}' ({saw}). {TA_EN}")
        f.message_ko = (f"문제 {ctx.k}: '{name_ko}' 칸을 채점기가 확실히 읽지 못했습니다. {TA_KO}")


_NAMED = {"time": CUE["named_time"], "space": CUE["named_space"]}


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
                             and _NAMED[name].search(f.raw)):
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
    earned = ctx.field_points + ctx.time_points + ctx.space_points
    penalty = min(ctx.penalty, earned)
    k = ctx.k
    breakdown += [
        BreakdownItem(f"problem {k}: fields present and well formed", round(ctx.field_points, 4), 2.0),
        BreakdownItem(f"problem {k}: time complexity parses and matches a known approach",
                      round(ctx.time_points, 4), BIGO_PARSE_POINTS + BIGO_CONSISTENT_POINTS),
        BreakdownItem(f"problem {k}: space complexity parses and matches a known approach",
                      round(ctx.space_points, 4), BIGO_PARSE_POINTS + BIGO_CONSISTENT_POINTS),
        BreakdownItem(f"problem {k}: task fit (Medium, Math, distinct)",
                      -round(penalty, 4) if penalty else 0.0, 0.0),
    ]
    return round(earned - penalty, 4)


def _link(
    ctx: _Ctx, problem: Problem, practice: dict[str, str], findings: list[Finding]
) -> list[LinkedFailure]:
    if not problem.function or problem.function not in practice:
        return []
    failure = practice[problem.function]
    wrong = ctx.entry.fields.get("what_went_wrong")
    line = wrong.line if wrong is not None else ctx.entry.line
    said = wrong.value if wrong is not None else ""
    ctx.add("info", "practice_failure", "what_went_wrong", line,
            f"문제 {ctx.k}: 연습 함수 {particle(problem.function, '이')} 실패합니다: {failure}. '틀린 이유'"
            f"({line}행)에 이 경우가 적혀 있는지 확인해 보세요.",
            f"Problem {ctx.k}: your practice {problem.function} fails: {failure}. Does 'what went wrong' "
            f"(line {line}) mention this case?")
    return [LinkedFailure(ctx.k, problem.function, failure, line, said)]



def _check_coverage(ctx: _Ctx, problem: Problem, unsolved: dict[str, str] | None) -> None:
    """A logged problem the practice code leaves unsolved, with no word on why: name both sides."""
    fn = problem.function
    if unsolved is None or fn is None or fn not in unsolved or says_why(_entry_text(ctx.entry)):
        return
    how_en = ("still raises NotImplementedError" if unsolved[fn] == "stub"
              else "is not defined there")
    how_ko = "아직 NotImplementedError를 냅니다" if unsolved[fn] == "stub" else "정의되어 있지 않습니다"
    ctx.add("error", "not_in_code", "problem", ctx.line_for("problem"),
            f"문제 {ctx.k}: 기록은 {particle(problem.label, '을')} 다루는데 leetcode.py는 "
            f"{particle(fn, '을')} 풀지 않았습니다({particle(fn, '이')} {how_ko}). "
            "기록은 연습 코드로 푼 두 문제를 다룹니다. 이 문제를 LeetCode에서만 "
            "풀었다면 기록에 그렇게 적으세요 (예: 'LeetCode에서만 풀었음').",
            f"Problem {ctx.k}: the log covers {problem.label}; leetcode.py leaves {fn} unsolved ({fn} "
            f"{how_en}). The log covers the two problems your practice code solves; if you solved this "
            "one on LeetCode only, say so in the log (e.g. 'solved on LeetCode only').")


def _entry_text(entry: ProblemEntry) -> str:
    """Everything written under a problem: its fields and its prose."""
    parts = [f.raw for f in (*entry.fields.values(), *entry.duplicates)]
    return "\n".join([entry.heading, *parts, *(t for _, t in entry.extra)])
