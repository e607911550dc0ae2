"""A hand-written LEETCODE_LOG.md's problems and labelled fields, with line numbers: the blocks are tree.py's,
the words vocab.toml's; nothing here judges content (review.py does)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from difflib import get_close_matches
from functools import lru_cache
from itertools import groupby

from .bigo import find_all_bigo
from .catalog import ProblemMatch, find_problem
from .prose import BULLET, problem_mention, read_fields, split_sentences, unbracketed, word_complexities
from .tree import Line, read
from .values import classify_solved, parse_difficulty
from .vocab import CUE, FIELDS, FORM, LABELS_EN, ORDINALS, SYNONYMS, WORDS

__all__ = ["FIELDS", "REASON_LABEL", "REQUIRED", "Field", "LogParse", "ProblemEntry", "clean_value",
           "match_label", "parse_log", "unlabelled"]

# redo_date is required only when the problem was solved after reading a solution.
REQUIRED = FIELDS[:-1]
Claim = tuple[str, str, str]  # a field a line holds: (field name, value, label as written)


def _norm(label: str) -> str:
    """A label as compared: '**Time:**' -> 'time' (its colon too, where the label ends)."""
    return FORM["label_marks"].sub("", label.lower()).rstrip(":：")


_LABEL_INDEX = {_norm(s): name for name, syns in SYNONYMS.items() for s in syns}
_TAG = CUE["tag"]
# Fields answered in a word or two on the label's line: the lines under such an answer are not part of it.
_ONE_LINE = ("problem", "difficulty", "solved", "redo_date")
_APPROACHES = ("first_idea", "final_approach")  # what a label naming both approaches holds, in order
REASON = "reason"  # a table column the reader knows by what it holds: the reason for the complexities


@dataclass
class Field:
    """One labelled value. ``line`` is the 1-based line of its label."""

    name: str
    value: str  # placeholders and comments removed; "" when unfilled
    line: int
    label: str = ""
    raw: str = ""
    lines: list[tuple[int, str]] = field(default_factory=list)  # (line number, raw text) of the value
    alone: bool = False  # its label on a line of its own ('# Mistakes'), the answer under it

    @property
    def filled(self) -> bool:
        return bool(self.value)

    def line_of(self, needle: str) -> int:
        """The line holding ``needle`` (e.g. a Big-O), or the label's line."""
        return next((n for n, text in self.lines if needle and needle in text), self.line)


@dataclass
class ProblemEntry:
    index: int  # 1-based, from the heading when it has a number
    heading_line: int | None  # None when the log has no per-problem headings
    fields: dict[str, Field] = field(default_factory=dict)
    heading: str = ""
    extra: list[tuple[int, str]] = field(default_factory=list)  # prose that is not a field
    duplicates: list[Field] = field(default_factory=list)
    implicit: bool = False  # started by a sentence naming the problem, not by a heading or a label
    row: bool = False  # a row of a table with a row per problem
    mention: int | None = None  # the catalog number that sentence named
    sentences: list[tuple[int, str]] = field(default_factory=list)  # the prose as read, for quoting
    approaches: list[int] = field(default_factory=list)  # the lines of its 'Approach 1: …' headings

    def get(self, name: str) -> Field | None:
        return f if (f := self.fields.get(name)) is not None and f.filled else None

    @property
    def line(self) -> int:
        return self.heading_line or min((f.line for f in self.fields.values()), default=1)

    @property
    def named(self) -> ProblemMatch:
        """The problem the entry names, in its 'problem' field, else its heading."""
        return find_problem(f.value if (f := self.get("problem")) is not None else self.heading)


@dataclass
class LogParse:
    problems: list[ProblemEntry]

    @property
    def filled_fields(self) -> int:
        return sum(f.filled for p in self.problems for f in p.fields.values())


def clean_value(raw: str) -> str:
    """Drop the template's ``<...>`` placeholders, TODO markers, comments and the options not chosen (an
    unticked box, struck-out words); "" for a value of none."""
    for cue in ("comment", "placeholder", "todo", "not_chosen", "chosen_box"):
        raw = CUE[cue].sub("", raw)
    text = FORM["answer_mark"].sub("", "\n".join(line.rstrip() for line in raw.strip().splitlines()).strip())
    # '-', 'N/A', and one with an aside: 'n/a (solved alone)', '필요 없음 (혼자 풂)'
    said = {FORM["empty_marks"].sub("", t.lower()).strip(".:,;") for t in (text, FORM["gloss"].sub("", text))}
    return "" if (said - {""}) & WORDS["empty"] else text


# ---- labels
def match_label(label: str) -> str | None:
    """'**문제 (Problem):**' -> 'problem'; 'Time/Space' -> the first field it names."""
    return next(iter(_label_fields(label)), None)


