"""Read a log written as sentences, the way a TA would: field by field.

Not every student fills the labels. "시간 복잡도는 O(log n)이고 공간은 O(1)이다.
처음엔 x를 n번 곱했는데 시간 초과가 나서 분할 정복으로 바꿨다." and "I first tried
trial division, then the sieve, which runs in O(n log log n) time and O(n) space
because ..." hold the same fields as the template. This module splits such prose
into sentences and clauses and says which field each one answers, with its line.
Content is never judged here: review.py does that, on the values read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .bigo import BigOMatch, find_all_bigo
from .catalog import find_problem, get
from .mathtext import to_plain
from .values import classify_solved, parse_difficulty
from .vocab import CUE, WORDS

__all__ = ["Reading", "Sentence", "problem_mention", "read_fields", "split_sentences", "unbracketed"]


@dataclass(frozen=True)
class Sentence:
    text: str
    line: int  # the line it starts on
    starts: tuple[tuple[int, int], ...]  # (offset in text, line) where each source line begins

    def line_at(self, offset: int) -> int:
        line = self.line
        for start, number in self.starts:
            if start <= offset:
                line = number
        return line


@dataclass(frozen=True)
class Reading:
    """One field read from prose: its value, the line it is on and the sentence it came from."""

    name: str
    value: str
    line: int
    sentence: str


# --------------------------------------------------------------------------- sentences

BULLET = CUE["bullet"]


def split_sentences(lines: list[tuple[int, str]]) -> list[Sentence]:
    """Sentences of the prose lines, each with its line; headings, tables, quotes and code are skipped."""
    out: list[Sentence] = []
    para: list[tuple[int, str]] = []
    in_code = in_comment = False
    for number, raw in lines:
        text = raw.strip()
        if CUE["fence"].match(text):
            in_code = not in_code
            _flush(para, out)
            continue
        if in_comment or text.startswith("<!--"):  # a comment's lines, all of them, are not the student's
            in_comment = "-->" not in text
            _flush(para, out)
            continue
        if in_code or not text or text.startswith(("#", ">", "|")) or CUE["rule"].match(text):
            _flush(para, out)
            continue
        if BULLET.match(text):
            _flush(para, out)
            text = BULLET.sub("", text, count=1)
        para.append((number, text.strip("*_ ").strip() if text.startswith(("**", "__")) else text))
        if CUE["korean_sentence_end"].search(text):  # a Korean line that ends like a sentence is one
            _flush(para, out)
    _flush(para, out)
    return out


def _flush(para: list[tuple[int, str]], out: list[Sentence]) -> None:
    if not para:
        return
    text, starts = "", []
    for number, line in para:
        if text:
            text += " "
        starts.append((len(text), number))
        text += line
    para.clear()
    begin = 0
    for end in (m.end() for m in re.finditer(r"[.!?。](?=\s|$)", unbracketed(text))):
        word = text[begin:end].split()[-1].lower() if text[begin:end].split() else ""
        if re.fullmatch(r"\d{1,4}\.", word) or word in WORDS["abbreviations"]:
            continue  # '50. Pow(x, n)' and 'e.g.' do not end a sentence
        _add(out, text, begin, end, starts)
        begin = end
    _add(out, text, begin, len(text), starts)


def unbracketed(text: str) -> str:
    """``text`` with what is inside brackets blanked, its length kept: a sentence's end or a list's
    separator is looked for outside them ('Pow(x, n), Medium' has one comma)."""
    depth, out = 0, []
    for c in text:
        depth += c in "(（["
        out.append(c if depth == 0 else "\0")
        depth -= c in ")）]" and depth > 0
    return "".join(out)


def _add(out: list[Sentence], text: str, begin: int, end: int, starts: list[tuple[int, int]]) -> None:
    lead = len(text[begin:end]) - len(text[begin:end].lstrip())
    piece = text[begin:end].strip()
    if not piece:
        return
    offset = begin + lead
    line = max((n for s, n in starts if s <= offset), default=starts[0][1])
    local = tuple((max(0, s - offset), n) for s, n in starts if offset <= s < offset + len(piece))
    out.append(Sentence(piece, line, ((0, line), *local)))


# --------------------------------------------------------------------------- the problem

_PROBLEM_WORD = CUE["problem_word"]


def problem_mention(text: str) -> tuple[int | None, str] | None:
    """(catalog number, value for the 'problem' field) when the sentence names a LeetCode problem
    as a log would ('LeetCode 50번 Pow(x, n)', 'The first problem was Count Primes'); None for a
    passing word ('the power of two frequencies')."""
    match = find_problem(text)
    numbers = [int(next(g for g in m.groups() if g)) for m in CUE["problem_number"].finditer(text)]
    if match.problem is not None and match.by == "title":
        p = match.problem
        written = next((n for n in numbers if n == p.number), numbers[0] if numbers else None)
        # written as LeetCode titles it ('Pow(x, n)', 'Count Primes'), not 'a power of two'
        as_titled = re.search(r"\s*".join(map(re.escape, p.title.split())), text)
        if written is None and not _PROBLEM_WORD.search(text) and as_titled is None:
            return None
        return p.number, f"{written if written is not None else p.number}. {p.title}"
    for n in numbers:
        named = get(n)
        if named is not None and _PROBLEM_WORD.search(text):
            return named.number, named.label
    return None


# --------------------------------------------------------------------------- cues

_TIME, _NOT_TIME, _SPACE, _GENERIC = CUE["time"], CUE["not_time"], CUE["space"], CUE["complexity"]
_BOTH = CUE["time_and_space"]
_LEADING = WORDS["filler"]
_FILLER = _LEADING | WORDS["causal"]
_FIRST, _FINAL, _APPROACH = CUE["first_idea"], CUE["final_approach"], CUE["approach_verb"]
_DATE = CUE["date"]
_ALONE, _SOLUTION = CUE["alone_sentence"], CUE["solution_sentence"]


# --------------------------------------------------------------------------- reading

_Put = Callable[[str, str, int, Sentence], None]  # (field, value, line, sentence): record one answer


def read_fields(sentences: list[Sentence]) -> dict[str, Reading]:
    """Every field the sentences answer; the first answer wins, as for labels."""
    found: dict[str, Reading] = {}

    def put(name: str, value: str, line: int, sentence: Sentence) -> None:
        value = value.strip(" ,;")
        if name not in found and value:
            found[name] = Reading(name, value, line, sentence.text)

    for s in sentences:
        mention = problem_mention(s.text)
        if mention is not None:
            put("problem", mention[1], s.line, s)
        level = _difficulty(s.text)
        if level:
            put("difficulty", level, s.line, s)
    _read_approaches(sentences, put)
    _read_complexities(sentences, put)
    used = {r.sentence for r in found.values()}
    wrong = [s for s in sentences if CUE["what_went_wrong"].search(s.text)]
    for s in [s for s in wrong if s.text not in used] + wrong:  # a sentence of its own first
        put("what_went_wrong", s.text, s.line, s)
    _read_solved(sentences, put)
    return found


def _difficulty(text: str) -> str | None:
    if CUE["difficulty_context"].search(text):
        return parse_difficulty(text)
    strong = CUE["difficulty_strong"].findall(text)
    return parse_difficulty(" ".join(strong)) if strong else None


def _read_approaches(sentences: list[Sentence], put: _Put) -> None:
    first_at = next(((i, m) for i, s in enumerate(sentences) if (m := _FIRST.search(s.text))), None)
    if first_at is not None:
        i, m = first_at
        s = sentences[i]
        final = next((f for f in _FINAL.finditer(s.text, m.end())), None)
        cut = _clause_cut(s.text, m.end(), final.start()) if final is not None else None
        if cut is not None and _letters(s.text[:cut]) >= 8 and _letters(s.text[cut:]) >= 8:
            put("first_idea", s.text[:cut], s.line, s)
            put("final_approach", s.text[cut:], s.line_at(cut), s)
            return
        put("first_idea", s.text, s.line, s)
        later = sentences[i + 1:]
    else:
        later = sentences
    for pattern in (_FINAL, _APPROACH):
        for s in later:
            if not pattern.search(s.text) or _letters(s.text) < 8:
                continue
            verb, bigos = pattern.search(s.text), find_all_bigo(s.text)
            if pattern is _APPROACH and verb and bigos and not _content(s.text[verb.end():bigos[0].start]):
                continue  # 'It uses O(1) extra space: ...' describes the space, not the method
            put("final_approach", s.text, s.line, s)
            return


def _clause_cut(text: str, after: int, final: int) -> int | None:
    """Where the final approach's clause starts: after the last clause break before its cue."""
    cut = None
    for m in CUE["clause_break"].finditer(text, after, final + 1):
        if m.end() <= final + 1:
            cut = m.end()
    return cut if cut is not None else final


