"""A log written as sentences ("시간 복잡도는 O(log n)이고 공간은 O(1)이다. 처음엔 x를 n번 곱했는데 ...") read
field by field, as a TA would: which field each sentence answers and on which line, by vocab.toml's cues."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate, pairwise
from typing import NamedTuple

from .bigo import BigOMatch, find_all_bigo
from .catalog import find_problem, get
from .mathtext import to_plain
from .values import classify_solved, parse_difficulty
from .vocab import CUE, WORDS

__all__ = ["Reading", "Sentence", "problem_mention", "read_fields", "split_sentences", "unbracketed"]

BULLET = CUE["bullet"]
_SPACE, _BOTH = CUE["space"], CUE["time_and_space"]
# what a Big-O measures, by the cue nearest to it, ranked: one naming both, then one naming either, then
# 'complexity' alone (time); only a cue naming either is read after it ('O(n) time')
_MEASURES = ((0, ("time", "space"), _BOTH), (1, ("time",), CUE["time"]), (1, ("space",), _SPACE),
             (2, ("time",), CUE["complexity"]))
_FIRST, _FINAL = CUE["first_idea"], CUE["final_approach"]
_MARKS = ",;.:—–-"  # what a cue leaves around a reason's words


class Sentence(NamedTuple):
    text: str
    starts: tuple[tuple[int, int], ...]  # (offset in text, line) where each of its paragraph's lines begins

    def line_at(self, offset: int) -> int:
        return max(n for s, n in self.starts if s <= offset)

    @property
    def line(self) -> int:  # the line it starts on
        return self.line_at(0)


class Reading(NamedTuple):
    """One field read from prose (the field is its key): its value, its line and its sentence."""
    value: str
    line: int
    sentence: str


def split_sentences(lines: list[tuple[int, str]]) -> list[Sentence]:
    """The prose lines' sentences, with their lines; headings, tables, quotes, comments, code are skipped."""
    out: list[Sentence] = []
    para: list[tuple[int, str]] = []  # the paragraph's lines so far
    in_code = in_comment = False

    def flush() -> None:
        """The paragraph's sentences: cut at a full stop outside brackets, not after a number or 'e.g.'."""
        text = " ".join(said for _, said in para)
        offsets = accumulate((len(said) + 1 for _, said in para), initial=0)  # where each line begins in it
        starts = list(zip(offsets, [number for number, _ in para], strict=False))  # one offset spare
        para.clear()
        stops = (m.end() for m in CUE["sentence_stop"].finditer(unbracketed(text))  # a word and its full stop
                 if not (CUE["numbered_stop"].fullmatch(m.group())
                         or m.group().lower() in WORDS["abbreviations"]))
        for begin, end in pairwise([0, *stops, len(text)]):
            if piece := text[begin:end].strip():
                at = text.index(piece, begin)
                out.append(Sentence(piece, tuple((s - at, n) for s, n in starts)))  # from its start

    for number, raw in [*lines, (0, "")]:  # a blank line after the last ends its paragraph
        text = raw.strip()
        if CUE["fence"].match(text):
            in_code, skip = not in_code, True
        elif in_comment or text.startswith("<!--"):  # a comment's lines, all of them, are not the student's
            in_comment, skip = "-->" not in text, True
        else:
            skip = in_code or bool(CUE["not_prose"].match(text))
        if skip or BULLET.match(text):
            flush()
        if skip:
            continue
        text = BULLET.sub("", text, count=1)
        para.append((number, text.strip("*_ ").strip() if text.startswith(("**", "__")) else text))
        if CUE["korean_sentence_end"].search(text):  # a Korean line that ends like a sentence is one
            flush()
    return out


def unbracketed(text: str) -> str:
    """``text`` with what is inside brackets blanked, its length kept ('Pow(x, n), Medium' has one comma)."""
    depth, out = 0, []
    for c in text:
        depth += c in "(（["
        out.append(c if depth == 0 else "\0")
        depth -= c in ")）]" and depth > 0
    return "".join(out)


def problem_mention(text: str) -> tuple[int | None, str] | None:
    """(catalog number, the 'problem' field's value) when the sentence names a LeetCode problem as a log would
    ('LeetCode 50번 Pow(x, n)'); None for a passing word ('the power of two frequencies')."""
    match = find_problem(text)
    numbers = [int(next(filter(None, m.groups()))) for m in CUE["problem_number"].finditer(text)]
    as_problem = CUE["problem_word"].search(text)
    if (p := match.problem) and match.by == "title":
        # with a number, as a problem, or as LeetCode titles it ('Pow(x, n)'): not 'a power of two'
        if numbers or as_problem or re.search(r"\s*".join(map(re.escape, p.title.split())), text):
            return p.number, f"{p.number if p.number in numbers or not numbers else numbers[0]}. {p.title}"
        return None
    named = next(filter(None, map(get, numbers)), None) if as_problem else None
    return (named.number, named.label) if named else None


