"""Small readers of one field's value: the difficulty a log names, and whether a problem was solved
alone. The parser, the prose reader and the review all use them, so they live below all three."""

from __future__ import annotations

import re

from .vocab import CUE, DIFFICULTY_WORDS


def parse_difficulty(text: str) -> str | None:
    """'Medium (중간)' -> 'Medium'; None when no level, or more than one, is named."""
    low = text.lower()
    found = {
        level for level, words in DIFFICULTY_WORDS.items()
        if any(re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", low) for w in words)
    }
    return found.pop() if len(found) == 1 else None


def classify_solved(text: str) -> str | None:
    """'alone', 'solution' (after reading one), or None when unclear or both."""
    if CUE['alone_despite'].search(text):
        return "alone"
    if CUE['not_alone'].search(text):
        return "solution"
    solution, alone = bool(CUE['solution'].search(text)), bool(CUE['alone'].search(text))
    if solution != alone:
        return "solution" if solution else "alone"
    return None