def _letters(text: str) -> int:
    return sum(c.isalpha() for c in text)


def _content(text: str) -> bool:
    """Whether anything but Big-O filler words is left: a reason, a method."""
    words = re.findall(r"[^\W\d_]{2,}|\w*\d\w*[^\W\d_]\w*", text)
    return any(w.lower() not in _FILLER for w in words)


@dataclass
class _Mention:
    sentence: Sentence
    match: BigOMatch
    kinds: tuple[str, ...]
    in_first: bool
    reason: str


def _read_complexities(sentences: list[Sentence], put: _Put) -> None:
    mentions: list[_Mention] = []
    for index, s in enumerate(sentences):
        found = _sentence_complexities(s)
        if found and not any(m.reason for m in found) and index + 1 < len(sentences):
            follow = sentences[index + 1]
            if CUE["reason_start"].search(follow.text) and not find_all_bigo(follow.text):
                for m in found:
                    m.reason = follow.text
        mentions += found
    for kind in ("time", "space"):
        # the first idea's complexity ('brute force in O(n) time') is not the answer's
        candidates = [m for m in mentions if kind in m.kinds and not m.in_first]
        if not candidates:
            continue
        chosen = candidates[0]
        value = f"{chosen.match.written} — {chosen.reason}" if chosen.reason else chosen.match.written
        put(kind, value, chosen.sentence.line_at(chosen.match.start), chosen.sentence)


