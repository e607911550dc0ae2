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

__all__ = ["Reading", "Sentence", "problem_mention", "read_fields", "split_sentences"]


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

_FENCE = re.compile(r"^(```|~~~)")
_BULLET = re.compile(r"^(?:[-*+•]|\d{1,2}[.)])\s+")
_RULE = re.compile(r"^(?:-{3,}|\*{3,}|_{3,})$")
_ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "etc.", "cf.", "approx.", "no.", "eq.")
_KOREAN_END = re.compile(r"(?:다|요|음|함|됨|임|듯)$")


def split_sentences(lines: list[tuple[int, str]]) -> list[Sentence]:
    """Sentences of the prose lines, each with its line; headings, tables, quotes and code are skipped."""
    out: list[Sentence] = []
    para: list[tuple[int, str]] = []
    in_code = False
    for number, raw in lines:
        text = raw.strip()
        if _FENCE.match(text):
            in_code = not in_code
            _flush(para, out)
            continue
        if in_code or not text or text.startswith(("#", ">", "|", "<!--")) or _RULE.match(text):
            _flush(para, out)
            continue
        if _BULLET.match(text):
            _flush(para, out)
            text = _BULLET.sub("", text, count=1)
        para.append((number, text.strip("*_ ").strip() if text.startswith(("**", "__")) else text))
        if _KOREAN_END.search(text):  # a Korean line that ends like a sentence is one
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
    begin, depth = 0, 0
    for i, c in enumerate(text):
        if c in "(（[":
            depth += 1
        elif c in ")）]":
            depth = max(0, depth - 1)
        elif c in ".!?。" and depth == 0 and (i + 1 == len(text) or text[i + 1].isspace()):
            word = text[begin:i + 1].split()[-1].lower() if text[begin:i + 1].split() else ""
            if re.fullmatch(r"\d{1,4}\.", word) or word in _ABBREVIATIONS:
                continue  # '50. Pow(x, n)' and 'e.g.' do not end a sentence
            _add(out, text, begin, i + 1, starts)
            begin = i + 1
    _add(out, text, begin, len(text), starts)


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

_NUMBERED = re.compile(
    r"(?:leetcode|리트코드|lc)\s*#?\s*(\d{1,4})(?!\d)|#\s?(\d{1,4})\b|(?<![\d.])(\d{1,4})\s*번(?!\s*째)"
    r"|(?<![\d.])(\d{1,4})\.\s+(?=\S)", re.I)
_PROBLEM_WORD = re.compile(r"leetcode|리트코드|\blc\b|problem|question|문제", re.I)


def problem_mention(text: str) -> tuple[int | None, str] | None:
    """(catalog number, value for the 'problem' field) when the sentence names a LeetCode problem
    as a log would ('LeetCode 50번 Pow(x, n)', 'The first problem was Count Primes'); None for a
    passing word ('the power of two frequencies')."""
    match = find_problem(text)
    numbers = [int(next(g for g in m.groups() if g)) for m in _NUMBERED.finditer(text)]
    if match.problem is not None and match.by == "title":
        p = match.problem
        written = next((n for n in numbers if n == p.number), numbers[0] if numbers else None)
        # written as LeetCode titles it ('Pow(x, n)', 'Count Primes'), not 'a power of two'
        as_titled = re.search(r"\s*".join(map(re.escape, p.title.split())), text)
        if written is None and not _PROBLEM_WORD.search(text) and as_titled is None:
            return None
        return p.number, f"{written if written is not None else p.number}. {p.title}"
    for n in numbers:
        p = get(n)
        if p is not None and _PROBLEM_WORD.search(text):
            return p.number, p.label
    return None


# --------------------------------------------------------------------------- cues

_TIME = re.compile(r"time\s+complexity|running\s+time|run\s*time|\bruns?\s+in\b|\btakes\b|\btime\b|"
                   r"시간\s*복잡도|수행\s*시간|실행\s*시간|연산\s*(?:횟수|량)|시간", re.I)
_NOT_TIME = re.compile(r"시간\s*초과|time\s*limit|timed?\s*out|\bTLE\b", re.I)
_SPACE = re.compile(r"space\s+complexity|extra\s+space|\bspace\b|\bmemory\b|공간\s*복잡도|공간|메모리", re.I)
_GENERIC = re.compile(r"complexity|복잡도|big-?o|빅\s*오", re.I)
_BOTH = re.compile(r"(?:time|시간)\s*(?:과|와|and|및|,|&|/)\s*(?:space|공간)|"
                   r"(?:space|공간)\s*(?:과|와|and|및|,|&|/)\s*(?:time|시간)", re.I)
