"""The log as a Markdown tree (markdown-it-py): each line with the block it belongs to. A fence or a quote
that holds a log is opened (a TA reads the text it holds); no line's kind is guessed from its characters."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token

__all__ = ["Line", "read"]

_CALLOUT = re.compile(r"^\s*\[![\w-]+\][-+]?[ \t]*")
# a line's quote marker: up to three spaces, '>', one optional space (CommonMark)
_QUOTE = re.compile(r"^\s{0,3}>\s?")
# YAML front matter (Jekyll, Hugo, Obsidian, Pandoc): '---' on the first line, 'key: value' lines, '---'
_YAML_LINE = re.compile(r"^(\s|-\s|#|[\w\"'][\w \"'-]*:(\s|$))")
_FRONT_END = re.compile(r"^(---|\.\.\.)\s*$")
# a run of blanks longer than any layout needs (inside a line; before one, deeper than any list): read as a
# shorter run, so that no pattern ('\s*[,;]\s*') retries a run of thousands at each of its blanks
_LONG_RUN = re.compile(r"(?<=\S)[ \t]{9,}|^[ \t]{65,}")
# an HTML table's rows and cells ('<tr><td>Time</td><td>O(n)</td></tr>'), a row on one line or several
# (a row ends before the next one starts: a run of unclosed '<tr>' is not read from each of them to the end)
_HTML_ROW = re.compile(r"(?is)<tr\b(?:(?!<tr\b).)*?</tr>")
_HTML_CELL = re.compile(r"(?is)<t[dh]\b[^>]*>((?:(?!<t[dh]\b).)*?)</t[dh]>")


@dataclass
class Line:
    """One line of the log as the field reader reads it."""

    number: int  # 1-based, in the student's file
    text: str
    kind: str = ""  # "" (text), code, comment, quote, rule, heading, or a table's head, sep or row
    level: int = 0  # a heading's level
    title: str = ""  # a heading's text
    cells: list[str] = field(default_factory=list)  # a table row's cells, as many as its header's
    head: list[str] = field(default_factory=list)  # and its table's header cells


_MD = MarkdownIt("commonmark").enable("table")
HoldsLog = Callable[[list[Line]], bool]


def read(text: str, holds_log: HoldsLog) -> list[Line]:
    """``text``'s lines, classified, with the containers opened where the reader's ``holds_log`` says."""
    lines = (_LONG_RUN.sub(lambda m: " " * (8 if m.start() else 64), line) for line in text.splitlines())
    return _read(list(enumerate(lines, start=1)), holds_log, 0)


def _front_matter(numbered: list[tuple[int, str]]) -> int:
    """How many of the first lines are YAML front matter, its two '---' included; 0 for none."""
    if not numbered or numbered[0][1].rstrip() != "---":
        return 0
    for i, (_, text) in enumerate(numbered[1:40], start=1):
        if _FRONT_END.match(text):
            return i + 1 if i > 1 else 0
        if text.strip() and not _YAML_LINE.match(text):
            return 0
    return 0


def _read(numbered: list[tuple[int, str]], holds_log: HoldsLog, depth: int) -> list[Line]:
    tokens = _MD.parse("\n".join(text for _, text in numbered))
    lines = _classify(numbered, tokens)
    for tok in reversed(tokens):  # from the last block, so that the lines before keep their places
        if tok.level != 0 or tok.map is None or depth >= 4:
            continue
        start, end = tok.map
        inner = _opened(tok, numbered[start:end])
        opened = _read(inner, holds_log, depth + 1) if inner else []
        # the container's own text, read alone: it holds the log, or it is a callout (a GitHub alert
        # '> [!TIP]', Obsidian's '> [!note]'), the student's own note around a field or two
        if opened and (holds_log(opened) or (tok.type == "blockquote_open" and _CALLOUT.match(
                _QUOTE.sub("", numbered[start][1], count=1)))):
            lines[start:end] = opened
    # front matter is the page's metadata ('title: LeetCode log'), no part of the log, unless it holds one
    meta = _front_matter(numbered)
    if meta and not holds_log([Line(number, text) for number, text in numbered[1 : meta - 1]]):
        for ln in lines:
            ln.kind = "comment" if ln.number < numbered[0][0] + meta else ln.kind
    return lines


def _classify(numbered: list[tuple[int, str]], tokens: list[Token]) -> list[Line]:
    """Each line with the innermost block that says something about it; a quoted line is the quote's."""
    out = [Line(number, text) for number, text in numbered]
    for i in reversed(range(len(tokens))):
        tok = tokens[i]
        if tok.map is None:
            continue
        start, end = tok.map
        span = out[start:end]
        if tok.type == "fence" or (tok.type == "html_block" and tok.content.lstrip().startswith("<!--")):
            for ln in span:
                ln.kind = "code" if tok.type == "fence" else "comment"
        elif tok.type == "hr" or (tok.type == "heading_open" and tok.markup == "-"):  # 'text' over '---'
            span[-1].kind = "rule"
        elif tok.type == "heading_open" and tok.markup.startswith("#"):
            span[0].kind, span[0].level, span[0].title = "heading", int(tok.tag[1]), tokens[i + 1].content
        elif tok.type == "table_open" and (rows := _rows(tokens, i)):
            head = rows[0][1]
            out[rows[0][0] + 1].kind, out[rows[0][0] + 1].head = "sep", head
            for k, (line, cells) in enumerate(rows):  # a line with no bar under a table is prose to a TA
                if "|" in out[line].text:
                    out[line].kind, out[line].cells, out[line].head = ("row" if k else "head"), cells, head
        elif tok.type == "html_block" and (trs := list(_HTML_ROW.finditer(tok.content))):
            _html_table(span, tok.content, trs)
        elif tok.type == "blockquote_open":
            for ln in span:
                ln.kind = "quote" if ln.text.lstrip().startswith(">") else ln.kind
    return out