def _label_fields(label: str) -> list[str]:
    """The fields a label names, in order: 'Time & space' -> ['time', 'space'], '시간 (Time)' -> ['time']."""
    text = _TAG.sub("", label)
    joined = [_named(p) for p in CUE["label_join"].split(FORM["gloss"].sub(" ", text))]  # a blank part: none
    if len(joined) > 1 and all(joined):
        return [n for n in dict.fromkeys(joined) if n]
    return [name] if (name := _named(text)) else []


def _named(text: str) -> str | None:
    """The field a label (less its tags) names, whole or by a part ('문제 (Problem)', 'Time/Space'); not by a
    list's part: '50. Pow(x, n), Medium, First' is a problem and its difficulty."""
    parts = [text] if "," in FORM["gloss"].sub("", text) else [text, *FORM["label_parts"].split(text)]
    return next((name for part in parts if (name := _LABEL_INDEX.get(_norm(part)) or _LABEL_INDEX.get(
        FORM["label_particle"].sub("", _norm(part))))), None) or _misspelt(_norm(text))


_LONG_LABELS = [s for s in _LABEL_INDEX if len(s) >= 8]


@lru_cache(maxsize=4096)
def _misspelt(label: str) -> str | None:
    """A long label typed with a slip ('Tiem complexity', 'Space complexcity', 'Difficult'): the field of the
    known labels it is nearest, where they are one field's only; a label of letters only, whole."""
    if not (8 <= len(label) <= 24 and label.isalpha()):
        return None
    near = {_LABEL_INDEX[s] for s in get_close_matches(label, _LONG_LABELS, 3, 0.88)}
    return near.pop() if len(near) == 1 else None


_FORMS = ("bold_label", "arrow_label", "colon_label", "particle_label", "question_label", "bracket_label",
          "equals_label", "dash_label", "emoji_label")


def _label_line(line: str, forms: tuple[str, ...] = _FORMS) -> list[Claim]:
    """The fields a line starting with a label holds ('**Time:** …', '| Time | …', 'Time -> …'), or []."""
    text = BULLET.sub("", line.strip(), count=1)
    text = FORM["letter_label"].sub(lambda m: f"{LABELS_EN[m.lastgroup or 'time']}: ", text)  # 'T: O(…)'
    if text.startswith("|"):
        label, *cells = [c.strip() for c in text.strip("|").split("|")]
        named = match_label(label) if cells else None  # never a separator row's '---': no label
        return claims(named, " | ".join(cells).strip(), label) if named else []
    # the label's forms, in order ('**Time:** …', 'Approach -> …', 'Time: …', 'First idea는 …', '… ? …',
    # '(난이도) Medium', 'Time = …', '난이도 - Medium', '⏱ O(log n)'); a question is the label of the one
    # field it asks about ('What was your first idea?'); a Korean particle only before an answer, an arrow
    # only outside a pair's label, an emoji only before a line that is no label line ('✅ Solved alone')
    for form in forms:
        if (m := CUE[form].match(text)) is None:
            continue
        rest = m["rest"] or ""
        name = match_label(m["label"]) or (_asked(m["label"]) if form == "question_label" else None)
        if name and not (form == "particle_label" and not _answers(name, rest) or form == "arrow_label"
                         and _pair(text) or form == "emoji_label" and _label_line(rest)):
            return claims(name, rest.strip().lstrip("*_ :：").strip(), m["label"].strip())
    # 'Solved alone.' and '- 혼자 풀었어' are whole answers, not empty labels; 'I solved LeetCode 50,
    # Pow(x, n). I first ...' is prose, not the answer to 'Solved'
    named = match_label(text)
    name = named if len(text) <= 40 and not FORM["sentence_not_label"].search(text) else None
    sentence = CUE["solved_sentence"].match(text) and named in (None, "solved") and _norm(
        text) not in WORDS["solved_alone"]
    if (name == "solved" or sentence) and classify_solved(text) is not None and len(text) <= 120:
        return claims("solved", text, "Solved")
    return claims(name, "", text) if name else []  # a label alone, not a sentence with 'time' in it


def _asked(question: str) -> str | None:
    """The one field a question asks about ('Did you solve it alone?' -> 'solved'), else None."""
    said = set(read_fields(split_sentences([(0, question)])))
    return said.pop() if len(said) == 1 else None


def claims(name: str, rest: str, label: str) -> list[Claim]:
    """A label line's fields: a second label ('… Difficulty: Medium') starts its own; then ``_share``."""
    lead = CUE["colon_label"].match(rest)
    inner = match_label(lead["label"]) if lead and _norm(label) in WORDS["both_approaches"] else None
    if lead and inner in _APPROACHES:  # '접근: 처음: …' then '최종: …': the pair's label
        return claims(inner, lead["rest"].strip(), lead["label"].strip())
    pieces: list[Claim] = []
    at = 0
    for m in sorted([*CUE["inline_label"].finditer(rest), *CUE["inline_particle"].finditer(rest)],
                    key=re.Match.start):
        other = match_label(m["label"])
        if m.start() < at or other in (None, name) or not _answers(other, rest[m.end():]):
            continue
        pieces.append((name, rest[at:m.start()].strip(), label))
        at, name, label = m.end(), other, m["label"].strip("*_ ")
    pieces.append((name, rest[at:].strip(), label))
    if {p[0] for p in pieces} == {"time", "space"} and len(pieces) == 2:
        pieces[0] = _shared_reason(pieces[0], pieces[1][1])  # 'T: O(log n) / S: O(1) — why': why for both
    return [claim for piece in pieces for claim in _share(*piece)]