def word_complexities(text: str) -> list[tuple[BigOMatch, str]]:
    """Each complexity said in words next to its cue ('log n time', '선형 시간', 'time is linear'), as a
    match the way ``find_all_bigo`` gives one, with what its own cue says it measures ('time' or
    'space'): read as the claim, so the review can ask for O(...) rather than call the field missing."""
    found: dict[int, tuple[BigOMatch, str]] = {}
    for pattern in (CUE["words_before"], CUE["words_after"]):
        for m in pattern.finditer(text):
            w = m.group("w").rstrip()
            kind = "space" if _SPACE.search(m.group()) else "time"
            found.setdefault(m.start("w"), (BigOMatch(m.start("w"), m.start("w") + len(w), w, w), kind))
    return sorted(found.values(), key=lambda x: x[0].start)


def _sentence_complexities(s: Sentence) -> list[_Mention]:
    text = s.text
    matches = find_all_bigo(text)
    said: dict[int, str] = {}  # a complexity in words: its own cue ('log n time') says what it measures
    if not matches:  # a Big-O said in words only where the sentence has none in O(...)
        worded = word_complexities(text)
        matches, said = [m for m, _ in worded], {m.start: kind for m, kind in worded}
    first = _FIRST.search(text)
    out: list[_Mention] = []
    for k, m in enumerate(matches):
        lo = matches[k - 1].end if k else 0
        hi = matches[k + 1].start if k + 1 < len(matches) else len(text)
        before, after = text[lo:m.start], text[m.end:hi]
        kinds, cue_span = _kinds(before, after, lo, m.end)
        if m.start in said:
            kinds = (said[m.start],)
        if not kinds and out and len(out[-1].kinds) == 2 and CUE["list_gap"].fullmatch(before):
            kinds, cue_span = out[-1].kinds, (m.start, m.start)  # '…, O(1)'
        if not kinds:
            continue
        # after the first idea's cue and before any final one: 'brute force in O(n) time' is not the answer's
        in_first = first is not None and first.end() <= m.start and not _FINAL.search(text, first.end(),
                                                                                       m.start)
        # this Big-O's clause: from its cue (or itself) to the next Big-O
        start = min(cue_span[0], m.start)
        # a reason before the first claim: '반복문이라 공간 복잡도는 O(1)', 'Since n halves, the time …'
        rest = ("" if out else _reason_ahead(text[:start])) + " " + text[start:m.start] + " " + text[m.end:hi]
        for cue in (_TIME, _SPACE, _GENERIC):
            rest = cue.sub(" ", rest)
        reason = _reason(rest)
        out.append(_Mention(s, m, kinds, in_first, reason))
    _one_claim_each(text, out)
    for k, claim in enumerate(out):  # 'O(n) time and O(1) space because ...': the reason is shared
        if not claim.reason:
            claim.reason = next((x.reason for x in out[k + 1:] if x.reason), "")
    return out