_CAUSE = re.compile(r"\bbecause\b|\bsince\b|\bdue\s+to\b|\bas\s+(?:we|it|the|each|n|only)\b|때문|므로|니까|"
                    r"(?:이|해|되|어|아|여)서\b|라서", re.I)
_REASON_START = re.compile(r"^(?:because|since|this\s+is\s+because|that'?s\s+because|the\s+reason|"
                           r"왜냐하면|이는|이건|그\s*이유는)|"
                           r"(?:때문이다|때문입니다|때문|므로|니까)\.?$", re.I)
_FILLER = {
    "is", "are", "was", "were", "be", "it", "its", "this", "that", "which", "and", "the", "a", "an", "in",
    "of", "with", "both", "so", "total", "overall", "also", "runs", "run", "takes", "take", "uses", "use",
    "needs", "need", "then", "my", "solution", "algorithm", "approach", "final", "i", "for", "to", "on",
    "complexity", "time", "space", "memory", "extra", "big", "o", "while", "whereas", "has", "have",
    "은", "는", "이", "가", "을", "를", "의", "에", "로", "으로", "이고", "이며", "이다", "입니다", "이에요",
    "예요", "이야", "고", "며", "다", "인데", "이지만", "지만", "이고요", "이죠", "이었다", "였다", "이었고",
    "였고", "모두", "둘", "각각", "그리고", "및", "와", "과", "도", "이라", "라", "이다.", "에요", "이구요",
    "정도", "정도다", "걸린다", "든다", "쓴다", "사용", "필요", "필요하다", "된다", "이므로", "므로", "라서",
    "이라서", "때문", "때문이다", "because", "since", "as", "due",
}

_LEADING = _FILLER - {"because", "since", "as", "due", "때문", "때문이다", "므로", "이므로", "라서", "이라서"}

_FIRST = re.compile(
    r"^at\s+first\b|\bat\s+first,?\s+(?:I|my)\b|\binitially\b|\bfirst,?\s+I\b|\bI\s+first\b|\bmy\s+first\s+(?:idea|thought|attempt|"
    r"approach|try|solution)\b|\bfirst\s+(?:idea|thought|attempt|approach|try)\b|\bbrute[- ]?force\b|"
    r"\bnaive(?:ly)?\b|\bthe\s+obvious\s+(?:way|idea|approach)\b|^(?:\S+\s)?처음(?:에는|엔|에|으로|에\s*는)?\s|"
    r"처음\s*(?:떠올|생각|아이디어|시도|접근|방법|에\s*떠올)|첫\s*(?:아이디어|시도|접근|생각)|맨\s*처음|"
    r"브루트\s*포스|완전\s*탐색|단순(?:하게|히)", re.I)
_FINAL = re.compile(
    r"\bthen\b|\bfinally\b|\beventually\b|\bin\s+the\s+end\b|\binstead\b|\bswitched\s+to\b|\bso\s+I\b|"
    r"\bfinal\s+(?:approach|solution|idea|version|method)\b|\bended\s+up\b|\bsubmitted\b|\bimproved\b|"
    r"\bchanged\s+(?:it\s+)?to\b|\bwent\s+with\b|\bsettled\s+on\b|그래서|결국|최종(?:적으로)?|대신|바꿨|"
    r"바꾸었|바꿔|바꾸어|개선|그\s*다음|다음으로|나중에|제출한|제출했", re.I)
_APPROACH = re.compile(
    r"\bI\s+(?:used|implemented|applied|wrote|solved\s+it\s+(?:with|using|by))\b|\busing\b|\buses\b|"
    r"사용|이용|구현|적용|으로\s*풀|로\s*풀|방식으로|방법으로", re.I)
_CLAUSE_BREAK = re.compile(r"[,;]\s*|(?:는데|지만|다가|고\s*나서|(?:나|아|어|해|되)서)\s+|"
                           r"\s(?:but|so)\s", re.I)
_WRONG = re.compile(
    r"wrong|mistake|\bbugs?\b|forgot|forget|missed|overflow|fail|\bTLE\b|time\s*limit|timed?\s*out|"
    r"edge\s+case|corner\s+case|off[- ]by[- ]one|crash|error|exception|tricky|careful|pitfall|stuck|"
    r"trip(?:ped)?\s+(?:me\s+)?up|struggl|confus|\bissues?\b|didn'?t\s+(?:handle|consider|account|check)|"
    r"careless|could\s+have\s+gone|left\s+out|overlook|neglect|"
    r"틀렸|틀린|틀릴|틀려|실수|오답|시간\s*초과|빠뜨|빼먹|놓쳤|놓치|잊|까먹|오버플로|에러|오류|버그|경계|"
    r"주의|헷갈|예외|실패|막혔|고생|잘못|헤맸|어려웠|(?:처리|고려|확인)하지\s*(?:않|못)", re.I)