def _shared_reason(first: Claim, second: str) -> Claim:
    """The first of two complexities on a line, given the reason after the second when it has none."""
    name, value, label = first
    own, after = find_all_bigo(value), find_all_bigo(second)
    if len(own) != 1 or len(after) != 1 or FORM["pair_joint"].fullmatch(value[own[0].end:]) is None:
        return first
    return name, f"{own[0].written} {second[after[0].end:].strip()}".strip(), label


def _answers(name: str, value: str) -> bool:
    """Whether ``value`` starts like an answer to ``name``: 'Solved: alone, time: 20 min' keeps its time."""
    head = FORM["answer_end"].split(value, maxsplit=1)[0]
    if name in ("time", "space"):  # a Big-O or a complexity in words soon after: 'since n halves, O(log n)'
        return bool(find_all_bigo(value[:80]) or word_complexities(value[:80]))
    if name == "difficulty":
        return parse_difficulty(head) is not None
    return sum(c.isalpha() or c.isdigit() for c in head) >= 2


def _share(name: str, value: str, label: str) -> list[Claim]:
    """A label naming two fields shares its value: 'Time / Space: O(log n) / O(1) — why' (the reason speaks
    for both), '처음 아이디어 → 최종 접근: x → y'."""
    pair = set(names := _label_fields(label)) == {"time", "space"}
    if pair and len(found := find_all_bigo(value)) == 2:
        shared, out = value[found[1].end:].strip(), []
        for field_name, m, end in zip(names, found, (found[1].start, len(value)), strict=True):
            part = value[m.start:end].strip(" ,;/|&")
            alone = FORM["pair_joint"].fullmatch(part[len(m.written):]) is not None
            out.append((field_name, f"{m.written} {shared}" if alone and shared else part, label))
        return out
    # 'O(log n) / constant space', '- / O(1)': the halves say
    halves = _outside_parens(value, FORM["halves"]) if pair else []
    return [*zip(names, halves, (label, label), strict=True)] if len(halves) == 2 else [(name, value, label)]


def _pair(text: str) -> bool:
    """'처음 아이디어 → 최종 접근: x → y' is a pair's label; 'Approach -> 처음: … / 최종: …' an arrow's."""
    m = CUE["colon_label"].match(text)
    return m is not None and len(named := _label_fields(m["label"])) > 1 and not set(named) & {
        match_label(i["label"]) for i in CUE["inline_label"].finditer(m["rest"])}


def split_approaches(value: str) -> tuple[str, str] | None:
    """(first idea, final approach) from one value: '처음: 나눗셈 / 최종: 체', 'brute force -> fast pow'."""
    # '- → 체': the first left empty ('-')
    parts = [clean_value(p) for p in CUE["arrow"].split(" ".join(value.split()))]
    ends = [p for p in (parts[0], parts[-1]) if p]
    if len(parts) >= 2 and ends and all(sum(c.isalpha() for c in p) >= 2 for p in ends):
        return parts[0], " -> ".join(parts[1:])
    said = read_fields(split_sentences([(0, value.replace("\n", " "))]))  # or in sentences, one for each
    return (said["first_idea"].value, said["final_approach"].value) if said.keys() >= {*_APPROACHES} else None


def _outside_parens(text: str, sep: re.Pattern[str]) -> list[str]:
    """``text`` split at ``sep`` where it is not inside parentheses: 'Pow(x, n), Medium' -> 2 parts."""
    seps = (m for m in sep.finditer(unbracketed(text)) if m.end() > m.start())
    cuts = [0, *(i for m in seps for i in m.span()), len(text)]
    return [p for a, b in zip(cuts[::2], cuts[1::2], strict=True) if (p := text[a:b].strip())]


def _record(line: str) -> list[Claim]:
    """One line per problem: '1. 50. Pow(x, n), Medium, First: …, Time: …'; [] for any other line."""
    (_, lead, _), *found = claims("", BULLET.sub("", line, count=1), "")  # the words before the first label
    if len(found) < 2 or _label_line(lead + ":"):
        return []
    head: dict[str, Claim] = {}  # the lead read by what it is: the problem, its difficulty
    for seg in _outside_parens(lead, CUE["record_sep"]):
        if "problem" not in head and (_number(seg) or problem_mention(seg)
                                      or FORM["record_number"].match(seg)):
            head["problem"] = ("problem", seg, "")
        elif "difficulty" not in head and len(seg) <= 24 and parse_difficulty(seg):
            head["difficulty"] = ("difficulty", seg, "")
    return [*head.values(), *found] if head else []


