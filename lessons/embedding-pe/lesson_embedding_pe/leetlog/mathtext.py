"""Math as students type it in Markdown, read as plain text for the Big-O parser.

Students write logs in Jupyter, where complexities come as LaTeX
(``$O(n \\log \\log n)$``, ``$\\mathcal{O}(1)$``, ``\\Theta(n)``, ``O(\\sqrt{n})``,
``n^{2}``, ``\\cdot``, ``\\left( ... \\right)``, ``\\,``), with Markdown escapes
(``n \\* m``), HTML (``n<sup>2</sup>``, ``&middot;``) or emphasis (``O(*n*)``).
``to_plain`` rewrites all of it to what bigo.py reads (``O(n log log n)``) and
keeps, for every plain character, the span of the written text it came from,
so errors and quotes point at what the student wrote. Plain text is left as
it is, character for character.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from .vocab import LATEX

__all__ = ["Plain", "to_plain"]


@dataclass(frozen=True)
class Plain:
    """``text`` read from ``source``; ``spans[i]`` is where ``text[i]`` was written."""

    text: str
    spans: tuple[tuple[int, int], ...]
    source: str

    def source_index(self, i: int) -> int:
        """Where plain position ``i`` (an error position, say) is in the source."""
        if i < len(self.spans):
            return self.spans[i][0]
        return self.spans[-1][1] if self.spans else len(self.source)

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """The written text behind ``text[start:end]``, markup before it included
        (``\\mathcal{`` of ``\\mathcal{O}(1)``), surrounding spaces not."""
        if start >= end or start >= len(self.spans):
            i = self.source_index(start)
            return i, i
        s = self.spans[start - 1][1] if start > 0 else 0
        first = self.spans[start][0]
        s = min(s, first)
        while s < first and (self.source[s].isspace() or self.source[s] == "$"):
            s += 1
        return s, self.spans[end - 1][1]


class _Out:
    def __init__(self) -> None:
        self.chars: list[str] = []
        self.spans: list[tuple[int, int]] = []

    def emit(self, text: str, start: int, end: int) -> None:
        for c in text:
            self.chars.append(c)
            self.spans.append((start, end))


_SPACES, _SIZING, _DROP, _FONTS, _WORDS = (frozenset(LATEX[k]) for k in
                                           ("spaces", "sizing", "drop", "fonts", "words"))
_REPLACE, _SYMBOL, _UNICODE, _KOREAN = (dict(LATEX[k]) for k in ("replace", "symbol", "unicode", "korean"))
_ENTITY = re.compile(r"&(?:#\d{1,6}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,10});")
_HTML_POWER = re.compile(r"<(sup|sub)>(.*?)</\1>", re.I | re.S)
# Markdown emphasis around a single word, '(*n* log *n*)', but not 'n*m*k'
_EMPHASIS = re.compile(r"(?<![\w*\\])(\*{1,3})(?=[^\s*])([^*\s]{1,20}?)\1(?![\w*])")


def to_plain(source: str) -> Plain:
    """Markdown math as plain Big-O text, with the span each plain character came from."""
    out = _Out()
    _Rewriter(source, _delimiters(source), _emphasis(source), _bracket_delimiters(source)).run(
        0, len(source), out)
    return Plain("".join(out.chars), tuple(out.spans), source)


def _delimiters(text: str) -> dict[int, int]:
    """Math delimiters: ``$...$`` and ``$$...$$`` that pair up (position -> length);
    a lone ``$`` stays a character, as in Markdown."""
    tokens = [(m.start(), len(m.group())) for m in re.finditer(r"(?<!\\)\${1,2}", text)]
    paired: dict[int, int] = {}
    open_tok: tuple[int, int] | None = None
    for tok in tokens:
        if open_tok is None:
            open_tok = tok
        elif open_tok[1] == tok[1]:
            paired[open_tok[0]] = open_tok[1]
            paired[tok[0]] = tok[1]
            open_tok = None
        else:
            open_tok = tok
    return paired


def _bracket_delimiters(text: str) -> dict[int, str]:
    """MathJax's ``\\(...\\)`` and ``\\[...\\]`` read as spaces (position -> text); an escaped
    bracket right after a name or a number (``O\\(n\\)``, Markdown style) stays a bracket."""
    out: dict[int, str] = {}
    stack: list[tuple[int, bool]] = []
    for m in re.finditer(r"\\[()\[\]]", text):
        if m.group()[1] in "([":
            before = text[: m.start()].rstrip()
            stack.append((m.start(), not before or not (before[-1].isalnum() or before[-1] in "}^_)")))
        elif stack:
            start, delim = stack.pop()
            if delim:
                out[start] = out[m.start()] = " "
    return out


def _emphasis(text: str) -> set[int]:
    dropped: set[int] = set()
    for m in _EMPHASIS.finditer(text):
        n = len(m.group(1))
        dropped.update(range(m.start(), m.start() + n))
        dropped.update(range(m.end() - n, m.end()))
    return dropped


class _Rewriter:
    def __init__(self, src: str, dollars: dict[int, int], emphasis: set[int],
                 brackets: dict[int, str]) -> None:
        self.src = src
        self.dollars = dollars
        self.emphasis = emphasis
        self.brackets = brackets

    def run(self, i: int, j: int, out: _Out) -> None:
        src = self.src
        while i < j:
            c = src[i]
            if i in self.dollars:
                out.emit(" ", i, i + self.dollars[i])
                i += self.dollars[i]
            elif i in self.emphasis:
                i += 1
            elif i in self.brackets:
                out.emit(self.brackets[i], i, i + 2)
                i += 2
            elif c == "\\":
                i = self.command(i, j, out)
            elif c == "{":
                i = self.group(i, j, out, "(", ")")
            elif c == "}":  # stray closing brace: markup, not a bracket
                i += 1
            elif c in "^_" and i + 1 < j and src[i + 1] == "{":
                out.emit(c, i, i + 1)
                i = self.group(i + 1, j, out, "(" if c == "^" else "{", ")" if c == "^" else "}")
            elif c == "<" and (m := _HTML_POWER.match(src, i, j)):
                sup = m.group(1).lower() == "sup"
                out.emit("^(" if sup else "_{", i, m.start(2))
                self.run(m.start(2), m.end(2), out)
                out.emit(")" if sup else "}", m.end(2), m.end())
                i = m.end()
            elif c == "&" and (m := _ENTITY.match(src, i, j)):
                out.emit(html.unescape(m.group()), i, m.end())
                i = m.end()
            elif c in _UNICODE:
                out.emit(_UNICODE[c], i, i + 1)
                i += 1
            elif (word := src[i : i + 2]) in _KOREAN:
                out.emit(_KOREAN[word] + " ", i, i + 2)
                i += 2
            else:
                out.emit(c, i, i + 1)
                i += 1

    def group(self, i: int, j: int, out: _Out, left: str, right: str) -> int:
        """``{...}`` at ``i``: its contents between ``left`` and ``right``; the index after it."""
        end = _closing(self.src, i, j)
        out.emit(left, i, i + 1)
        self.run(i + 1, end, out)
        if end < j:
            out.emit(right, end, end + 1)
        return min(end + 1, j)

    def argument(self, i: int, j: int) -> tuple[int, int, int]:
        """A command's argument at ``i`` (spaces skipped): (start, end, next index)."""
        while i < j and self.src[i] in " \t":
            i += 1
        if i >= j:
            return i, i, i
        if self.src[i] == "{":
            end = _closing(self.src, i, j)
            return i + 1, end, min(end + 1, j)
        if self.src[i] == "\\":
            m = re.compile(r"\\(?:[A-Za-z]+|.)").match(self.src, i, j)
            end = m.end() if m else i + 1
            return i, end, end
        return i, i + 1, i + 1

    def command(self, i: int, j: int, out: _Out) -> int:
        src = self.src
        m = re.compile(r"\\([A-Za-z]+)").match(src, i, j)
        if m is None:  # one character: spacing, an escaped bracket, or a Markdown escape (\*, \_)
            if i + 1 >= j:
                return j
            c = src[i + 1]
            if c == "!":  # LaTeX's negative space, unless it is an escaped factorial 'n\!'
                factorial = i > 0 and (src[i - 1].isalnum() or src[i - 1] in ")}") and \
                    not (i + 2 < j and (src[i + 2].isalpha() or src[i + 2] in "\\({"))
                out.emit("!" if factorial else "", i, i + 2)
            else:
                out.emit(_SYMBOL.get(c, c), i, i + 2)
            return i + 2
        name, end = m.group(1), m.end()
        if name == "operatorname" and src.startswith("*", end):
            end += 1
        if name in _SPACES:
            out.emit(" ", i, end)
            if name == "hspace":
                return self.argument(end, j)[2]
        elif name in _SIZING:
            if end < j and src[end] == ".":  # \left. is an invisible delimiter
                end += 1
        elif name in ("begin", "end"):
            return self.argument(end, j)[2]
        elif name in _FONTS:
            start, stop, nxt = self.argument(end, j)
            self.run(start, stop, out)
            return nxt
        elif name in ("frac", "dfrac", "tfrac", "cfrac"):
            a0, a1, nxt = self.argument(end, j)
            b0, b1, nxt = self.argument(nxt, j)
            out.emit("((", i, a0)
            self.run(a0, a1, out)
            out.emit(")/(", a1, b0)
            self.run(b0, b1, out)
            out.emit("))", b1, nxt)
            return nxt
        elif name == "sqrt" and end < j and src[end] == "[":
            close = src.find("]", end, j)
            if close > 0:
                a0, a1, nxt = self.argument(close + 1, j)
                out.emit("((", i, a0)
                self.run(a0, a1, out)
                out.emit(")^(1/(", a1, a1)
                self.run(end + 1, close, out)
                out.emit(")))", a1, nxt)
                return nxt
            out.emit(" sqrt", i, end)
        elif name in _WORDS:
            out.emit(" " + name, i, end)
        elif name in _REPLACE:
            out.emit(_REPLACE[name], i, end)
        elif name not in _DROP:
            out.emit(" " + name, i, end)  # an unknown command reads as its name
        return end


def _closing(src: str, i: int, j: int) -> int:
    """Index of the ``}`` closing the ``{`` at ``i`` (``j`` when unclosed); ``\\{`` does not count."""
    depth = 0
    k = i
    while k < j:
        c = src[k]
        if c == "\\":
            k += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return k
        k += 1
    return j
