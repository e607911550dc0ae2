"""The log as a Markdown tree (markdown-it-py): each line with the block it belongs to, containers opened.

Students paste their log where it does not look like a log to a line reader: inside a code fence (notes
copied from Notion), every line quoted with ``> ``, a table with a row per field and a column per problem.
A TA reads the text such a container holds. ``read`` parses the document once with a real Markdown parser
and gives the field reader (parser.py) its lines, each with its student's line number and what the tree
says it is: code, a comment, a quote, a rule, an ATX heading (its level and text) or a table row (its
cells and its header's). The reader never guesses a block from a line's first characters.

- a code fence or a block quote is read as the text it holds when that text holds a log (a problem with
  fields); otherwise it stays what it is (the template's instructions are a quote, code is code);
- a table's rows come with their cells and its header's (one list, shared by the table's lines): the
  field reader reads the table whole, by rows or by columns, whichever holds the problems.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

__all__ = ["Line", "read"]

# a line's quote marker: up to three spaces, '>', one optional space (CommonMark)
_QUOTE = re.compile(r"^\s{0,3}>\s?")


@dataclass
class Line:
    """One line of the log as the field reader reads it."""

    number: int  # 1-based, in the student's file
    text: str
    kind: str = ""  # "" (text), code, comment, quote, rule, heading, or a table's head, sep or row
    level: int = 0  # a heading's level
    title: str = ""  # a heading's text
    cells: list[str] = field(default_factory=list)  # a table row's cells
    head: list[str] = field(default_factory=list)  # and its table's header cells


@cache
def _md() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


HoldsLog = Callable[[list[Line]], bool]


def read(text: str, holds_log: HoldsLog) -> list[Line]:
    """``text``'s lines, each classified by the tree, with its containers opened where they hold a log.
    The field reader's judgement comes in as a function (``holds_log``): the reader calls this module,
    not the other way."""
    lines = text.splitlines()
    return _read(lines, list(range(1, len(lines) + 1)), holds_log, 0)


def _read(lines: list[str], origin: list[int], holds_log: HoldsLog, depth: int) -> list[Line]:
    tokens = _md().parse("\n".join(lines))
    plain = _classify(lines, origin, tokens)
    out: list[Line] = []
    at = 0
    for tok in (t for t in tokens if t.level == 0 and t.map is not None and t.nesting != -1):
        start, end = tok.map or (0, 0)
        inner = _opened(tok, lines, start, end) if depth < 4 else None
        opened = _read(inner[0], [origin[k] for k in inner[1]], holds_log, depth + 1) if inner else []
        # the container's own text, read alone, when it holds the log; else its lines as the tree says
        out += plain[at:start] + (opened if opened and holds_log(opened) else plain[start:end])
        at = end
    return out + plain[at:]


def _classify(lines: list[str], origin: list[int], tokens: list[Token]) -> list[Line]:
    """Each line with the block the tree puts it in: the innermost that says something, but a quote (the
    tokens are read outermost last, a quoted line is the quote's whatever it holds)."""
    out = [Line(origin[k], text) for k, text in enumerate(lines)]
    for i in reversed(range(len(tokens))):
        tok = tokens[i]
        if tok.map is None or tok.nesting == -1:
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
        elif tok.type == "blockquote_open":
            for ln in span:
                ln.kind = "quote" if ln.text.lstrip().startswith(">") else ln.kind
    return out


def _opened(tok: Token, lines: list[str], start: int, end: int) -> tuple[list[str], list[int]] | None:
    """A container's text and the indices of its lines: a fence's or an indented block's content, a
    quote's lines less one '>' each; None for any other block."""
    if tok.type not in ("fence", "code_block", "blockquote_open"):
        return None
    body = list(range(start + (tok.type == "fence"), end))
    if tok.type == "blockquote_open":
        return [_QUOTE.sub("", lines[k], count=1) for k in body], body
    if tok.type == "fence" and body and re.match(r"^\s*(```|~~~)", lines[body[-1]]):
        body = body[:-1]  # the closing fence (a fence left open runs to the end)
    indent = len(lines[start]) - len(lines[start].lstrip()) if tok.type == "fence" else 4
    return [_dedent(lines[k], indent) for k in body], body


def _dedent(line: str, n: int) -> str:
    cut = len(line) - len(line.lstrip(" "))
    return line[min(cut, n) :]


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