def problem_heading(text: str) -> tuple[int | None, str] | None:
    """('## 문제 1: 50. Pow(x, n)') -> (1, '50. Pow(x, n)'); None if not a problem heading."""
    text = CUE["emoji_label"].sub(r"\g<rest>", text.strip().strip("*_").strip())  # '📌 문제 1: …': 문제 1
    labelled = CUE["labelled_heading"].match(text)
    if labelled and not FORM["slot_number"].match(rest := labelled["rest"]):
        if _number(rest := rest.strip()) or FORM["names_a_problem"].search(rest):
            return None, rest
    if m := next(filter(None, (CUE[f"problem_heading_{k}"].match(text) for k in range(1, 6))), None):
        rest = FORM["heading_gloss"].sub("", text[m.end():]).strip(" :：-—–.").strip()
        return int(m[1]) if m[1].isdigit() else ORDINALS[m[1].lower()], rest
    if find_problem(text).by == "title":  # (a title found is a problem found)
        return None, text
    mention = problem_mention(text)  # 'Day 2 — LeetCode 204': a number said to be a problem's
    return (None, mention[1]) if mention is not None and mention[0] is not None else None


def unlabelled(raw: str) -> str:
    """A line less a label the reader does not know: '- **Complexity:** Since …' -> 'Since …'."""
    body = BULLET.sub("", raw.strip(), count=1)
    if (label := _unknown_label(body)) is None or match_label(label.group().rstrip(":：->→= ")):
        return raw
    return raw[:_indent(raw)] + body[label.end():].lstrip("*_ ")


def _unknown_label(body: str) -> re.Match[str] | None:
    """'Complexity: …', '복잡도 → …', '**Note** → …': a short label (known or not) set off as labels are."""
    m = CUE["unknown_label"].match(body)
    said = m.group().rstrip(":：->→= ").strip("*_ ") if m else ""  # '풀이를 보고 풀었다 → …' is a sentence
    return m if m and len(m.group().split()) <= 4 and not FORM["sentence_not_label"].search(said) else None


# a line's 'Why:' or '이유:' names the reason to come and is none itself (blanks within its line only: a
# value of many lines is not scanned again from each of them)
REASON_LABEL = re.compile(r"(?im)^(?:[^\S\n]|[*_])*(?:" + "|".join(map(re.escape, WORDS["reason_column"]))
                          + r")(?:[^\S\n]|[*_])*(?:[:：]|->|→|=)")


def _reason_label(label: str) -> bool:
    """'Why:', '이유 →', '**Reason**:', a table's '이유' column: a label that names a claim's reason."""
    return _norm(FORM["gloss"].sub("", _TAG.sub("", label.rstrip(":：->→= ")))) in WORDS["reason_column"]


def _indent(raw: str) -> int:
    return len(raw) - len(raw.lstrip())


# ---- the log, line by line
class _Builder:
    def __init__(self) -> None:
        self.problems: list[ProblemEntry] = []
        self.entry: ProblemEntry | None = None
        self.current: Field | None = None
        self.gap = False  # a blank line has followed the open field's answer on its label's line (not alone)

    def open_problem(self, index: int | None, line: int | None, heading: str = "") -> ProblemEntry:
        self.close_field()
        self.entry = ProblemEntry(index or len(self.problems) + 1, line, heading=heading)
        self.problems.append(self.entry)
        return self.entry

    def open_fields(self, found: list[Claim], line: int, raw: str) -> bool:
        """Open a field for each claim of the line; whether there was any."""
        for name, rest, label in found:
            self.close_field()
            entry = self.entry
            # with no headings, a second 'Problem:' label starts the next problem, and so does one that names
            # another problem than its section's heading (front matter over the next problem's heading)
            if entry is None or name == "problem" and entry.fields and (
                    "problem" in entry.fields and (entry.heading_line is None or entry.implicit)
                    or len({_catalogued(entry), _number(rest)} - {None}) == 2):
                self.open_problem(None, None)
            self.current = Field(name, "", line, label.strip().strip("*_").strip(), rest, [(line, raw)],
                                 not clean_value(rest))
            self.gap = False
        return bool(found)

    def add_line(self, line: int, raw: str) -> None:
        if self.current is not None:
            self.gap = self.gap or not raw.strip()
            self.current.lines.append((line, raw))
            if raw.strip() or not self.current.raw.endswith("\n"):  # blank lines in a row read as one
                self.current.raw += "\n" + (raw if raw.strip() else "")
        elif self.entry is not None:  # a line outside any problem is no part of the log's reading
            self.entry.extra.append((line, raw))

    def close_field(self) -> None:
        f, self.current = self.current, None
        if f is None or self.entry is None:
            return
        f.raw = f.raw.strip()
        answer = f.raw.partition("\n")[2]
        if _label_alone(f) and classify_solved(answer) is not None:
            f.raw = answer  # '- 혼자 풀었나' over '    - 풀이 봄': the label, then its answer
        f.value = clean_value(f.raw)
        if f.name in ("time", "space") and CUE["run_stats"].search(f.value) and not find_all_bigo(f.value):
            self.entry.extra += f.lines  # 'Runtime: 28 ms, beats 91%': the submission's numbers, no claim
            return
        if not f.value and f.name == "solved" and classify_solved(f.raw, f.label):  # 'X (풀이 봄)': a no, why
            f.value = f.raw
        if (have := self.entry.fields.get(f.name)) is None or (f.filled and not have.filled):
            self.entry.fields[f.name] = f  # '- Approach' over '- Final approach: …': a group's label
        elif not _translation(have, f):
            self.entry.duplicates.append(f)