_ALONE = re.compile(r"\balone\b|\bby\s+myself\b|\bon\s+my\s+own\b|\bindependently\b|"
                    r"\bwithout\s+(?:any\s+|a\s+)?(?:help|hints?|looking|reading|the\s+editorial)|혼자|스스로|"
                    r"도움\s*없이|(?:풀이|해설|답|힌트|솔루션)\s*(?:를|을)?\s*"
                    r"(?:안\s*보고|보지\s*않고|없이)", re.I)
_SOLUTION = re.compile(
    r"(?:read|reading|looked\s+at|looking\s+at|checked|saw|after|consult(?:ed|ing)?|referr?(?:ed|ing)\s+to|"
    r"with\s+the\s+help\s+of|followed|following)\s+(?:\w+\s+){0,3}?(?:editorial|solution|discussion|"
    r"hints?|answer)s?\b|\beditorial\b|풀이\s*(?:를|을)?\s*(?:보고|봤|참고|읽고|읽은)|해설|힌트|"
    r"답\s*(?:을)?\s*(?:보고|봤)|솔루션|참고해서|참고했|참고하여|다른\s*사람(?:의)?\s*(?:코드|풀이)", re.I)
_REDO = re.compile(r"redo|re-?solve|retry|revisit|review|again|다시|복습|재풀이", re.I)
_DATE = re.compile(r"\d{4}\s*[-./년]\s*\d{1,2}\s*[-./월]\s*\d{1,2}\s*일?")
_DIFFICULTY_CONTEXT = re.compile(r"난이도|difficulty|\blevel\b|\brated\b|레벨", re.I)
_DIFFICULTY_STRONG = re.compile(r"\b(?:Easy|Medium|Hard)\b|\b(?:easy|medium|hard)[- ](?:level|problem|"
                                r"question|one)\b|미디엄")


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
    wrong = [s for s in sentences if _WRONG.search(s.text)]
    for s in [s for s in wrong if s.text not in used] + wrong:  # a sentence of its own first
        put("what_went_wrong", s.text, s.line, s)
    _read_solved(sentences, put)
    return found


def _difficulty(text: str) -> str | None:
    if _DIFFICULTY_CONTEXT.search(text):
        return parse_difficulty(text)
    strong = _DIFFICULTY_STRONG.findall(text)
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
        if _letters(s.text) >= 8:
            put("first_idea", s.text, s.line, s)
        later = sentences[i + 1:] + sentences[:i]
    else:
        later = sentences
    for pattern in (_FINAL, _APPROACH):
        for s in later:
            if not pattern.search(s.text) or _letters(s.text) < 8 or _only_complexity(s.text):
                continue
            verb, bigos = pattern.search(s.text), find_all_bigo(s.text)
            if pattern is _APPROACH and verb and bigos and not _content(s.text[verb.end():bigos[0].start]):
                continue  # 'It uses O(1) extra space: ...' describes the space, not the method
            put("final_approach", s.text, s.line, s)
            return


def _clause_cut(text: str, after: int, final: int) -> int | None:
    """Where the final approach's clause starts: after the last clause break before its cue."""
    cut = None
    for m in _CLAUSE_BREAK.finditer(text, after, final + 1):
        if m.end() <= final + 1:
            cut = m.end()
    return cut if cut is not None else final


def _only_complexity(text: str) -> bool:
    """'Then the time complexity is O(n).' states a complexity, not an approach."""
    rest = text
    for m in reversed(find_all_bigo(text)):
        rest = rest[:m.start] + rest[m.end:]
    for cue in (_TIME, _SPACE, _GENERIC):
        rest = cue.sub(" ", rest)
    return not _content(_FINAL.sub(" ", rest))


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
    strength: int
    in_first: bool
    reason: str
    introduced: bool = False  # the reason is set off ('because', ':', '—'), so it may speak for both
    clause_end: int = 0  # where this Big-O's clause ends in the sentence: the next one's may start there


