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

COPULA = CUE["copula"]  # 'O(1)이다.', 'is O(n)': the claim stated, no reason given

TA_EN, TA_KO = MESSAGES["ta"]["en"], MESSAGES["ta"]["ko"]  # said wherever a TA reads a part


def field_words(name: str, text: str) -> bool:
    """Whether ``text`` holds any of field ``name``'s words."""
    pattern = FIELD_WORDS.get(name)
    return bool(pattern and pattern.search(text))


def is_unsure(code: str, name: str, value: str, text: str, emptied: bool) -> str | None:
    """What the reader saw that keeps it from being sure; None when it is sure of the finding.

    ``value`` is what the parser placed in the field (may be ""), ``text`` everything written under
    the problem, ``emptied`` whether the student's log has the field's label with nothing after it.
    """
    if code == "missing_field":
        # the label with nothing after it is plainly absent; an emptied label is no content of its own
        if not emptied and field_words(name, CUE["label_only_line"].sub("", text)):
            return "the field's words are in the problem's text, under a form the reader did not place"
        return None
    if code == "no_reason":
        from .mathtext import to_plain  # LaTeX markup ('\\mathcal') is neither a reason nor words

        bigo_out = CUE["bigo_span"].sub(" ", to_plain(value).text)
        rest = COPULA.sub(" ", re.sub(r"[.。,;:]", " ", bigo_out))
        if CUE["connective"].search(rest) or sum(c.isalpha() for c in rest) >= 2:
            return "the field holds words besides the Big-O the reader could not tell apart from a reason"
        if CUE["connective"].search(text) and field_words(name, text):
            return "a reason may be given elsewhere in the problem's text"
        return None
    if code == "no_bigo" and CUE["complexity_words"].search(value):
        return "the complexity is said in words, not as O(...)"
    if code == "no_bigo" and CUE["bigo_like"].search(value):
        return "a Big-O-like form the reader could not read"
    return None
