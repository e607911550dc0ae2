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
    in them; None when no level, or more than one, is named."""
    for said in (CUE["aside"].sub(" ", text), text):
        if found := {level for level, words in _LEVELS.items() if words.search(said.lower())}:
            return found.pop() if len(found) == 1 else None
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
        answer = text.strip(" .!~").lower()
        if answer in WORDS["answer_yes"]:
            return about
        if answer in WORDS["answer_no"]:
            return "solution" if about == "alone" else "alone"
    return None if solution == alone else "solution" if solution else "alone"