class _Found(dict[str, Reading]):
    """The fields read so far: the first answer to each wins, as for labels."""

    def put(self, name: str, value: str | None, s: Sentence, at: int = 0) -> None:
        """``value`` for field ``name``, said at offset ``at`` of ``s``; an empty one is no answer."""
        if name not in self and (value := (value or "").strip(" ,;")):
            self[name] = Reading(value, s.line_at(at), s.text)


def read_fields(sentences: list[Sentence]) -> dict[str, Reading]:
    """Every field the sentences answer."""
    found = _Found()
    for s in sentences:
        text = s.text
        found.put("problem", (problem_mention(text) or (None, ""))[1], s)
        # a level said as one ('Medium', 'medium-level'), or any word of one after 'difficulty'
        found.put("difficulty", parse_difficulty(text if CUE["difficulty_context"].search(text)
                                                 else " ".join(CUE["difficulty_strong"].findall(text))), s)
        date = CUE["date"].search(text)
        if date and (CUE["redo"].search(text) or CUE["solution_sentence"].search(text)):
            found.put("redo_date", date.group(), s, date.start())
    _read_approaches(sentences, found)
    for s, follow in zip(sentences, [*sentences[1:], None], strict=False):  # the next may give the reason
        for c in _sentence_complexities(s.text, follow.text if follow else ""):  # each kind's first claim
            for kind in () if c.in_first else c.kinds:
                found.put(kind, " — ".join(filter(None, (c.match.written, c.reason))), s, c.match.start)
    used = {r.sentence for r in found.values()}
    for s in sorted(sentences, key=lambda s: s.text in used):  # one of its own first
        found.put("what_went_wrong", s.text if CUE["what_went_wrong"].search(s.text) else None, s)
    for s in reversed(sentences):  # how it was solved is said last, usually
        cues = [m for cue in ("solution_sentence", "alone_sentence") if (m := CUE[cue].search(s.text))]
        if cues:  # the sentence when it says how; else its last cue
            how = s.text if classify_solved(s.text) else max(cues, key=re.Match.start).group()
            found.put("solved", how, s)
    return found


def _read_approaches(sentences: list[Sentence], found: _Found) -> None:
    """The first idea's sentence (split where the final approach's clause starts), then the first later
    sentence naming a final approach, else one naming a method (``found`` keeps the first answer)."""
    i, m = next(((i, m) for i, s in enumerate(sentences) if (m := _FIRST.search(s.text))), (-1, None))
    if m:
        s = sentences[i]
        text = s.text
        final = _FINAL.search(text, m.end())
        # after the last clause break before the final approach's cue, when both halves say something
        cut = max((b.end() for b in CUE["clause_break"].finditer(text, m.end(), final.start() + 1)),
                  default=final.start()) if final else 0
        cut = cut if letters(text[:cut]) >= 8 and letters(text[cut:]) >= 8 else len(text)
        found.put("first_idea", text[:cut], s)
        found.put("final_approach", text[cut:], s, cut)
    for pattern in (_FINAL, CUE["approach_verb"]):
        for s in sentences[i + 1:]:  # all of them when no first idea is said
            verb = pattern.search(s.text)
            if not verb or letters(s.text) < 8:
                continue
            # a method's verb then a Big-O and nothing else ('It uses O(1) extra space') describes the space
            bigos = [b for b in find_all_bigo(s.text) if b.start >= verb.end()]
            if pattern is _FINAL or not bigos or _content(s.text[verb.end():bigos[0].start]):
                found.put("final_approach", s.text, s)


def letters(text: str) -> int:
    return sum(c.isalpha() for c in text)


def _content(text: str) -> bool:
    """Whether anything but Big-O filler words is left: a reason, a method."""
    return any(w.lower() not in WORDS["filler"] | WORDS["causal"] for w in CUE["word"].findall(text))


@dataclass
class _Mention:
    match: BigOMatch
    kinds: tuple[str, ...]  # what it measures: ('time',), ('space',) or both
    in_first: bool  # said of the first idea ('brute force in O(n) time'): not the answer's
    reason: str


def word_complexities(text: str) -> dict[BigOMatch, str]:
    """Each complexity said in words next to its cue ('log n time', '선형 시간') as ``find_all_bigo``'s match,
    with what its cue says it measures: the claim, so the review asks for O(...), not a missing field."""
    said = {m.start("w"): (m.group("w").rstrip(), "space" if _SPACE.search(m.group()) else "time")
            for cue in ("words_after", "words_before") for m in CUE[cue].finditer(text)}  # 'before' wins
    return {BigOMatch(at, at + len(w), w, w): kind for at, (w, kind) in sorted(said.items())}


