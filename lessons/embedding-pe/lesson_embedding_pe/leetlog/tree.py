"""The log as a Markdown tree (markdown-it-py): containers opened, tables turned to the problems.

Students paste their log where it does not look like a log to a line reader: inside a code fence (notes
copied from Notion), every line quoted with ``> ``, a table with a row per field and a column per problem.
A TA reads the text such a container holds. ``flatten`` walks the document's top-level blocks with a real
Markdown parser and writes the log as the field reader knows it, keeping each line's number in the
student's file so every message still points at the student's own line:

- a code fence or a block quote is read as the text it holds when that text holds a log (a problem with
  fields); otherwise it stays what it is (the template's instructions are a quote, code is code);
- a table whose first column names the fields and whose other columns are the problems is read one
  column at a time, each column a problem section.

Everything else passes through unchanged: the line reader (parser.py) reads headings, lists, labels and
prose as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from .vocab import CUE

__all__ = ["Flat", "flatten"]

# a line's quote marker: up to three spaces, '>', one optional space (CommonMark)
_QUOTE = re.compile(r"^\s{0,3}>\s?")
@dataclass
class Flat:
    """The log as the field reader reads it, and each of its lines' number in the student's file."""

    text: str
    origin: list[int] = field(default_factory=list)  # 1-based line in the original, per line of ``text``

    @property
    def changed(self) -> bool:
        return self.origin != list(range(1, len(self.origin) + 1))


@cache
def _md() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


Label = Callable[[str], "str | None"]  # a cell's text -> the field it names (parser.match_label)


def flatten(text: str, holds_log: Callable[[str], bool], match_label: Label) -> Flat:
    """``text`` with its containers opened where they hold a log and its column-per-problem tables
    turned to sections. The field reader's own judgement comes in as two functions (``holds_log``,
    ``match_label``): the reader calls this module, so this module does not import the reader."""
    lines = text.splitlines()
    return _flatten(lines, list(range(1, len(lines) + 1)), holds_log, match_label, depth=0)


def _flatten(lines: list[str], origin: list[int], holds_log: Callable[[str], bool], match_label: Label,
             depth: int) -> Flat:
    out: list[str] = []
    where: list[int] = []

    def keep(a: int, b: int) -> None:
        out.extend(lines[a:b])
        where.extend(origin[a:b])

    tokens = _md().parse("\n".join(lines))
    at = 0
    for i, tok in enumerate(tokens):
        if tok.level != 0 or tok.map is None or tok.nesting == -1:
            continue
        start, end = tok.map
        if start < at:
            continue
        keep(at, start)
        inner = _opened(tok, lines, start, end) if depth < 4 else None
        if inner is not None and holds_log("\n".join(inner[0])):
            sub = _flatten(inner[0], [origin[k] for k in inner[1]], holds_log, match_label, depth + 1)
            out.extend(sub.text.splitlines())
            where.extend(sub.origin)
        elif tok.type == "table_open" and (made := _transposed(tokens, i, origin, match_label)) is not None:
            out.extend(made[0])
            where.extend(made[1])
        else:
            keep(start, end)
        at = end
    keep(at, len(lines))
    return Flat("\n".join(out), where)


def _opened(tok: Token, lines: list[str], start: int, end: int) -> tuple[list[str], list[int]] | None:
    """A container's text and the indices of its lines: a fence's or an indented block's content, a
    quote's lines less one '>' each; None for any other block."""
    if tok.type == "fence":
        body = list(range(start + 1, end))
        if body and re.match(r"^\s*(```|~~~)", lines[body[-1]]):
            body = body[:-1]  # the closing fence (a fence left open runs to the end)
        indent = len(lines[start]) - len(lines[start].lstrip())
        return [_dedent(lines[k], indent) for k in body], body
    if tok.type == "code_block":
        body = list(range(start, end))
        return [_dedent(lines[k], 4) for k in body], body
    if tok.type == "blockquote_open":
        body = list(range(start, end))
        return [_QUOTE.sub("", lines[k], count=1) for k in body], body
    return None


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


def _transposed(tokens: list[Token], i: int, origin: list[int],
                match_label: Label) -> tuple[list[str], list[int]] | None:
    """A table with a row per field and a column per problem as one section per column:
    '## Problem k' then '- <row label>: <cell>' for each row, each line at its row's line; None for
    any other table (a row-per-problem table is the field reader's, parser._problem_tables)."""
    rows = _rows(tokens, i)
    if len(rows) < 4 or len(rows[0][1]) < 2:
        return None
    head, body = rows[0], rows[1:]
    labels = [match_label(cells[0]) if cells else None for _, cells in body]
    if sum(n is not None for n in labels) < 3 or len({n for n in labels if n}) < 3:
        return None
    if sum(match_label(h) is not None for h in head[1][1:]) > 1:
        return None  # the header names fields: a row per problem, read as it is
    has_problem_row = "problem" in labels
    out: list[str] = []
    where: list[int] = []
    for j, title in enumerate(head[1][1:], start=1):
        if not any(j < len(cells) and cells[j].strip() for _, cells in body):
            continue  # an empty column is no problem
        out.append(f"## Problem {j}")
        where.append(origin[head[0]])
        if title and not CUE["problem_slot"].match(title) and not has_problem_row:
            out.append(f"- Problem: {title}")
            where.append(origin[head[0]])
        for line, cells in body:
            if not cells or not cells[0]:
                continue
            value = cells[j] if j < len(cells) else ""
            out.append(f"- {cells[0]}: {value}")
            where.append(origin[line])
        out.append("")
        where.append(origin[head[0]])
    return out, where
