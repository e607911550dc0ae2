"""Small readers of one field's value: the difficulty a log names, and whether a problem was solved
alone. The parser, the prose reader and the review all use them, so they live below all three."""

from __future__ import annotations

import re

from .vocab import DIFFICULTY_WORDS

_DIFFICULTY_WORDS = DIFFICULTY_WORDS  # vocab.json


def parse_difficulty(text: str) -> str | None:
    """'Medium (중간)' -> 'Medium'; None when no level, or more than one, is named."""
    low = text.lower()
    found = {
        level for level, words in _DIFFICULTY_WORDS.items()
        if any(re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", low) for w in words)
    }
    return found.pop() if len(found) == 1 else None


_ALONE_DESPITE = re.compile(
    r"without\s+(?:\w+\s+){0,3}(?:solution|hint|editorial|help)|no\s+hints?|"
    r"(?:풀이|해설|답|힌트|솔루션|도움)\s*(?:없이|안\s*보고|보지\s*않고)", re.I)
_NOT_ALONE = re.compile(r"not\s+alone|couldn'?t\s+\w+\s+alone|혼자\s*(?:못|는\s*못|풀지\s*못)", re.I)
_SOLUTION = re.compile(
    r"solution|editorial|hint|discussion|looked\s+up|read\s+(?:the\s+)?answer|"
    r"풀이\s*(?:를|을)?\s*(?:보고|봄|참고|읽고)|해설|답\s*(?:을)?\s*(?:보고|봄)|힌트|솔루션|참고", re.I)
_ALONE = re.compile(r"alone|myself|on\s+my\s+own|independent|혼자|스스로|직접", re.I)


def classify_solved(text: str) -> str | None:
    """'alone', 'solution' (after reading one), or None when unclear or both."""
    if _ALONE_DESPITE.search(text):
        return "alone"
    if _NOT_ALONE.search(text):
        return "solution"
    solution, alone = bool(_SOLUTION.search(text)), bool(_ALONE.search(text))
    if solution != alone:
        return "solution" if solution else "alone"
    return None