def _read_complexities(sentences: list[Sentence], put: _Put) -> None:
    mentions: list[_Mention] = []
    for index, s in enumerate(sentences):
        found = _sentence_complexities(s)
        if found and not any(m.reason for m in found) and index + 1 < len(sentences):
            follow = sentences[index + 1]
            if _REASON_START.search(follow.text) and not find_all_bigo(follow.text):
                for m in found:
                    m.reason = follow.text
        mentions += found
    for kind in ("time", "space"):
        # the first idea's complexity ('brute force in O(n) time') is not the answer's
        candidates = [m for m in mentions if kind in m.kinds and not m.in_first]
        if not candidates:
            continue
        best = max(m.strength for m in candidates)
        chosen = next(m for m in candidates if m.strength == best)
        value = f"{chosen.match.written} — {chosen.reason}" if chosen.reason else chosen.match.written
        put(kind, value, chosen.sentence.line_at(chosen.match.start), chosen.sentence)


# A complexity said in words ('log n time', 'constant extra space', '선형 시간', 'time is linear',
# '공간 복잡도는 상수'): read as the claim, so the review can say it wants O(...) (unsure, no point taken)
# rather than call the field missing.
_WORDS = (r"log(?:arithmic)?(?:\s*\(?\s*[nN]\s*\)?)?|linear|constant|quadratic|[nN]\s*log\s*[nN]|"
          r"선형|상수|로그|이차")
_CUE_WORDS = r"time|space|memory|시간|공간|메모리"
_WORDS_BEFORE = re.compile(rf"(?<![\w(])(?P<w>{_WORDS})\s*(?:-\s*)?(?:extra\s+|auxiliary\s+|추가\s*)?"
                           rf"(?:{_CUE_WORDS})", re.I)
_WORDS_AFTER = re.compile(rf"(?:{_CUE_WORDS})(?:\s*complexity|\s*복잡도)?\s*(?:is|are|was|:|은|는|이|가)?\s*"
                          rf"(?P<w>{_WORDS})(?![\w(])", re.I)


def word_complexities(text: str) -> list[tuple[BigOMatch, str]]:
    """Each complexity said in words next to its cue, as a match the way ``find_all_bigo`` gives one,
    with what its own cue says it measures ('time' or 'space')."""
    found: dict[int, tuple[BigOMatch, str]] = {}
    for pattern in (_WORDS_BEFORE, _WORDS_AFTER):
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
        kinds, strength, cue_span = _kinds(before, after, lo, m.end)
        if m.start in said:
            kinds, strength = (said[m.start],), 2
        if not kinds and out and len(out[-1].kinds) == 2 and _LIST_GAP.fullmatch(before):
            kinds, strength, cue_span = out[-1].kinds, out[-1].strength, (m.start, m.start)  # '…, O(1)'
        if not kinds:
            continue
        final = _FINAL.search(text, first.end(), m.start) if first is not None and first.end() <= m.start \
            else None
        in_first = first is not None and first.end() <= m.start and final is None
        # this Big-O's clause: from its cue (or itself) to the next Big-O's cue
        start = min(cue_span[0], m.start)
        end = hi
        if k + 1 < len(matches):  # up to the next Big-O's own cue, when it comes before that Big-O
            own_end = max(m.end, cue_span[1])
            for cue in (_TIME, _SPACE):  # 'O(n) time': that cue is this Big-O's
                after_cue = cue.match(text, m.end, min(hi, m.end + 14)) or cue.search(text, m.end, m.end + 14)
                if after_cue is not None and after_cue.start() - m.end <= 12:
                    own_end = max(own_end, after_cue.end())
            nxt = _kinds(text[own_end:matches[k + 1].start], "", own_end, own_end)[2]
            end = nxt[0] if nxt[0] > own_end else hi
        rest = text[start:m.start] + " " + text[m.end:end]
        # a reason said before the claim: '반복문이라 공간 복잡도는 O(1)', 'Since n halves, the time is ...'
        ahead = _reason_ahead(text[out[-1].clause_end if out else 0:start])
        rest = ahead + " " + rest
        for cue in (_TIME, _SPACE, _GENERIC):
            rest = cue.sub(" ", rest)
        reason = _reason(rest)
        lead = _SPACE.sub(" ", _TIME.sub(" ", text[m.end:end])).lstrip(" $")
        introduced = bool(reason) and (bool(_CAUSE.search(reason)) or lead[:1] in (":", "—", "–", "-", "(")
                                       or bool(ahead))
        out.append(_Mention(s, m, kinds, strength, in_first, reason, introduced, end))
    _one_claim_each(text, out)
    for k, m in enumerate(out):  # 'O(n) time and O(1) space because ...': the reason is shared
        if not m.reason:
            m.reason = next((x.reason for x in out[k + 1:] if x.introduced), "")
    return out


_LIST_GAP = re.compile(r"[\s$]*(?:[,/;]|and|및|그리고|,\s*and)?[\s$]*(?:각각|respectively)?[\s$]*", re.I)


