"""Math as students type it in Markdown (LaTeX ``$\\mathcal{O}(n \\log \\log n)$``, escapes ``n \\* m``,
HTML ``n<sup>2</sup>``, emphasis ``O(*n*)``) rewritten to the plain text bigo.py reads (``O(n log log n)``),
keeping the span each plain character was written in, so errors and quotes point at what was written."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from .vocab import CUE, LATEX

__all__ = ["Plain", "to_plain"]


@dataclass(frozen=True)
class Plain:
    """``text`` read from ``source``; ``spans[i]`` is where ``text[i]`` was written."""

    text: str
    spans: tuple[tuple[int, int], ...]
    source: str

    def source_index(self, i: int) -> int:
        """Where plain position ``i`` (an error position, say) is in the source; past the end, its end."""
        return self.spans[i][0] if i < len(self.spans) else len(self.source)

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """The written text behind a match ``text[start:end]`` (not empty), the markup dropped before it
        included (``\\mathcal{`` of ``\\mathcal{O}(1)``): spaces and ``$`` are always read, never dropped."""
        return min(self.spans[start - 1][1] if start else 0, self.spans[start][0]), self.spans[end - 1][1]


# what each command (vocab.toml's latex.reads), Unicode bracket or Korean word ('로그') reads as
_READS: dict[str, str] = {c: text for text, commands in LATEX["reads"].items() for c in commands}
_READ_AS: dict[str, str] = {w: text for text, words in LATEX["read_as"].items() for w in words}
_COMMAND = re.compile(r"\\([A-Za-z]+|.)", re.S)
_BRACES = re.compile(r"\\.|[{}]", re.S)  # an escaped brace is no brace
_WORDS = re.compile("|".join([LATEX["entity"], *map(re.escape, _READ_AS)]))
DEEPEST = 10  # groups nested deeper than any formula are read as the characters they are (no recursion limit)


def _marks(text: str) -> dict[int, tuple[str, int]]:
    """Markup read as it stands (position -> what it reads as, its length): ``$``, ``$$``, ``\\(``, ``\\[``
    that pair (a lone ``$`` is a character), emphasis, HTML powers, a factorial ``n\\!``, entities, words."""
    marks: dict[int, tuple[str, int]] = {}
    opened: re.Match[str] | None = None
    for m in re.finditer(r"(?<!\\)\${1,2}", text):
        if opened and len(opened.group()) == len(m.group()):
            marks[opened.start()] = marks[m.start()] = (" ", len(m.group()))
            opened = None
        else:
            opened = m
    stack: list[tuple[int, bool]] = []
    for m in re.finditer(r"\\[()\[\]]", text):
        if m.group()[1] in "([":  # a delimiter unless right after a name, a number or a bracket
            stack.append((m.start(), not re.match(r"[\w}^)]", text[: m.start()].rstrip()[-1:])))
        elif stack and (opening := stack.pop())[1]:
            marks[opening[0]] = marks[m.start()] = (" ", 2)
    for m in CUE["emphasis_mark"].finditer(text):
        marks[m.start()] = marks[m.end() - len(m.group(1))] = ("", len(m.group(1)))
    for m in CUE["html_power"].finditer(text):
        left, right = LATEX["html"][m.group(1).lower()]
        marks[m.start()] = (left, m.start(2) - m.start())
        marks[m.end(2)] = (right, m.end() - m.end(2))
    for m in CUE["escaped_factorial"].finditer(text):  # 'n\!': a factorial, not LaTeX's negative space
        marks[m.start()] = ("!", 2)
    for m in _WORDS.finditer(text):
        marks[m.start()] = (_READ_AS.get(m.group()) or html.unescape(m.group()), len(m.group()))
    return marks


def to_plain(source: str) -> Plain:
    """Markdown math as plain Big-O text, with the span each plain character came from."""
    marks = _marks(source)
    chars: list[str] = []
    spans: list[tuple[int, int]] = []

    def emit(text: str, start: int, end: int) -> None:
        chars.extend(text)
        spans.extend([(start, end)] * len(text))

    def run(i: int, j: int, depth: int = 1) -> None:
        if depth > DEEPEST:
            for k in range(i, j):
                emit(source[k], k, k + 1)
            return
        while i < j:
            c = source[i]
            if i in marks:
                text, n = marks[i]
                emit(text, i, i + n)
                i += n
            elif c == "\\":
                i = command(i, j, depth)
            elif c == "{":  # a group reads as a bracket; a subscript's keeps its braces: 'log_{10}'
                brackets = "{}" if source[i - 1:i] == "_" else "()"
                start, end, after = argument(i, j)
                emit(brackets[0], i, start)
                run(start, end, depth + 1)
                emit(brackets[1] if end < j else "", end, after)  # no closing bracket where unclosed
                i = after
            else:  # a character as it stands; a stray closing brace is markup, not a bracket
                emit("" if c == "}" else c, i, i + 1)
                i += 1

    def argument(i: int, j: int) -> tuple[int, int, int]:
        """A command's argument at ``i`` (spaces skipped): a ``{...}`` group (to ``j`` when unclosed; ``\\{``
        is no brace) or one character; (start, end, next)."""
        i += len(source[i:j]) - len(source[i:j].lstrip(" \t"))
        if not source.startswith("{", i, j):
            return i, min(i + 1, j), min(i + 1, j)
        depth = 0
        for m in _BRACES.finditer(source, i, j):
            depth += {"{": 1, "}": -1}.get(m.group(), 0)
            if depth == 0:
                return i + 1, m.start(), m.end()
        return i + 1, j, j

    def command(i: int, j: int, depth: int) -> int:
        """``\\name`` at ``i``, or ``\\`` and a character (spacing, a bracket, an escape), as it reads."""
        m = _COMMAND.match(source, i, j)
        if not m:  # a '\' that ends the text
            return j
        name, end = m.group(1), m.end()
        args: dict[str, tuple[int, int]] = {}  # '#0' an optional argument in brackets, '#1', '#2' the others
        if source.startswith("[", end) and f"{name}[]" in _READS and (close := source.find("]", end, j)) > 0:
            args, name, end = {"0": (end + 1, close)}, f"{name}[]", close + 1
        word = name.isascii() and name.isalpha()  # '\frac{a}{b}' reads '((a)/(b))', '\log' ' log', '\*' '*'
        pieces = re.split(r"#(\d)", _READS.get(name, f" {name}" if word else name))
        for k in sorted(set(pieces[1::2]) - set(args)):
            a0, a1, end = argument(end, j)
            args[k] = a0, a1
        at = i  # each piece's span: from what was read before it up to its argument
        for piece, k in zip(pieces[::2], pieces[1::2], strict=False):
            a0, a1 = args[k]
            emit(piece, at, max(at, a0))
            run(a0, a1, depth + 1)
            at = max(at, a1)
        emit(pieces[-1], at, end)
        return end

    run(0, len(source))  # all of it, at once
    return Plain("".join(chars), tuple(spans), source)