def _sentence_complexities(text: str, follow: str) -> list[_Mention]:
    """Each Big-O of the sentence with what it measures and its reason: its clause's words from its cue to
    the next Big-O, less cues and filler; else the next sentence, ``follow``, when it gives one."""
    # in words only where none is in O(...), its own cue ('log n time') saying what it measures
    said = {} if (matches := find_all_bigo(text)) else word_complexities(text)
    matches = matches or list(said)
    idea = _FIRST.search(text)
    out: list[_Mention] = []
    told = ""  # the last claim's words up to its Big-O
    ends, starts = [0, *(x.end for x in matches)], [*(x.start for x in matches[1:]), len(text)]
    for lo, m, hi in zip(ends, matches, starts, strict=False):  # each Big-O's clause, between its neighbours
        before = text[lo:m.start]
        kinds, cue_at = _kinds(before, text[m.end:hi], lo, m.end)
        kinds = (said[m],) if m in said else kinds
        if not kinds and out and len(out[-1].kinds) == 2 and CUE["list_gap"].fullmatch(before):
            # '시간과 공간 복잡도는 O(n), O(1)': each its own, in the cue's order
            space_first = (cue := _BOTH.search(text)) and CUE["space_first"].match(cue.group())
            first, second = ("space", "time") if space_first else ("time", "space")
            out[-1].kinds, kinds, cue_at = (first,), (second,), m.start
        if not kinds:
            continue
        in_first = idea is not None and idea.end() <= m.start and not _FINAL.search(text, idea.end(), m.start)
        start = min(cue_at, m.start)
        # a reason before the first claim: '반복문이라 공간 복잡도는 O(1)', 'Since n halves, the time …'
        ahead = text[:start] if not out and CUE["reason_before"].search(text[:start]) else ""
        if out and (cut := _reason_ahead(text, lo, start)) is not None:
            # before a later claim, after a clause break: '…이고, 변수만 쓰므로 공간 복잡도는 O(1)', '…, and
            # since only three numbers are kept, the space is O(1)': this claim's reason, not the one before's
            ahead = text[cut:start]
            out[-1].reason = _reason(CUE["measure"].sub(" ", f"{told} {text[out[-1].match.end:cut]}"))
        told = CUE["measure"].sub(" ", f"{ahead} {text[start:m.start]}")  # this claim's words up to its Big-O
        out.append(_Mention(m, kinds, in_first, _reason(f"{told} {CUE['measure'].sub(' ', text[m.end:hi])}")))
    given = follow if out and not any(c.reason for c in out) and CUE["reason_start"].search(follow) \
        and not find_all_bigo(follow) else ""
    for k, claim in enumerate(out):  # 'O(n) time and O(1) space because ...': the reason is shared
        claim.reason = claim.reason or next((x.reason for x in out[k + 1:] if x.reason), given)
    return out


def _reason_ahead(text: str, lo: int, start: int) -> int | None:
    """Where a reason said just ahead of a claim starts, between the Big-O before it (``lo``) and its cue
    (``start``): the shortest clause after a clause break that gives one ('변수만 쓰므로', 'since …, the')."""
    cuts = [b.end() for b in CUE["clause_end"].finditer(text, lo, start)]
    for c in reversed(cuts):
        clause = CUE["lead_in"].sub("", text[c:start]).strip(" ,")  # 'since …, the ': less its lead-in
        if CUE["clause_end"].search(clause):  # no clause of the claim before ('as n halves, and the')
            return None
        if CUE["reason_before"].search(clause):
            return c
    return None



def _kinds(before: str, after: str, lo: int, hi: int) -> tuple[tuple[str, ...], int]:
    """What a Big-O measures, by its nearest cue (a time limit, '시간 초과', is none); where it starts."""
    before, after = (CUE["not_time"].sub(lambda m: "\0" * len(m.group()), t) for t in (before, after))
    options = [(rank, len(before) - m.end(), 0, kinds, lo + m.start())
               for rank, kinds, cue in _MEASURES for m in cue.finditer(before)]
    # a time or space cue just after: 'O(n) time', 'O(1)의 공간'; not ', 공간 복잡도는 O(1)', the next claim's
    for rank, kinds, cue in _MEASURES[1:3]:
        if (a := cue.search(after)) and a.start() <= 12 and not CUE["clause_end"].search(after[:a.start()]):
            options.append((rank, a.start(), 1, kinds, hi + a.start()))
    return min(options, default=(0, 0, 0, (), hi))[3:]


def _reason(rest: str) -> str:
    """The explanation left once cues and the Big-O are gone ('' when only filler and marks remain)."""
    words = to_plain(rest).text.split()
    kept = [i for i, w in enumerate(words)
            if w.lower().strip(_MARKS) not in WORDS["filler"] and w.strip(_MARKS + "$")]
    text = " ".join(words[kept[0]:kept[-1] + 1]).strip(" " + _MARKS) if kept else ""
    return text if _content(text) else ""
