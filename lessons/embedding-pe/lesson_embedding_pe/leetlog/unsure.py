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

from .mathtext import to_plain
from .parser import ProblemEntry, unlabelled
from .prose import split_sentences
from .vocab import CUE, FIELD_WORDS, MESSAGES

UNSURE = "unsure"
COPULA = CUE["copula"]  # 'O(1)이다.', 'is O(n)': the claim stated, no reason given
TA_EN, TA_KO = MESSAGES["ta"]["en"], MESSAGES["ta"]["ko"]  # said wherever a TA reads a part
# A complexity's own name: a sentence with it holds that claim (one with only the other's Big-O does not).
_OWN_NAME = {"time": CUE["own_time"], "space": CUE["own_space"]}


def field_words(name: str, text: str) -> bool:
    """Whether ``text`` holds any of field ``name``'s words."""
    pattern = FIELD_WORDS.get(name)
    return bool(pattern and pattern.search(text))


def names_field(name: str, text: str) -> bool:
    """Whether ``text`` names field ``name``: a complexity by its own name, another by its words."""
    own = _OWN_NAME.get(name)
    return bool(own.search(text)) if own is not None else field_words(name, text)


def is_unsure(code: str, name: str, entry: ProblemEntry) -> str | None:
    """What the reader saw that keeps it from being sure of error ``code`` ('missing_field', 'no_reason',
    'no_bigo') on field ``name``; None when it is sure of the finding."""
    placed = entry.fields.get(name)
    value = placed.value if placed is not None else ""
    if code == "missing_field":
        # a log all in prose: every sentence was read; a label with nothing after it is plainly absent
        if entry.implicit or placed is not None:
            return None
        if field_words(name, CUE["label_only_line"].sub("", _unplaced_text(entry, name))):
            return "the field's words are in the problem's text, under a form the reader did not place"
        return None
    if code == "no_reason":
        # LaTeX markup ('\\mathcal') is neither a reason nor words
        rest = COPULA.sub(" ", re.sub(r"[.。,;:]", " ", CUE["bigo_span"].sub(" ", to_plain(value).text)))
        if CUE["connective"].search(rest) or sum(c.isalpha() for c in rest) >= 2:
            return "the field holds words besides the Big-O the reader could not tell apart from a reason"
        text = _unplaced_text(entry, name)
        if CUE["connective"].search(text) and field_words(name, text):
            return "a reason may be given elsewhere in the problem's text"
        return None
    if CUE["complexity_words"].search(value):
        return "the complexity is said in words, not as O(...)"
    if CUE["bigo_like"].search(value):
        return "a Big-O-like form the reader could not read"
    return None


def _unplaced_text(entry: ProblemEntry, name: str) -> str:
    """What under a problem might still hold field ``name``: its prose, every field's continuation
    lines (where a label the parser does not know is swallowed), and for a complexity the other
    complexity's line (both said in one field). A field's own labelled line belongs to that field."""
    # the prose less each sentence a field was read from (prose.py): what is left was not placed
    placed = {" ".join(f.raw.split()) for f in entry.fields.values() if f.label == "sentence"}
    prose = [t for _, t in entry.extra]
    if placed:
        prose = [s.text for s in split_sentences([(n, unlabelled(t)) for n, t in entry.extra])
                 if " ".join(s.text.split()) not in placed]
    parts = [entry.heading, *prose]
    complexity = name in ("time", "space")
    for other, f in entry.fields.items():
        rest = f.lines[1:]
        if other == name or (complexity and other in ("time", "space") and names_field(name, f.raw)):
            rest = f.lines or [(f.line, f.raw)]
        elif complexity or {name, other} == {"first_idea", "final_approach"}:
            # the other complexity's own claim, a method's own words ('제곱근까지', 'n times'), the final
            # approach's for the first idea: none of them is this field (an unknown label no longer hides in
            # a field: parser._ends_field)
            rest = []
        parts += [t for _, t in rest]
    return "\n".join([*parts, *(d.raw for d in entry.duplicates)])