def _label_alone(f: Field) -> bool:
    """'- 혼자 풀었나', '### 🙋 혼자 풀었나': a line that is the solved field's label, whole (its words
    read as its answer until one comes under it)."""
    line = CUE["emoji_label"].sub(r"\g<rest>", BULLET.sub("", f.lines[0][1].strip(), count=1).strip("#*_ "))
    return f.name == "solved" and _LABEL_INDEX.get(_norm(line)) == "solved"


def _translation(first: Field, again: Field) -> bool:
    """'- 시간복잡도: O(log n) — …' right above '- Time complexity: O(log n) — …': one answer in both
    languages, as a bilingual log gives each field (its Big-Os the same), not a second answer."""
    return again.line == first.lines[-1][0] + 1 and bool(FORM["hangul"].search(first.label)) != bool(
        FORM["hangul"].search(again.label)) and [b.source for b in find_all_bigo(first.value)] == [
        b.source for b in find_all_bigo(again.value)]


def parse_log(text: str) -> LogParse:
    """Split a log into problems and labelled fields, keeping the student's line numbers."""
    return _parse_lines(read(text, _holds_log))


def _holds_log(lines: list[Line]) -> bool:
    """A container holds the log when its text holds a problem with two labelled fields, or six in sentences
    (the template's instructions name problems, a level and a Big-O)."""
    filled = ([f for f in p.fields.values() if f.filled] for p in _parse_lines(lines).problems)
    return any(sum(f.label not in ("sentence", "heading") for f in fs) >= 2 or len(fs) >= 6 for fs in filled)


def _parse_lines(lines: list[Line]) -> LogParse:
    b = _Builder()
    # a table's lines share its header (tree.py): a table is read whole, any other line alone
    for _, group in groupby(lines, lambda ln: id(ln.head) if ln.kind in ("head", "sep", "row") else id(ln)):
        block = list(group)
        if block[0].kind == "head" and _table(b, block):
            continue
        for ln in block:
            if ln.kind not in ("code", "comment") and "<" in ln.text and CUE["br"].search(ln.text):
                for piece in CUE["br"].split(ln.text):  # Jupyter's 'a<br>b': two lines
                    _consume(b, Line(ln.number, piece, "quote" if ln.kind == "quote" else ""))
            else:
                _consume(b, ln)
    b.close_field()
    for entry in b.problems:
        _last_approachs_claims(entry)
        _fields_from_prose(entry)
    _shared_difficulty(b.problems)
    return LogParse(_without_preamble(b.problems))


def _without_preamble(problems: list[ProblemEntry]) -> list[ProblemEntry]:
    """In a log whose problems a heading or a label starts, a sentence that only names a problem ('Links:
    leetcode.com/problems/powx-n/ and …/count-primes/' above '## Problem 1') is the page's preamble, not a
    problem; so is a field alone above the first problem's heading, naming no problem (a Notion callout's
    '💡 템플릿: …'), and a table's row naming a problem the log has a section for (an overview or a summary
    of them), whose cells give what the section leaves out (a README's index holding the difficulty); the
    problems after it keep the places the log gives them."""
    if all(p.implicit for p in problems):
        return problems
    sections = Counter(_catalogued(p) for p in problems if not p.row)
    sections.pop(None, None)

    def logged_elsewhere(p: ProblemEntry) -> bool:
        """A row naming a problem a section logs, or a heading over nothing naming one another section logs
        (the page's title: '# [LeetCode] 50. Pow(x, n) / 204. Count Primes 풀이')."""
        return (p.row or not any(f.filled for f in p.fields.values())) and sections[_catalogued(p)] > (
            0 if p.row else 1)

    headed = next((p for p in problems if p.heading_line is not None), None)
    kept = [p for p in problems if not (p.implicit and {n for n, f in p.fields.items() if f.filled} <= {
        "problem"}) and not logged_elsewhere(p) and not (headed and p.line < headed.line and p.get(
            "problem") is None and not p.heading and sum(f.filled for f in p.fields.values()) <= 1)]
    for row in (p for p in problems if p.row and logged_elsewhere(p)):  # its cells: what its section left out
        for section in [p for p in kept if not p.row and _catalogued(p) == _catalogued(row)][:1]:
            for name, f in row.fields.items():
                if name != "problem" and f.filled and section.get(name) is None:
                    section.fields[name] = f
    for place, entry in enumerate(kept, start=1):
        if entry.index == problems.index(entry) + 1:  # numbered by its place, not by its heading
            entry.index = place
    return kept


