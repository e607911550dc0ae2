"""The desk's pages: the queue and one student's view, rendered from the class model on each request.

Everything a student wrote (logs, code, file names, reasons) reaches the page through Jinja's
autoescape or Pygments' escaping: a ``<script>`` in a log shows as text.  The student's files are read
as data from the batch folder (the code `grade batch` kept) or the submission's folder, never run.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import jinja2
from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import MarkdownLexer, PythonLexer, TextLexer

from grader.engine.classmodel import ClassModel, Row
from grader.instructor.desk.queue import KINDS, STATES, Filters, Item, build_queue, counts
from grader.instructor.export import batch_scores, unsendable
from grader.instructor.similarity.collect import read_kept
from grader.instructor.term.decide import flagged_pairs
from grader.instructor.term.records import (
    ADJUSTMENTS,
    PAIR_REVIEWS,
    REVIEWS,
    read_adjustments,
    read_pair_reviews,
    read_reviews,
)

HERE = Path(__file__).parent
MAX_DOC_BYTES = 512 * 1024  # a log document read for the TA; larger is not a log
SECTION_LINES = 60  # the most of a log section shown around the unsure line
FORMATTER_CLASS = "hl"

_env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                          trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)


def pygments_css() -> str:
    return HtmlFormatter(cssclass=FORMATTER_CLASS).get_style_defs(f".{FORMATTER_CLASS}")


def _code(text: str, lexer: object, first: int = 1, marked: tuple[int, ...] = ()) -> Markup:
    """``text`` highlighted (escaped by Pygments), numbered from ``first``, ``marked`` lines lit."""
    fmt = HtmlFormatter(cssclass=FORMATTER_CLASS, linenos="inline", linenostart=first,
                        hl_lines=[n - first + 1 for n in marked])
    return Markup(highlight(text, lexer, fmt))  # noqa: S704 - Pygments escapes the source it formats


@dataclass
class Shown:
    """One file of the student's, highlighted."""

    name: str
    html: Markup
    lines: int


def _inside(root: Path, name: str) -> Path | None:
    """``root/name`` when it is a regular file inside ``root`` that is no link and small enough."""
    try:
        path = (root / name)
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_DOC_BYTES:
            return None
        if not path.resolve().is_relative_to(root.resolve()):
            return None
    except (OSError, ValueError):
        return None
    return path


def log_section(row: Row, check: dict) -> Shown | None:
    """The section of the student's log around the check's line (its heading to the next one)."""
    if not check.get("document") or not row.path:
        return None
    root = Path(row.path)
    path = _inside(root, str(check["document"])) if root.is_dir() else None
    if path is None:
        return None
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    at = max(1, min(int(check.get("line") or 1), len(lines) or 1))
    start = at
    while start > 1 and not lines[start - 1].lstrip().startswith("#"):
        start -= 1
    end = at
    while end < len(lines) and not lines[end].lstrip().startswith("#"):
        end += 1
    if end - start >= SECTION_LINES:
        start, end = max(1, at - SECTION_LINES // 2), min(len(lines), at + SECTION_LINES // 2)
    text = "\n".join(lines[start - 1:end]) + "\n"
    return Shown(f"{check['document']}, lines {start}-{end}", _code(text, MarkdownLexer(), start, (at,)),
                 end - start + 1)


AT_LINE = re.compile(r"^([^\s:]+):(\d+):")  # a tamper finding's place: "embedding.py:107: imports ..."


def marked_lines(row: Row) -> dict[str, tuple[int, ...]]:
    """File -> the lines the tamper scan's findings name, lit in the code shown."""
    marks: dict[str, set[int]] = {}
    for finding in row.review.reasons:
        m = AT_LINE.match(str(finding.get("en", "")))
        if m:
            marks.setdefault(m.group(1), set()).add(int(m.group(2)))
    return {k: tuple(sorted(v)) for k, v in marks.items()}


def student_code(model: ClassModel, row: Row) -> list[Shown]:
    """The code `grade batch` kept beside the result, each file highlighted, the findings' lines lit."""
    if not row.dir:
        return []
    kept = read_kept(model.out / row.dir) or {}
    marks = marked_lines(row)
    return [Shown(name, _code(text, PythonLexer() if name.endswith(".py") else TextLexer(), 1,
                              marks.get(name, ())), text.count("\n") + 1)
            for name, text in sorted(kept.items(), key=lambda kv: (kv[0] not in marks, kv[0]))]


def version(out: Path) -> str:
    """Changes whenever a decision is recorded (by this desk, another one or the CLI)."""
    parts = []
    for name in (REVIEWS, ADJUSTMENTS, PAIR_REVIEWS):
        try:
            st = (out / name).stat()
            parts.append(f"{st.st_mtime_ns}.{st.st_size}")
        except OSError:
            parts.append("0")
    return "-".join(parts)


@dataclass
class Page:
    """What every page gets: who reads it and the token its forms carry."""

    ta: str
    token: str
    out: Path
    reading: dict[str, tuple[str, float]]  # student id -> (TA, when) of the last view


READING_FOR = 120.0  # seconds a student's view counts as open in the TA's browser


def _readers(page: Page, row: Row) -> list[str]:
    """The other TAs who opened this student's view in the last two minutes."""
    ta, when = page.reading.get(row.id, ("", 0.0))
    return [ta] if ta and ta != page.ta and time.time() - when < READING_FOR else []


def _queue(model: ClassModel) -> list[Item]:
    out = model.out
    return build_queue(model, read_reviews(out / REVIEWS), read_adjustments(out / ADJUSTMENTS),
                       flagged_pairs(out), read_pair_reviews(out / PAIR_REVIEWS))


def blockers(model: ClassModel) -> list[tuple[str, str]]:
    """(student id, why) for each reason `grade export` refuses to send the class yet."""
    return [(s["id"], line) for s in batch_scores(model) for line in unsendable([s], model.out)]


def render_queue(model: ClassModel, page: Page, filters: Filters, message: str = "") -> str:
    items = _queue(model)
    shown = [i for i in items if filters.keep(i)]
    tasks = sorted({i.task for i in items if i.task})
    tas = sorted({i.ta for i in items if i.ta})
    return _env.get_template("queue.html.j2").render(
        page=page, items=shown, total=len(items), counts=counts(items), kinds=KINDS, states=STATES,
        filters=filters, tasks=tasks, tas=tas, readers={i.row.id: _readers(page, i.row) for i in shown},
        version=version(model.out), message=message, notes=model.notes, blockers=blockers(model))


def render_student(model: ClassModel, row: Row, page: Page, message: str = "") -> str:
    items = [i for i in _queue(model) if row.id in (i.row.id, i.other.id if i.other else "")]
    sections = {i.key: log_section(row, i.check) for i in items if i.check}
    failed = [t for t in row.results.get("tests") or [] if t.get("status") not in ("passed", "skipped")]
    adjustments = [a for a in read_adjustments(model.out / ADJUSTMENTS)
                   if a.id.casefold() in (row.id.casefold(), row.name.casefold())]
    return _env.get_template("student.html.j2").render(
        page=page, row=row, items=items, sections=sections, code=student_code(model, row), failed=failed,
        kinds=KINDS, states=STATES, readers=_readers(page, row), version=version(model.out),
        adjustments=adjustments, message=message)


def render_refused(why: str) -> str:
    return _env.get_template("refused.html.j2").render(why=why)


__all__ = ["Page", "pygments_css", "render_queue", "render_refused", "render_student", "version"]
