"""The log as a Markdown tree (markdown-it-py): each line with the block it belongs to. A fence or a quote
that holds a log is opened (a TA reads the text it holds); no line's kind is guessed from its characters."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token

from .vocab import CUE

__all__ = ["Line", "read"]

_CALLOUT, _QUOTE = CUE["callout"], CUE["quote_marker"]
# a Korean IME's full-width mode types 'Ｏ（ｌｏｇ ｎ）', '５０．', 'Ｍｅｄｉｕｍ': read as the ASCII
# they stand for, one character for one, so every position in a line stays
_HALF_WIDTH = str.maketrans({chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)})


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
    # Google Docs' export escapes what Markdown might read ('50\\. Pow\\(x, n\\)', '2026\\-12\\-18'): read as
    # the text it stands for
    lines = [CUE["long_blank_run"].sub(lambda m: " " * (8 if m.start() else 64), line)
             for line in CUE["md_escape"].sub(r"\1", text.translate(_HALF_WIDTH)).splitlines()]
    return _read(list(enumerate(_footnotes(lines), start=1)), holds_log, 0)


def _footnotes(lines: list[str]) -> list[str]:
    """A footnote on a Big-O read where it is marked, as a TA reads it: 'O(log n)[^1]' with '[^1]: n halves'
    at the foot is 'O(log n) — n halves'."""
    notes = {m["id"]: m["text"] for line in lines if (m := CUE["footnote"].match(line))}
    mark = CUE["footnote_mark"]
    return [mark.sub(lambda m: f" — {notes[m[1]]}" if m[1] in notes else m[0], line)
            if notes and not CUE["footnote"].match(line) else line for line in lines]


def _read(numbered: list[tuple[int, str]], holds_log: HoldsLog, depth: int) -> list[Line]:
    source = "\n".join(text for _, text in numbered)
    tokens = _MD.parse(source)
    lines = _classify(numbered, tokens)
    for tok in reversed(tokens):  # from the last block, so that the lines before keep their places
        if tok.level or not tok.map or depth >= 4:
            continue
        start, end = tok.map
        inner = _opened(tok, numbered[start:end])
        opened = _read(inner, holds_log, depth + 1) if inner else []
        # the container's own text, read alone: it holds the log, or it is a callout (a GitHub alert
        # '> [!TIP]', Obsidian's '> [!note]'), the student's own note around a field or two, or a quote whose
        # paragraph goes on unquoted (a chat's reply: '> 처음 아이디어는?' over its answer)
        said = [text for _, text in numbered[start:end]]
        if opened and (holds_log(opened) or tok.type == "blockquote_open" and (_CALLOUT.match(
                _QUOTE.sub("", said[0], count=1)) or not all(map(_QUOTE.match, said)))):
            lines[start:end] = opened
    # front matter is the page's metadata ('title: LeetCode log'), no part of the log, unless it holds one
    meta = (front := CUE["front_matter"].match(source)) and front.group().count("\n") + 1  # its lines
    if meta and not holds_log([Line(number, text) for number, text in numbered[1 : meta - 1]]):
        for ln in lines:
            ln.kind = "comment" if ln.number < numbered[0][0] + meta else ln.kind
    return lines


def _classify(numbered: list[tuple[int, str]], tokens: list[Token]) -> list[Line]:
    """Each line with the innermost block that says something about it; a quoted line is the quote's."""
    out = [Line(number, text) for number, text in numbered]
    for i, tok in reversed(list(enumerate(tokens))):
        if not tok.map:
            continue
        start, end = tok.map
        span, block = out[start:end], tok.type
        if block == "fence" or (block == "html_block" and tok.content.lstrip().startswith("<!--")):
            for ln in span:
                ln.kind = "code" if block == "fence" else "comment"
        elif block == "hr" or (block == "heading_open" and tok.markup == "-"):  # 'text' over '---'
            span[-1].kind = "rule"
        elif block == "heading_open" and tok.markup.startswith("#"):
            span[0].kind, span[0].level, span[0].title = "heading", int(tok.tag[1]), tokens[i + 1].content
        elif block == "table_open":  # a line with no bar under a table is prose to a TA
            rows = [(out[n], cells) for n, cells in _rows(tokens, i).items() if "|" in out[n].text]
            _table(rows, span[1:2])
        elif block == "html_block" and (trs := list(CUE["html_row"].finditer(tok.content))):
            _html_table(span, tok.content, trs)
        elif block == "blockquote_open":
            for ln in span:
                ln.kind = "quote" if ln.text.lstrip().startswith(">") else ln.kind
    return out


def _table(rows: list[tuple[Line, list[str]]], between: list[Line]) -> None:
    """A table's rows (each line with its cells; the first the header), the lines ``between`` them read as
    its separator row; each line with the header's cells."""
    head = rows[0][1]
    for ln in between:
        ln.kind, ln.head = "sep", head
    for k, (ln, cells) in enumerate(rows):
        ln.kind, ln.cells, ln.head = ("row" if k else "head"), cells, head


def _html_table(span: list[Line], content: str, rows: list[re.Match[str]]) -> None:
    """An HTML table read as a Markdown one: each row on the line its '<tr>' opens, as many cells as its
    header, the lines between its rows ('</td>', '<tbody>') the table's too, so that it is read whole."""
    at = [content.count("\n", 0, row.start()) for row in rows]
    cells = [[c.strip() for c in CUE["html_cell"].findall(row.group())] for row in rows]
    width = len(cells[0])
    _table([(span[n], [*c, *[""] * width][:width]) for n, c in zip(at, cells, strict=True)],
           span[at[0] : content.count("\n", 0, rows[-1].end()) + 1])


def _opened(tok: Token, span: list[tuple[int, str]]) -> list[tuple[int, str]] | None:
    """A fence's or an indented block's content, a quote's lines less one '>' each; None for other blocks."""
    if tok.type == "blockquote_open":
        quoted = [(number, _QUOTE.sub("", text, count=1)) for number, text in span]
        # an Obsidian callout's first line ('> [!note]- 문제 2: 204. Count Primes') is its title, a heading
        # to the reader as to a TA, never a sentence to quote
        quoted[0] = quoted[0][0], _CALLOUT.sub("### ", quoted[0][1], count=1)
        return quoted
    if tok.type not in ("fence", "code_block"):
        return None
    numbers = [number for number, _ in span[tok.type == "fence":]]  # a fence's own lines are not its content
    return list(zip(numbers, tok.content.splitlines(), strict=False))


def _rows(tokens: list[Token], i: int) -> dict[int, list[str]]:
    """A table's rows from its ``table_open`` at ``i``: each row's 0-based line, its cells' texts (a cell's
    inline token keeps its row's line)."""
    rows: dict[int, list[str]] = {}
    for tok in tokens[i + 1 :]:
        if tok.type == "table_close":
            break
        if tok.type == "inline" and tok.map:
            rows.setdefault(tok.map[0], []).append(tok.content.strip())
    return rows