def _catalogued(entry: ProblemEntry) -> int | None:
    """The catalog's number of the problem an entry names, in its field or its heading."""
    return p.number if (p := entry.named.problem) is not None else None


def _number(text: str) -> int | None:
    """The catalog's number of the problem ``text`` names."""
    return p.number if (p := find_problem(text).problem) is not None else None


def _consume(b: _Builder, ln: Line) -> None:
    number, raw, stripped = ln.number, ln.text, ln.text.strip()
    if CUE["page_line"].match(stripped):  # a table of contents' '- [문제 1](#문제-1)', Org's '#+TITLE: …'
        return  # the page's, no part of any field
    if ln.kind in ("quote", "code", "comment") or not stripped:  # instructions, code and comments: no fields
        b.add_line(number, raw)
        return
    if ln.kind == "rule":
        if not ((f := b.current) and len(f.lines) == 1 and (f.alone or _label_alone(f))):
            b.close_field()  # under a label alone ('난이도' over '------'), its setext underline: left open
        return
    bold = CUE["bold_line"].match(stripped)  # '**Problem 1**' is a heading to a TA, or a label, or text
    title = ln.title if ln.kind == "heading" else bold.group(2) if bold else ""
    if (problem := problem_heading(title)) is not None:
        entry = b.entry  # front matter naming the problem, then its heading: the same
        if entry is not None and not entry.heading and (
                problem[0] is None and entry.get("problem") is None
                or _number(problem[1]) in {_catalogued(entry)} - {None}):
            b.close_field()  # '## 문제 1' then '### 50. Pow(x, n)': the title names this problem
            entry.heading = problem[1]
            entry.extra.append((number, raw))
        else:
            b.open_problem(problem[0], number, problem[1])
        return
    heading = ln.kind == "heading" and raw.lstrip().startswith("#")  # not a bold line, nor a list item's
    if heading and b.entry is not None and (part := CUE["approach_part"].match(title)):
        # an editorial's 'Approach 1: Brute force', 'Approach 2: …': the first is the first idea, the last
        # the final approach, each with the complexities under it (_last_approachs_claims)
        b.close_field()
        b.entry.approaches.append(number)
        if final := len(b.entry.approaches) > 1:
            b.entry.fields.pop("final_approach", None)  # a third approach after two: the last is final
        b.open_fields([(_APPROACHES[final], part["rest"], part["label"])], number, raw)
        return
    # a heading's emoji decorates its title ('### ⏱ 복잡도' over '- 시간: …'), never labels an answer
    found = _label_line(title, _FORMS[:-1] if heading else _FORMS)
    if heading and b.entry is not None and all(b.entry.get(name) for name, _, _ in found) and not (
            [n for n, _, _ in found] == ["problem"] and b.entry.heading_line is None):
        found = []  # '## 회고' after a problem that has said what went wrong: the page's, no second answer
        # (a GitHub issue form's '### Problem' again, in a log without problem headings: the next problem)
    found = found or ([] if heading else _record(stripped) or _label_line(stripped))
    if found and (f := b.current) and b.entry and _indent(raw) > _indent(f.lines[0][1]) and all(
            b.entry.get(name) for name, _, _ in found):
        found = []  # '- What went wrong:' over '  - Space: the stack grew': its answer, no second space
    if (f := b.current) and [n for n, _, _ in found] == ["solved"] and _label_alone(f):
        b.current = None  # '(🙋) 혼자 풀었나', the label, read as its own answer over '혼자': the answer
    if b.open_fields(found, number, raw):
        return
    if heading:  # a section of the log, or of the problem ('## Complexity'): it ends the open field
        b.close_field()
        if ln.level <= 2 and not (b.entry is not None and CUE["section_of_a_problem"].search(title)):
            b.entry = None
        b.add_line(number, raw)
        return
    if b.current is not None and _ends_field(b, b.current, number, raw, stripped):
        b.close_field()  # its words are read by what they say (prose.py), not swallowed into the field
    _maybe_start_problem(b, number, stripped)
    b.add_line(number, raw)