def _html_table(span: list[Line], content: str, rows: list[re.Match[str]]) -> None:
    """An HTML table read as a Markdown one: each row on the line its '<tr>' opens, the lines between its
    rows ('</td>', '<tbody>') the table's too (as a separator row), so that the table is read whole."""
    head = [c.strip() for c in _HTML_CELL.findall(rows[0].group())]
    for ln in span[content.count("\n", 0, rows[0].start()) : content.count("\n", 0, rows[-1].end()) + 1]:
        ln.kind, ln.head = "sep", head
    for k, row in enumerate(rows):
        cells = [*(c.strip() for c in _HTML_CELL.findall(row.group())), *[""] * len(head)][: len(head)]
        first = span[content.count("\n", 0, row.start())]
        first.kind, first.cells, first.head = ("row" if k else "head"), cells, head


def _opened(tok: Token, span: list[tuple[int, str]]) -> list[tuple[int, str]] | None:
    """A fence's or an indented block's content, a quote's lines less one '>' each; None for other blocks."""
    if tok.type == "blockquote_open":
        quoted = [(number, _QUOTE.sub("", text, count=1)) for number, text in span]
        # an Obsidian callout's first line ('> [!note]- 문제 2: 204. Count Primes') is its title, a heading
        # to the reader as to a TA, never a sentence to quote
        return [(n, _CALLOUT.sub("### ", text, count=1) if k == 0 else text)
                for k, (n, text) in enumerate(quoted)]
    if tok.type not in ("fence", "code_block"):
        return None
    inner = tok.content.splitlines()  # a fence's closing line is not its content
    return [(number, text) for (number, _), text in zip(span[tok.type == "fence":], inner, strict=False)]


def _rows(tokens: list[Token], i: int) -> list[tuple[int, list[str]]]:
    """A table's rows from its ``table_open`` at ``i``: (0-based line, cell texts)."""
    rows: list[tuple[int, list[str]]] = []
    for tok in tokens[i + 1 :]:
        if tok.type == "table_close":
            break
        if tok.type == "tr_open" and tok.map is not None:
            rows.append((tok.map[0], []))
        elif tok.type == "inline" and rows:
            rows[-1][1].append(tok.content.strip())
    return rows
