"""Messages as their reader sees them: `code` spans as code, columns by display width.

The suites write messages with Markdown-style `code` spans. In HTML they become <code> (the text
escaped first, so a student's value is never markup); in Markdown they stay code spans while the
rest is escaped. Korean and other East Asian wide characters take two terminal columns, so plain
text tables pad by display width, not by len().
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Any

from markupsafe import Markup

_SPAN = re.compile(r"`([^`\n]+)`")


def code_spans(text: Any) -> Markup:
    """HTML: every `span` as <code>span</code>; everything else escaped."""
    s = str(text)
    out: list[str] = []
    last = 0
    for m in _SPAN.finditer(s):
        out.append(html.escape(s[last:m.start()]))
        out.append(f"<code>{html.escape(m.group(1))}</code>")
        last = m.end()
    out.append(html.escape(s[last:]))
    return Markup("".join(out))


def md_code_spans(text: Any, escape: Any, code: Any) -> str:
    """Markdown: each `span` through ``code`` (backtick-safe), the rest through ``escape``."""
    s = str(text)
    out: list[str] = []
    last = 0
    for m in _SPAN.finditer(s):
        out.append(escape(s[last:m.start()]) if m.start() > last else "")
        out.append(code(m.group(1)))
        last = m.end()
    out.append(escape(s[last:]) if last < len(s) else "")
    return "".join(out)


def display_width(text: str) -> int:
    """Terminal columns: wide and full-width characters count 2, combining marks 0."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def ljust_display(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` display columns (str.ljust counts characters)."""
    return text + " " * max(0, width - display_width(text))


# What a message says about the report's picture of a table (a lesson's diagnosis): only
# feedback.html and check() draw it, so the terminal, summary.txt and Markdown leave these words out.
_PICTURE_ASIDE = re.compile(r"\s*\([^()]*(?:\bpicture\b|\boutlined\b|그림|테두리)[^()]*\)")
_PICTURE_WORDS = re.compile(r"(?:\bin the picture,?\s+|그림에서\s+)")


def without_picture(text: str) -> str:
    """``text`` with its references to a picture removed, for a place that shows none."""
    return _PICTURE_WORDS.sub("", _PICTURE_ASIDE.sub("", str(text)))
