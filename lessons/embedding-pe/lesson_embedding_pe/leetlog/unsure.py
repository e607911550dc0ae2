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

from .vocab import CUE, FIELD_WORDS, MESSAGES

UNSURE = "unsure"
# The checks that can be unsure: what the reader could not place, never what it read and judged.
SETTLED_BY_TA = ("missing_field", "no_reason", "no_bigo")

_BIGO = CUE["bigo_like"]
COPULA = CUE["copula"]  # 'O(1)이다.', 'is O(n)': the claim stated, no reason given

TA_EN, TA_KO = MESSAGES["ta"]["en"], MESSAGES["ta"]["ko"]  # said wherever a TA reads a part


def field_words(name: str, text: str) -> bool:
    """Whether ``text`` holds any of field ``name``'s words."""
    pattern = FIELD_WORDS.get(name)
    return bool(pattern and pattern.search(text))


def complexity_words(text: str) -> bool:
    """A complexity said in words ('log n time, constant space', '선형 시간') rather than as O(...)."""
    return bool(CUE["complexity_words"].search(text))


def has_connective(text: str) -> bool:
    return bool(CUE["connective"].search(text))


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