def _one_claim_each(text: str, mentions: list[_Mention]) -> None:
    """'시간과 공간 복잡도는 O(n), O(1)': one cue naming both, then two Big-Os: each its own, in the cue's
    order, rather than both to each."""
    both = [m for m in mentions if len(m.kinds) == 2]
    if len(both) != 2:
        return
    cue = _BOTH.search(text)
    order = ("space", "time") if cue and CUE["space_first"].match(cue.group()) else ("time", "space")
    for m, kind in zip(both, order, strict=True):
        m.kinds = (kind,)


def _kinds(before: str, after: str, lo: int, hi: int) -> tuple[tuple[str, ...], tuple[int, int]]:
    """What a Big-O measures, from the cue nearest to it: ('time',) / ('space',) / both; the cue's span
    in the sentence."""
    before_clean = _NOT_TIME.sub(lambda m: "\0" * len(m.group()), before)
    after_clean = _NOT_TIME.sub(lambda m: "\0" * len(m.group()), after)
    if _BOTH.search(before_clean):
        both = list(_BOTH.finditer(before_clean))[-1]
        return ("time", "space"), (lo + both.start(), lo + both.end())
    options: list[tuple[int, int, str, tuple[int, int]]] = []
    for kind, cue in (("time", _TIME), ("space", _SPACE)):
        for m in cue.finditer(before_clean):
            span = (lo + m.start(), lo + m.end())
            options.append((len(before_clean) - m.end(), 0, kind, span))
        a = cue.search(after_clean)
        # 'O(n) time', 'O(1)의 공간'; not ', 공간 복잡도는 O(1)', which opens the next claim
        if a is not None and a.start() <= 12 and not CUE["clause_end"].search(after_clean[:a.start()]):
            options.append((a.start(), 1, kind, (hi + a.start(), hi + a.end())))
    if options:
        _, _, kind, span = min(options)
        return (kind,), span
    generic = list(_GENERIC.finditer(before_clean))
    if generic:
        return ("time",), (lo + generic[-1].start(), lo + generic[-1].end())
    return (), (hi, hi)


def _reason_ahead(text: str) -> str:
    """The reason given before a claim in its clause ('체 배열이 n칸이라 ', 'Since the exponent halves,
    the '), or '' when the words before the claim are not one."""
    body = text.strip().rstrip(",").strip()
    return body if CUE["reason_before"].search(body) else ""


def _reason(rest: str) -> str:
    """The explanation left once cues and the Big-O are gone, or '' when only filler remains."""
    words = to_plain(rest).text.split()
    while words and (words[0].lower().strip(",;.:—–-") in _LEADING or not words[0].strip(",;.:—–-$")):
        words.pop(0)  # '는 $ $이고 n이 ...': the particles and math marks left by the cue
    while words and (words[-1].lower().strip(",;.:—–-") in _LEADING or not words[-1].strip(",;.:—–-$")):
        words.pop()
    text = " ".join(words).strip(" ,;.:—–-")
    return text if _content(text) else ""


def _read_solved(sentences: list[Sentence], put: _Put) -> None:
    for s in reversed(sentences):  # how it was solved is said last, usually
        alone, solution = _ALONE.search(s.text), _SOLUTION.search(s.text)
        if not (alone or solution):
            continue
        how = classify_solved(s.text)
        if how is None:
            how = "alone" if alone and (not solution or alone.start() > solution.start()) else "solution"
        cue = (alone if how == "alone" else solution) or alone or solution
        value = s.text if classify_solved(s.text) == how else cue.group()  # type: ignore[union-attr]
        put("solved", value, s.line, s)
        break
    for s in sentences:
        date = _DATE.search(s.text)
        if date and (CUE["redo"].search(s.text) or _SOLUTION.search(s.text)):
            put("redo_date", date.group(), s.line_at(date.start()), s)
            break