def _ends_field(b: _Builder, current: Field, number: int, raw: str, stripped: str) -> bool:
    """Whether a line ends the open field: an unknown label at its level ('- 복잡도: …'), a sibling bullet
    after its answer ('- 혼자 풂'), a paragraph after its answer that answers other fields."""
    body = BULLET.sub("", stripped, count=1)
    label_raw = current.lines[0][1]  # a field keeps its label's line
    if _indent(raw) <= _indent(label_raw) and not label_raw.lstrip().startswith("#"):
        # not indented under the label, nor under a heading ('# Approach'); under a label on a line of its
        # own, the first paragraph is the answer ('**Final approach**' then 'Fast power: halve n ...')
        empty = current.alone and not clean_value(current.raw)  # a label with no answer yet
        bullet = BULLET.match(stripped)
        if (label := _unknown_label(body)) and (bullet or not empty) and not (
                current.name in ("time", "space") and _reason_label(label.group())):
            return True  # (a complexity's 'Why: …' or '이유: …' line, as '<br>' splits it off, is its reason)
        if bullet and BULLET.match(label_raw.strip()):
            # an empty label's sibling bullet is its value unless it answers another field
            return not current.alone or current.name not in (
                said := set(read_fields(split_sentences([(0, body)])))) and bool(said)
    return not current.alone and (b.gap or current.name in _ONE_LINE) and not raw[:1].isspace() and bool(
        set(read_fields(split_sentences([(number, raw)]))) - {current.name})


def _maybe_start_problem(b: _Builder, number: int, text: str) -> None:
    """In a log without headings or labels, a sentence naming a problem ('첫 번째 문제는 50번') starts one."""
    # a heading or a label started a problem: the log is not prose
    if not all(p.implicit for p in ([b.entry] if b.entry else b.problems)):
        return
    mention = problem_mention(text)
    ordinal = CUE["ordinal_problem"].match(BULLET.sub("", text, count=1).strip("*_ "))
    if mention is None and not ordinal:
        return
    said, entry = mention[0] if mention else None, b.entry
    # 'The second problem ...' then 'It was 204. Count Primes.': the same problem
    if ordinal or entry is None or entry.mention not in (None, said):
        (entry := b.open_problem(None, number)).implicit = True
    entry.mention = said


def _shared_difficulty(problems: list[ProblemEntry]) -> None:
    """A difficulty said once for the problems its line names by number ('This week I did 50. Pow(x, n) and
    204. Count Primes, both Medium.', '… 풀었다. 둘 다 Medium이다.') is each one's that says none itself."""
    for said in [f for p in problems if (f := p.get("difficulty")) is not None and f.label == "sentence"]:
        line = " ".join(text for _, text in said.lines)
        for other in problems:
            number = _catalogued(other)
            if other.get("difficulty") is None and number and re.search(rf"(?<!\d){number}(?!\d)", line):
                other.fields["difficulty"] = said


def _last_approachs_claims(entry: ProblemEntry) -> None:
    """Under an editorial's approaches, the complexities are the last approach's, the one submitted: an
    earlier approach's ('Approach 1: Brute force' … 'Time complexity: O(n)') are its words, not claims."""
    if len(entry.approaches) < 2:
        return
    for name in ("time", "space"):
        said = [f for f in (entry.fields.get(name), *entry.duplicates) if f is not None and f.name == name]
        final = [f for f in said if f.line > entry.approaches[-1]]
        if final:
            entry.fields[name] = final[0]
            entry.duplicates = [d for d in entry.duplicates if d.name != name or d in final[1:]]
            entry.extra += [line for f in said if f.line < entry.approaches[-1] for line in f.lines]


# ---- tables
def _column(head: str) -> list[str]:
    """The fields a column's header (or a row's first cell) names, the reason column, or none."""
    return [REASON] if _reason_label(head) else _label_fields(head)


def _table(b: _Builder, rows: list[Line]) -> bool:
    """A table with a row per problem (its header names the problem and two more fields) or a column per
    problem (its first column names three fields); False for any other (read line by line)."""
    head, body = rows[0].cells, [r for r in rows if r.kind == "row"]
    columns = [_column(c) for c in head]
    named = {n for c in columns for n in c if n != REASON}
    entries = [r for r in body if any(r.cells)]
    # a row per problem; or '| 시간 | 공간 |' over one row inside a problem's section: that problem's fields
    per_row = len(named) >= 3 and "problem" in named
    if per_row or len(named) >= 2 and b.entry is not None and len(entries) == 1:
        b.close_field()
        section = None if per_row else b.entry
        for j in _row_numbers(columns, entries):
            columns[j] = []  # '| # | Problem |': the rows' own count is no problem number
        for r in entries:
            (entry := section or b.open_problem(None, r.number)).row = per_row
            under = zip(columns, r.cells, head, strict=True)  # each cell under its header, as written
            _cells(entry, [(r, c, x, h) for c, x, h in under])
        b.entry = section
        return True
    labelled = [(r, _column(r.cells[0])) for r in body if r.cells[0]]  # each row with the fields it names
    labels = {c[0] for _, c in labelled if c} - {REASON}
    if len(body) < 3 or len(head) < 2 or len(labels) < 3 or sum(map(bool, map(match_label, head[1:]))) > 1:
        return False
    slot = not any("problem" in c for _, c in labelled)  # no problem row: the column's title names it
    filled = [j for j in range(1, len(head)) if any(r.cells[j].strip() for r in body)]
    # one column of answers ('| Field | Answer |') under '## Problem 2' is that problem's, and under
    # '## Problem 1: 50. Pow(x, n)' the heading names it, not the column's title ('Answer')
    section = b.entry if len(filled) == 1 and b.entry is not None and not b.entry.fields else None
    for j in filled:  # an empty column is no problem
        cells = [(r, c, r.cells[j], r.cells[0]) for r, c in labelled]
        b.close_field()
        if slot and head[j] and not CUE["problem_slot"].match(head[j]) and not (section and section.heading):
            cells.insert(0, (rows[0], ["problem"], head[j], "Problem"))
        _cells(section or b.open_problem(j if len(filled) > 1 else None, rows[0].number), cells)
    return True