def _one_claim_each(text: str, mentions: list[_Mention]) -> None:
    """'시간과 공간 복잡도는 O(n), O(1)': one cue naming both, then two Big-Os: each its own, in the cue's
    order, rather than both to each."""
    both = [m for m in mentions if len(m.kinds) == 2]
    if len(both) != 2:
        return
    cue = _BOTH.search(text)
    order = ("space", "time") if cue and re.match(r"space|공간", cue.group(), re.I) else ("time", "space")
    for m, kind in zip(both, order, strict=True):
        m.kinds = (kind,)


def _kinds(before: str, after: str, lo: int, hi: int) -> tuple[tuple[str, ...], int, tuple[int, int]]:
    """What a Big-O measures, from the cue nearest to it: ('time',) / ('space',) / both; its strength
    (2 for 'time complexity', 1 for a bare 'time'); the cue's span in the sentence."""
    before_clean = _NOT_TIME.sub(lambda m: "\0" * len(m.group()), before)
    after_clean = _NOT_TIME.sub(lambda m: "\0" * len(m.group()), after)
    if _BOTH.search(before_clean):
        both = list(_BOTH.finditer(before_clean))[-1]
        return ("time", "space"), 2, (lo + both.start(), lo + both.end())
    options: list[tuple[int, str, int, tuple[int, int]]] = []
    for kind, cue in (("time", _TIME), ("space", _SPACE)):
        for m in cue.finditer(before_clean):
            span = (lo + m.start(), lo + m.end())
            options.append((len(before_clean) - m.end(), 0, kind, _strength(m.group()), span))
        m = cue.search(after_clean)
        # 'O(n) time', 'O(1)의 공간'; not ', 공간 복잡도는 O(1)', which opens the next claim
        if m is not None and m.start() <= 12 and not _CLAUSE_END.search(after_clean[:m.start()]):
            options.append((m.start(), 1, kind, _strength(m.group()), (hi + m.start(), hi + m.end())))
    if options:
        _, _, kind, strength, span = min(options)
        return (kind,), strength, span
    generic = list(_GENERIC.finditer(before_clean))
    if generic:
        return ("time",), 1, (lo + generic[-1].start(), lo + generic[-1].end())
    return (), 0, (hi, hi)


_CLAUSE_END = re.compile(r"[,;，、/|]|\s(?:and|but|while|whereas)\s|(?:이고|이며|이지만|인데|고|며)\s", re.I)
# A reason that comes before its claim ends in a causal connective: Korean -이라/-라서/-니까/-므로/
# -때문에/-아서 (not the particle -에서), or opens with English 'since/because/as'.
_REASON_BEFORE = re.compile(
    r"(?:이라서|라서|이라|(?<=[가-힣])라|니까|으므로|므로|때문에|(?<=[가-힣])(?<![에로])서)\s*,?\s*$|"
    r"^\s*(?:since|because|as|given\s+that|due\s+to)\b", re.I)


def _reason_ahead(text: str) -> str:
    """The reason given before a claim in its clause ('체 배열이 n칸이라 ', 'Since the exponent halves,
    the '), or '' when the words before the claim are not one."""
    body = text.strip().rstrip(",").strip()
    if not body:
        return ""
    # 'Since ..., the time is': the clause up to the comma before the claim
    head = re.sub(r"[,，]\s*(?:the|its|my|this|so|then)?\s*$", "", body, flags=re.I).strip()
    if _REASON_BEFORE.search(head) or _REASON_BEFORE.search(body):
        return head
    return ""


def _strength(cue: str) -> int:
    return 2 if re.search(r"complexity|복잡도|runs?\s+in|running|수행|실행|extra", cue, re.I) else 1


def _reason(rest: str) -> str:
    """The explanation left once cues and the Big-O are gone, or '' when only filler remains."""
    words = to_plain(rest).text.split()
    while words and (words[0].lower().strip(",;.:—–-") in _LEADING or not words[0].strip(",;.:—–-$")):
        words.pop(0)  # '는 $ $이고 n이 ...': the particles and math marks left by the cue
    if words and words[0].startswith(("이고", "인데", "이며", "이라", "으로", "이므로")):
        words[0] = re.sub(r"^(?:이고|인데|이며|이라|으로|이므로)", "", words[0]) or words[0]
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
        date = _DATE.search(s.text)
        if date and date.group() not in value:
            value += f" ({date.group()})"
        put("solved", value, s.line, s)
        break
    for s in sentences:
        date = _DATE.search(s.text)
        if date and (_REDO.search(s.text) or _SOLUTION.search(s.text)):
            put("redo_date", date.group(), s.line_at(date.start()), s)
            break
