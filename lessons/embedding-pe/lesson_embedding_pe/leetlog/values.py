"""Small readers of one field's value, below the parser, the prose reader and the review that all use
them: the difficulty a log names, and whether a problem was solved alone."""

from __future__ import annotations

import re

from .vocab import CUE, DIFFICULTY_WORDS, WORDS

# each level's words, whole words only ('hard' is not in 'hardly'); '=중' only as the whole answer
_LEVELS = {level: re.compile("|".join(rf"^\W*{re.escape(w[1:])}\W*$" if w.startswith("=") else
                                      rf"(?<![a-z]){re.escape(w)}(?![a-z])" for w in words))
           for level, words in DIFFICULTY_WORDS.items()}


def parse_difficulty(text: str) -> str | None:
    """'Medium (중간)' -> 'Medium', 'Medium (202번은 Easy)' too: the level named outside the parentheses, else
    in them; the first of several when the others are as felt ('Medium, but it felt hard'); else None when
    no level, or more than one, is named."""
    for said in (CUE["aside"].sub(" ", text), text):
        at = {level: m.start() for level, words in _LEVELS.items() if (m := words.search(said.lower()))}
        if len(at) > 1 and CUE["felt_difficulty"].search(text):  # the others as the student felt them
            return min(at, key=at.__getitem__)
        if at:
            return at.popitem()[0] if len(at) == 1 else None
    return None


def classify_solved(text: str, asked: str = "") -> str | None:
    """'alone', 'solution' (after reading one), or None when unclear or both; a bare yes or no answers
    the question of its label, ``asked`` ('Solved alone? Yes' is alone, 'Used a hint? No' alone too)."""
    if CUE["alone_despite"].search(text):
        return "alone"
    if CUE["not_alone"].search(text):
        return "solution"
    solution, alone = bool(CUE["solution"].search(text)), bool(CUE["alone"].search(text))
    if solution == alone and asked and (about := classify_solved(asked)):
        # the answer's first word, before a remark: 'Yes ✅', 'no, watched a video', 'X (풀이 봄)'
        answer = re.split(r"[\s,;:(—–]+", text.strip(" .!~-").lower(), maxsplit=1)[0].strip(" .!~")
        if answer in WORDS["answer_yes"]:
            return about
        if answer in WORDS["answer_no"]:
            return "solution" if about == "alone" else "alone"
    return None if solution == alone else "solution" if solution else "alone"