def _row_numbers(columns: list[list[str]], rows: list[Line]) -> list[int]:
    """The columns naming the problem whose cells only count the rows (1, 2, ...), where another names it."""
    counts = [str(k) for k in range(1, len(rows) + 1)]
    problem = [j for j, c in enumerate(columns) if c == ["problem"]]
    return [j for j in problem if len(problem) > 1 and [
        r.cells[j].strip(" .)") for r in rows] == counts]


def _cells(entry: ProblemEntry, cells: list[tuple[Line, list[str], str, str]]) -> None:
    """Cells (their line, fields named, cell, label as written) into fields; an unknown one is prose."""
    reasons: list[str] = []
    for row, names, cell, written in cells:
        text = FORM["blank_lines"].sub("\n\n", CUE["br"].sub("\n", cell))  # '<br><br><br>': one break
        if names == [REASON]:
            reasons.append(clean_value(text))
        elif names:
            for name, value, _ in claims(names[0], text, written):
                entry.fields.setdefault(name, Field(name, clean_value(value), row.number, written, cell,
                                                    [(row.number, row.text)]))
        elif clean_value(text):
            entry.extra.append((row.number, text))
    if reason := "; ".join(filter(None, reasons)):
        for complexity in filter(None, map(entry.get, ("time", "space"))):  # the reason speaks for both
            complexity.value = f"{complexity.value} — {reason}"


# ---- what the labels left empty
def _fields_from_prose(entry: ProblemEntry) -> None:
    """The fields the labels left empty, read as a TA does: the heading's difficulty, then sentences."""
    if entry.heading and entry.get("difficulty") is None and (level := parse_difficulty(entry.heading)):
        entry.fields["difficulty"] = Field("difficulty", level, entry.line, "heading", entry.heading,
                                           [(entry.line, entry.heading)])
    # a label naming both approaches (the lesson's '접근', or '처음 아이디어 → 최종 접근') holds both
    present = [f for name in _APPROACHES if (f := entry.fields.get(name)) is not None]
    if len(present) == 1 and (f := present[0]).value and (
            _norm(f.label) in WORDS["both_approaches"] or _label_fields(f.label) == list(_APPROACHES)) and (
            halves := split_approaches(f.value)):
        for name, half in zip(_APPROACHES, halves, strict=True):
            entry.fields[name] = Field(name, clean_value(half), f.line, f.label, f.raw, list(f.lines))
    prose = split_sentences([(n, unlabelled(t)) for n, t in entry.extra if not CUE["unticked_item"].match(t)])
    sentences = list(prose)
    for f in entry.fields.values():  # 'Difficulty: Medium. I first tried ...': the label answers one
        sentences += split_sentences(f.lines[:1])[1:]
        # the lines under an answer are prose ('What went wrong: forgot negative n.' then 'Solved it alone.');
        # under a label on a line of its own ('# Mistakes', '- 문제'), the answer's first sentence is the
        # label's and the ones after it prose ('Counted n at first. Solved alone.')
        sentences += split_sentences(f.lines[1:])[int(f.alone) :]
        other = {"time": "space", "space": "time"}.get(f.name)
        if other and f.filled and entry.get(other) is None:
            sentences += split_sentences([(f.line, f.value)])  # 'Time: O(log n) time and O(1) space …'
    sentences.sort(key=lambda s: s.line)
    raw_lines = dict(entry.extra) | {n: r for f in entry.fields.values() for n, r in f.lines}
    read = {name: r for name, r in read_fields(sentences).items()
            if entry.get(name) is None and not (name == "problem" and entry.heading)}
    for name, r in read.items():
        entry.fields[name] = Field(name, clean_value(r.value), r.line, "sentence", r.sentence,
                                   [(r.line, raw_lines.get(r.line, r.sentence))])
    # kept for quoting only where the log is (partly) prose, not for a filled-in template
    entry.sentences = [(s.line, s.text) for s in sentences] if prose or read else []
