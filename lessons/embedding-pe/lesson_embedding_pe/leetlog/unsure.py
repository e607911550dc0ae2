"""Sure or ask: a check takes a point only when the reader is sure the log lacks it. A missing field, reason
or Big-O whose words are still in the problem's text, or a 'solved' that answers both ways, is ``unsure``:
the points stay and a TA reads it."""

from __future__ import annotations

from .bigo import ParseError, find_all_bigo, parse
from .mathtext import to_plain
from .parser import REASON_LABEL, ProblemEntry, unlabelled
from .prose import letters, split_sentences
from .vocab import CUE, FIELD_WORDS, MESSAGES

UNSURE = "unsure"
TA_EN, TA_KO = MESSAGES["ta"]["en"], MESSAGES["ta"]["ko"]  # said wherever a TA reads a part
# A complexity is named by its own name (a sentence with only the other's Big-O does not hold it).
_NAMES = {**FIELD_WORDS, "time": CUE["own_time"], "space": CUE["own_space"]}


def names_field(name: str, text: str) -> bool:
    """Whether ``text`` names field ``name``: a complexity by its own name, another by its words."""
    return _NAMES[name].search(text) is not None


def besides_bigo(value: str) -> str:
    """A complexity less its Big-Os (as the grammar finds them), LaTeX markup and a reason's label ('이유:'
    names a reason and is none): what may give its reason."""
    rest = value
    for m in reversed(find_all_bigo(value)):
        rest = rest[:m.start] + " " + rest[m.end:]
    return to_plain(REASON_LABEL.sub(" ", rest)).text


def has_reason(value: str) -> bool:
    """Two letters or more besides the separators; a copula states the claim, no reason ('O(1)이다.')."""
    words = CUE["copula"].sub(" ", CUE["separators"].sub(" ", besides_bigo(value)))
    return letters(words) >= 2


def is_unsure(code: str, name: str, entry: ProblemEntry) -> tuple[str, int | None] | None:
    """What keeps the reader from being sure of error ``code`` on field ``name`` (its 'saw_...' message),
    and for a missing field the line holding the field's words (None: they span lines); None: sure."""
    placed = entry.fields.get(name)
    value = placed.value if placed else ""
    if code == "missing_field":
        # a log all in prose: every sentence was read; a label with nothing after it is plainly absent
        parts = [] if entry.implicit or placed else [
            (n, CUE["label_only_line"].sub("", t)) for n, t in _unplaced(entry, name)]
        if FIELD_WORDS[name].search("\n".join(t for _, t in parts)):
            return "saw_words_unplaced", next((n for n, t in parts if FIELD_WORDS[name].search(t)), None)
        return None
    if code == "no_reason":
        # 'O(log n) → n': too little to call a reason (has_reason), too much to call none
        if CUE["connective"].search(besides_bigo(value)):
            return "saw_words_besides_bigo", None
        text = "\n".join(t for _, t in _unplaced(entry, name))
        elsewhere = CUE["connective"].search(text) and FIELD_WORDS[name].search(text)
        why = "saw_reason_elsewhere" if elsewhere else ""
    elif code == "bad_solved":  # '혼자 (음수 처리만 힌트 봄)': alone, with a hint for one part: a TA's call
        why = "saw_both_answers" if CUE["alone"].search(value) and CUE["solution"].search(value) else ""
    elif CUE["complexity_words"].search(value):
        why = "saw_complexity_in_words"
    elif CUE["bigo_like"].search(value):
        why = "saw_bigo_like"
    else:  # 'Space (Big-O): 1 — a few variables': a complexity with its O(...) left out
        why = "saw_bare_bigo" if code == "no_bigo" and _bare_bigo(value) else ""
    return (why, None) if why else None


def _unplaced(entry: ProblemEntry, name: str) -> list[tuple[int, str]]:
    """(line, text) under a problem that may still hold ``name``: its heading, prose no field was read from,
    other fields' continuation lines (an unknown label is swallowed there); a labelled line is its field's."""
    placed = {" ".join(f.raw.split()) for f in entry.fields.values() if f.label == "sentence"}
    prose = [(s.line, s.text) for s in split_sentences([(n, unlabelled(t)) for n, t in entry.extra])
             if " ".join(s.text.split()) not in placed] if placed else entry.extra
    parts = [(entry.line, entry.heading), *prose]
    complexity = name in ("time", "space")
    for other, f in entry.fields.items():
        if other == name or (complexity and other in ("time", "space") and names_field(name, f.raw)):
            parts += f.lines or [(f.line, f.raw)]
        elif not (complexity or {name, other} == {"first_idea", "final_approach"}):
            # the other complexity's own claim, a method's own words ('제곱근까지', 'n times'), the final
            # approach's for the first idea: none of them is this field
            parts += f.lines[1:]
    return [*parts, *((d.line, d.raw) for d in entry.duplicates)]


def _bare_bigo(value: str) -> bool:
    """Whether ``value`` opens with a complexity the Big-O grammar reads once O(...) is put around it, in n
    alone ('1', 'n', 'n log log n'), not a word ('fast', 'ok': o times k)."""
    head = CUE["bare_bigo_end"].split(value, maxsplit=1)[0].strip()
    try:
        return 0 < len(head) <= 24 and parse(f"O({head})").variables <= {"n", "N"}
    except ParseError:
        return False
