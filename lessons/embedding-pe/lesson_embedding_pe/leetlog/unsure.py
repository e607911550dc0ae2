"""Sure or ask: a log check takes a point only when the reader is sure the log lacks it.

The review's rules read the layouts they were written for. When one of them finds a field missing,
its reason missing or its Big-O missing, this module asks a second, simpler question of the
problem's whole text: are the field's words there at all? If they are (a Big-O, complexity words,
a causal connective in either language, the field's own vocabulary under a label the parser did not
place), the reader is not sure: the finding becomes ``unsure``, the points stay (provisionally), the
student is told a TA will read that part, and the finding goes to the TA's review queue. Only when
the text holds none of the field's words is the finding kept as a sure ``error``.
"""

from __future__ import annotations

import re

UNSURE = "unsure"
# The checks that can be unsure: what the reader could not place, never what it read and judged.
SETTLED_BY_TA = ("missing_field", "no_reason", "no_bigo")

_BIGO = re.compile(r"\b[OΘΩoθ]\s*\(|\$\s*\\?mathcal|\\(?:Theta|Omega)\b")
_COMPLEXITY_WORDS = (
    r"\blog\s*\(?\s*n\b|\blogarithmic|\blinear|\bconstant|\bquadratic|\bcubic|\bsqrt|√|\bn\s*\^\s*\d|"
    r"n²|n\s*squared|n\s*log|로그|선형|상수|제곱|루트"
)
# A reason said before or after its claim: Korean -이라/-라서/-므로/-니까/-때문에/-어서/-아서, and
# English since/as/because/so/due to/thanks to.
_CONNECTIVE = re.compile(
    r"이라|라서|므로|니까|때문|어서|아서|해서|하여|기에|\bsince\b|\bas\b|\bbecause\b|\bso\b|\bdue\s+to\b|"
    r"\bthanks\s+to\b|\bsince\b|\bgiven\b|\bwhich\b|→|->|=>|—|–| - ",
    re.I,
)
# Each field's own words: found in the problem's text, the field may be there under a form the
# parser does not know (an unknown label, a table column, an arrow, a line per problem).
_FIELD_WORDS = {
    "problem": r"\b\d{1,4}\s*[.)번]\s*[A-Za-z가-힣]",
    "difficulty": r"\bmed(?:ium)?\b|\beasy\b|\bhard\b|중간|보통|쉬움|어려움|미디엄|난이도"
                  r"|difficulty|\bdiff\b",
    # 'first' alone is no first idea ('largest first'): a phrase that introduces one
    "first_idea": r"처음|첫\s*(?:아이디어|시도|접근|생각)|at\s+first|"
                  r"\bfirst\s+(?:idea|thought|attempt|try|approach)|\binitial(?:ly)?\b|brute|naive|완전\s*탐색|브루트|단순|\bidea\b|아이디어|intuition|->|→",
    "final_approach": r"최종|결국|final|approach|접근|improv|개선|submitted|제출|->|→",
    # not the bare word 'complexity' ('# Complexity' heads both): it says neither which one nor what it is
    "time": rf"\btime\b|시간|{_BIGO.pattern}|{_COMPLEXITY_WORDS}",
    "space": rf"space|공간|memory|메모리|{_BIGO.pattern}|{_COMPLEXITY_WORDS}|extra",
    "what_went_wrong": r"wrong|mistake|bug|틀|오류|실수|edge|경계|overflow|오버플로|timeout|초과|\bTLE\b|"
                       r"\bWA\b|fail|실패|음수|negative|could\s+have",
    "solved": r"alone|myself|on\s+my\s+own|solution|editorial|혼자|스스로|풀이|힌트|hint|해설|\bsolved\b|풂",
    "redo_date": r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}|redo|다시",
}
_WORDS = {k: re.compile(v, re.I) for k, v in _FIELD_WORDS.items()}

# 'O(1)이다.', 'is O(n)': the claim stated, no reason given
COPULA = re.compile(r"(?:^|(?<=\s))(?:이다|입니다|이에요|예요|이야|임|is|are|was)(?=\s|$)", re.I)

TA_EN = "A TA will read this part; no point is taken for it."
TA_KO = "이 부분은 조교가 직접 읽습니다. 이 부분에서 감점하지 않습니다."


def field_words(name: str, text: str) -> bool:
    """Whether ``text`` holds any of field ``name``'s words."""
    pattern = _WORDS.get(name)
    return bool(pattern and pattern.search(text))


def complexity_words(text: str) -> bool:
    """A complexity said in words ('log n time, constant space', '선형 시간') rather than as O(...)."""
    return bool(re.search(_COMPLEXITY_WORDS, text, re.I))


def has_connective(text: str) -> bool:
    return bool(_CONNECTIVE.search(text))


def is_unsure(code: str, name: str, value: str, text: str, emptied: bool) -> str | None:
    """What the reader saw that keeps it from being sure; None when it is sure of the finding.

    ``value`` is what the parser placed in the field (may be ""), ``text`` everything written under
    the problem, ``emptied`` whether the student's log has the field's label with nothing after it.
    """
    if code == "missing_field":
        if emptied:  # the label is there and its value is not: plainly absent
            return None
        if field_words(name, _without_other_labels(text)):
            return "the field's words are in the problem's text, under a form the reader did not place"
        return None
    if code == "no_reason":
        from .mathtext import to_plain  # LaTeX markup ('\\mathcal') is neither a reason nor words

        rest = COPULA.sub(" ", re.sub(r"[.。,;:]", " ", _BIGO_SPAN.sub(" ", to_plain(value).text)))
        if has_connective(rest) or sum(c.isalpha() for c in rest) >= 2:
            return "the field holds words besides the Big-O the reader could not tell apart from a reason"
        if has_connective(text) and field_words(name, text):
            return "a reason may be given elsewhere in the problem's text"
        return None
    if code == "no_bigo":
        if complexity_words(value):
            return "the complexity is said in words, not as O(...)"
        if _BIGO.search(value):
            return "a Big-O-like form the reader could not read"
        return None
    return None


_BIGO_SPAN = re.compile(r"[OΘΩoθ]\s*\([^)]*\)")
_TEMPLATE_LABELS = re.compile(r"^\s*[-*+]?\s*\**[^:\n]{0,30}\**\s*[:：]\s*$", re.M)


def _without_other_labels(text: str) -> str:
    """The text less label-only lines (an emptied field's label is not that field's content)."""
    return _TEMPLATE_LABELS.sub("", text)
