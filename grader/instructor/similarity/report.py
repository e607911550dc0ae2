"""similarity.csv and similarity.html: every pair, most similar first; the closest side by side."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from grader.instructor.similarity.fingerprint import MIN_COMMON, Document, Pair, Settings, raw_slices
from grader.paths import write_atomic

CSV_NAME = "similarity.csv"
HTML_NAME = "similarity.html"
CSV_COLUMNS = ["a", "b", "similarity", "matched_tokens", "flagged", "a_share", "b_share"]
FILE_LINE = re.compile(r"# ==== .+ ====")  # fingerprint.join_files' header of each file
CONTEXT_LINES = 4  # unmatched lines kept around each highlighted stretch; the rest is "..."
MAX_FLAGGED_SHOWN = 100  # flagged pairs side by side at most (every pair is in the CSV)


@dataclass
class Outcome:
    out: Path
    settings: Settings
    submissions: list[Any]  # Found
    docs: list[Document]
    pairs: list[Pair]
    common: int
    seconds: float
    flagged: list[Pair] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.flagged = [p for p in self.pairs if p.flagged]

    def line(self) -> str:
        return (f"similarity: {len(self.docs)} submissions with code, {len(self.pairs)} pairs, "
                f"{len(self.flagged)} flagged ({self.seconds:g} s): {self.out / HTML_NAME} / 코드 유사도: "
                f"코드가 있는 제출물 {len(self.docs)}개, 쌍 {len(self.pairs)}개, "
                f"검토 대상 {len(self.flagged)}개")


def _cell(value: str) -> str:
    # A name a spreadsheet would run as a formula is kept as text.
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def similarity_csv(pairs: list[Pair]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(CSV_COLUMNS)
    for p in pairs:
        w.writerow([_cell(p.a), _cell(p.b), f"{p.similarity:.4f}", p.matched_tokens,
                    "true" if p.flagged else "false", f"{p.share_a:.4f}", f"{p.share_b:.4f}"])
    return buf.getvalue()


def _cut(text: str, keep_head: bool, keep_tail: bool) -> str:
    """An unmatched stretch: whole when short, else the CONTEXT_LINES lines next to each highlight it
    touches, around a "..." line."""
    lines = text.split("\n")
    head = CONTEXT_LINES + 1 if keep_head else 0  # + 1: the rest of the line a highlight ends on
    tail = CONTEXT_LINES + 1 if keep_tail else 0
    if len(lines) <= head + tail + 1:
        return text
    # The `# ==== file ====` lines stay: which file a highlight is in.
    middle = [line for line in lines[head:len(lines) - tail] if FILE_LINE.fullmatch(line)]
    cut = ["..."] + [x for m in middle for x in (m, "...")]
    return "\n".join(lines[:head] + cut + (lines[len(lines) - tail:] if tail else []))


def highlighted(doc: Document, slices) -> Markup:
    """The document, escaped, with each matched stretch in <mark>; long unmatched runs cut to "..."."""
    if slices.shape[-1] == 0:
        return escape(doc.text)
    text, pieces, at = doc.text, [], 0
    spans = raw_slices(doc, slices)
    for n, (start, end) in enumerate(zip(spans[0].tolist(), spans[1].tolist(), strict=True)):
        start = max(start, at)
        pieces.append(escape(_cut(text[at:start], keep_head=n > 0, keep_tail=True)))
        if end > start:
            pieces.append(Markup("<mark>") + escape(text[start:end]) + Markup("</mark>"))
        at = max(at, end)
    pieces.append(escape(_cut(text[at:], keep_head=True, keep_tail=False)))
    return Markup("").join(pieces)


def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).parent)),
                              autoescape=True, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True)


def render_html(outcome: Outcome, show: int) -> str:
    docs = {d.name: d for d in outcome.docs}
    dirs = {s.id: s.dir for s in outcome.submissions}
    rank = {id(p): i for i, p in enumerate(outcome.pairs, 1)}
    by_rank = lambda ps: sorted(ps, key=lambda p: rank[id(p)])  # noqa: E731
    closest = [p for p in outcome.pairs if not p.flagged and p.similarity > 0][:show]
    shown = by_rank(outcome.flagged[:MAX_FLAGGED_SHOWN] + closest)
    details = [{"pair": p, "rank": rank[id(p)],
                "a_html": highlighted(docs[p.a], p.slices_a), "b_html": highlighted(docs[p.b], p.slices_b),
                "a_files": docs[p.a].files, "b_files": docs[p.b].files} for p in shown]
    shown_ids = {id(p) for p in shown}
    top = [p for p in outcome.pairs if not p.flagged][:max(100, show)]
    listed = [{"rank": rank[id(p)], "pair": p, "shown": id(p) in shown_ids}
              for p in by_rank(outcome.flagged + top)]
    no_code = sorted(s.id for s in outcome.submissions if not s.code)
    return _environment().get_template("page.html.j2").render(
        title=outcome.out.resolve().name, s=outcome.settings, outcome=outcome, details=details,
        listed=listed, total=len(outcome.pairs), dirs=dirs, no_code=no_code,
        min_common=MIN_COMMON, pct=lambda x: f"{100 * x:.0f}%")


def write_outputs(outcome: Outcome, show: int = 30) -> tuple[Path, Path]:
    csv_path, html_path = outcome.out / CSV_NAME, outcome.out / HTML_NAME
    write_atomic(csv_path, similarity_csv(outcome.pairs), encoding="utf-8-sig")
    write_atomic(html_path, render_html(outcome, show))
    return csv_path, html_path
