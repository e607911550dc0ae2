"""The log reader's vocabulary, read once from ``vocab.json`` beside this module.

The template's field names, the labels students write for each field (both languages, abbreviations,
반말) and the words of each difficulty live in that one data file, so a new label is a line of data that
every part of the reader (parser.py, review.py, loggrade.py through ``match_label``) sees at once.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["DIFFICULTY_WORDS", "FIELDS", "LABELS_EN", "LABELS_KO", "SYNONYMS"]


@cache
def _data() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("vocab.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


FIELDS: tuple[str, ...] = tuple(_data()["fields"])
LABELS_KO: dict[str, str] = dict(_data()["template_labels"]["ko"])
LABELS_EN: dict[str, str] = dict(_data()["template_labels"]["en"])
SYNONYMS: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _data()["labels"].items()}
DIFFICULTY_WORDS: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _data()["difficulty"].items()}
