"""The log reader's vocabulary, read once from ``vocab.toml``: every word it matches or writes, in both
languages, so that a new label, cue or message is a line of data every part of the reader sees at once."""

from __future__ import annotations

import re
import string
import sys
from importlib import resources
from typing import Any, NamedTuple

from grader.author import particle
from lesson_embedding_pe.practice import RULE

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the kit requires tomli there
    import tomli as tomllib

__all__ = ["CUE", "DATES", "DIFFICULTY_WORDS", "FIELDS", "FIELD_WORDS", "FORM", "LABELS_EN", "LABELS_KO",
           "LATEX", "MESSAGES", "MONTHS", "NEAREST", "ORDINALS", "REVIEW", "SYNONYMS", "WORDS", "Two", "load",
           "message", "render_template", "short"]


def load(name: str) -> dict[str, Any]:
    """A TOML data file beside this module (vocab.toml, catalog.toml)."""
    return tomllib.loads(resources.files(__package__).joinpath(name).read_text("utf-8"))


_DATA = load("vocab.toml")

FIELDS: tuple[str, ...] = tuple(_DATA["fields"])
LABELS_KO: dict[str, str] = _DATA["template_labels"]["ko"]
LABELS_EN: dict[str, str] = _DATA["template_labels"]["en"]
_RAW: dict[str, str] = {**_DATA["parts"], **_DATA["cues"]}


def _expand(text: str) -> str:
    """A cue with each '<<name>>' replaced by that shared piece (or cue), as written."""
    return re.sub(r"<<(\w+)>>", lambda m: _expand(_RAW[m.group(1)]), text)


# the cues, each field's own words and the field reader's forms (parser.py), matched case-insensitively
# ('(?-i:...)' in the data marks a part that is not)
CUE, FIELD_WORDS, FORM = ({k: re.compile(_expand(v), re.I) for k, v in _DATA[section].items()}
                          for section in ("cues", "field_words", "reader"))
WORDS: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in _DATA["words"].items()}
SYNONYMS: dict[str, list[str]] = _DATA["labels"]
DIFFICULTY_WORDS: dict[str, list[str]] = _DATA["difficulty"]
NEAREST: dict[str, list[str]] = _DATA["nearest"]
REVIEW: dict[str, list[str]] = _DATA["review"]  # review.py's lists
ORDINALS: dict[str, int] = _DATA["ordinals"]
MONTHS: dict[str, int] = _DATA["months"]
DATES = tuple(re.compile(_expand(form), re.I) for form in _DATA["dates"]["forms"])  # a redo date's forms
MESSAGES: dict[str, dict[str, str]] = _DATA["messages"]
LATEX: dict[str, Any] = _DATA["latex"]  # Markdown math: LaTeX commands and how each reads


class Two(NamedTuple):
    """One text in both languages: a message, or a value that reads differently in each."""

    en: str
    ko: str


def short(text: str, limit: int = 60) -> str:
    """``text`` on one line, cut to ``limit`` characters after a whole word where one ends in the second
    half, and before a parenthesis it would leave open: never half a word (Korean ones too) or of a Big-O."""
    one = " ".join(text.split())
    if len(one) <= limit:
        return one
    kept = one[: limit - 1]
    if one[limit - 1] != " " and (space := kept.rfind(" ")) >= limit // 2:
        kept = kept[:space]
    if (opened := kept.rfind("(")) > kept.rfind(")") and (word := kept.rfind(" ", 0, opened)) >= limit // 2:
        kept = kept[:word]
    return kept.rstrip() + "…"


class _Format(string.Formatter):
    """str.format with the messages' specs: a Korean particle ('{x:은}'), 's' shortened ('{x:s70}'), 'q'
    quoted and shortened ('{x:q가}'); a ``Two`` value gives the language being written."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def format_field(self, value: Any, spec: str) -> str:
        if isinstance(value, Two):
            value = getattr(value, self.lang)
        if spec.startswith("s"):
            return short(str(value), int(spec[1:] or 60))
        if spec.startswith("q"):
            value, spec = f"'{short(str(value))}'", spec[1:]
        return particle(str(value), spec) if spec else format(value, "")


def message(key: str, **values: Any) -> Two:
    """The message ``key`` of vocab.toml in both languages, its {names} filled from ``values``."""
    values.setdefault("ta", Two(**MESSAGES["ta"]))
    return Two(*(_Format(lang).vformat(MESSAGES[key][lang], (), values) for lang in ("en", "ko")))


def render_template(problems: int = 2) -> str:
    """The blank LEETCODE_LOG.md handed to students, built from this vocabulary so that the parser and the
    template cannot drift apart (a test checks that the shipped file is this and parses as all-missing)."""
    fields = "".join(f"- **{LABELS_KO[f]} ({LABELS_EN[f]}):** {_DATA['placeholders'][f]}\n" for f in FIELDS)
    # the practice's one rule, in the same words as the stub and the README (lesson/practice.py)
    intro = _DATA["template"]["intro"].format(rule_ko=RULE[1], rule_en=RULE[0])
    return intro + "".join(f"\n## 문제 {i} (Problem {i})\n\n{fields}" for i in range(1, problems + 1))
