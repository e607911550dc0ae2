"""Render feedback.html, feedback.md and gradescope.json from results.json.

Templates live in templates/ at the kit's root and are rendered with Jinja2;
the HTML environment autoescapes, so a student's message or log line is
always text, never markup. Markdown escaping is done by the `md` filter.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import jinja2

from grader.engine.results import ResultsView
from grader.paths import TEMPLATES, write_atomic
from grader.report.cards import build_cards, not_counted_cards, tally, top_fixes
from grader.report.changes import change_view, filter_view, lesson_banner, nothing_to_fix
from grader.report.gradescope import build_gradescope, page_view, visible_view
from grader.report.i18n import skip_reason, status_word, suites_ran, translate
from grader.report.lesson_sections import document_summary, lesson_sections
from grader.report.lesson_tasks import templates_of
from grader.report.markup import code_spans, md_code_spans, without_picture
from grader.report.pending import pending
from grader.report.view import (
    converted_files,
    failure_rows,
    final_score,
    ignored_files,
    student_output,
    task_rows,
)

MD_LIMIT = 1_000_000  # bytes: under GitHub's 1 MiB job summary limit, with room to spare


_ENVS: dict[str, jinja2.Environment] = {}


def environment(lesson_templates: Path | None = None) -> jinja2.Environment:
    """The one Jinja environment of every report (feedback, Gradescope summary, class pages); with a
    lesson's own templates folder (``Lesson.templates``), one that searches it before the kit's.

    HTML templates autoescape (student text is never markup); Markdown ones do not, and
    escape through the `md`/`code`/`html` filters instead.
    """
    key = str(lesson_templates or "")
    if key not in _ENVS:
        folders = [str(p) for p in (lesson_templates, TEMPLATES) if p is not None]
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(folders),
            autoescape=lambda name: name is not None and name.endswith(".html.j2"),
            undefined=jinja2.StrictUndefined,
            trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        )
        env.filters.update(md=md_escape, code=md_code, html=html.escape, num=_num, pts=points, pct=percent,
                           msg=code_spans, nopic=without_picture,
                           mdmsg=lambda text: md_code_spans(text, md_escape, md_code))
        _ENVS[key] = env
    return _ENVS[key]


def points(value: Any) -> str:
    """A score as people write it: 69.25, 6.75, 30 (two decimals at most, never 69.2)."""
    if value is None or value == "":
        return "–"
    return f"{round(float(value), 2):g}"


def percent(value: Any) -> str:
    return "–" if value is None else f"{100 * float(value):.0f}%"


def md_escape(text: Any) -> str:
    """Student text as literal Markdown: no markup, links, HTML or table breaks. Only what would be
    markup is escaped, so the file reads as written in a plain viewer too: ``->`` and ``a < b`` stay as
    they are (never ``-&gt;``). A ``<`` that could open a tag or an autolink becomes ``&lt;``, an ``&``
    that would start an entity ``&amp;``, a ``>`` that starts the text (a quote) and Markdown's own
    punctuation take a backslash."""
    s = str(text).replace("\r", "")
    s = re.sub(r"&(?=#?\w+;)", "&amp;", s)
    s = re.sub(r"<(?=[A-Za-z/!?])", "&lt;", s)
    s = re.sub(r"([\\`*_{}\[\]#+!|~])", r"\\\1", s)
    s = re.sub(r"^(\s*)>", r"\1\\>", s)
    return s.replace("\n", "<br>")


def md_code(text: Any) -> str:
    """Inline code that survives any backticks inside it."""
    s = str(text).replace("\n", " ")
    fence = "`" * (max((len(m) for m in re.findall(r"`+", s)), default=0) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def _num(value: Any, digits: int = 3) -> str:
    if value is None or value == "":
        return "–"
    try:
        return f"{float(value):.{digits}g}" if abs(float(value)) < 1000 else f"{float(value):.0f}"
    except (TypeError, ValueError):
        return str(value)


def chip(n: Any, key: str, lang: str) -> str:
    """A chip's number with what it is ("−2 points", "worth 1 point", "−2점"): never a bare number."""
    value = float(n or 0)
    if key == "chip_lost" and value == 0:
        return translate("chip_none_lost", lang)
    return translate(key, lang, n=_num(value), points="point" if value == 1 else "points")


def build_context(results: ResultsView, lang: str, path: str) -> dict[str, Any]:
    """Everything a template needs, in ``lang``."""
    failures = failure_rows(results, lang, path)
    cards, not_started = build_cards(failures, lang)
    # A page states only what was graded: a submission that could not be read has no tasks, fixes or blocks.
    graded = not (results.get("error") and not results.get("tests"))
    sections = lesson_sections(results, lang, report=True) if graded else []
    score, max_score = final_score(results)  # the term's final total over its maximum, EX if excused
    return {
        "lang": lang, "r": results, "path": path, "graded": graded,
        "t": lambda key, **fmt: translate(key, lang, **fmt),
        "suites_ran": lambda suites: suites_ran(list(suites or []), lang),
        "status_word": lambda s: status_word(s, lang),
        "skip_reason": lambda s, messages=None: skip_reason(s, lang, messages),
        "score": score, "max_score": max_score,
        "chip_lost": lambda n: chip(n, "chip_lost", lang),
        "chip_worth": lambda n: chip(n, "chip_worth", lang),
        "percent": round(100 * score / max_score) if max_score and not isinstance(score, str) else 0,
        "excused": isinstance(score, str),
        "ignored_files": ignored_files(results), "converted_files": converted_files(results, lang),
        "tasks": task_rows(results, lang), "failures": failures, "cards": cards, "not_started": not_started,
        "fixes": top_fixes(cards, not_started), "not_counted": not_counted_cards(results, lang, path),
        "tally": tally(cards, not_started, lang),
        "change": change_view(results, lang), "filtered": filter_view(results, lang),
        "other_lesson": lesson_banner(results, lang),
        "nothing_to_fix": nothing_to_fix(results, lang),
        "at_submit": pending(results, lang),  # what the hidden checks will take, with its amount
        "lesson_sections": sections,
        "log": document_summary(sections),  # the graded document's points, for short summaries
        # the versions a student can match (python, torch); the host's platform string is an internal
        "versions": {k: v for k, v in (results.get("versions") or {}).items() if k != "platform"},
        "worker": dict(results.get("worker") or {},
                       output=student_output((results.get("worker") or {}).get("output", ""))),
    }


def render_html(results: ResultsView, lang: str, path: str) -> str:
    env = environment(templates_of(results))
    return env.get_template("feedback.html.j2").render(build_context(results, lang, path))


def render_markdown(results: ResultsView, lang: str, path: str, limit: int = MD_LIMIT) -> str:
    """GitHub-flavoured Markdown under ``limit`` bytes: long output is cut with a note."""
    ctx = build_context(results, lang, path)
    env = environment(templates_of(results))
    text = env.get_template("feedback.md.j2").render(ctx, details_limit=None)
    if len(text.encode("utf-8")) <= limit:
        return text
    # Too long: cap each message and the worker output, then hard-cut as a last resort.
    text = env.get_template("feedback.md.j2").render(ctx, details_limit=2000)
    note = "\n\n> " + translate("truncated", lang, limit=f"{limit // 1024} KiB") + "\n"
    budget = limit - len(note.encode("utf-8")) - 1024
    raw = text.encode("utf-8")
    if len(raw) > budget:
        text = raw[:budget].decode("utf-8", "ignore")
        text = text[: text.rfind("\n")] + "\n</details>\n" if "<details>" in text else text
    return text + note


def render_summary_md(results: ResultsView, lang: str, path: str) -> str:
    """The short Markdown shown on Gradescope's top-level output: visible tests only."""
    ctx = build_context(visible_view(results), lang, path)
    return environment(templates_of(results)).get_template("summary.md.j2").render(ctx)


def write_reports(results: ResultsView, out: Path, lang: str, path: str = "exercises", *,
                  for_student: bool = False) -> dict[str, Path]:
    """feedback.html, feedback.md and gradescope.json next to results.json.

    ``for_student``: the pages a batch hands to the student (grader/instructor/term/model.py): no test
    the hidden suite declared ``hidden`` is named on them; the instructor's own `grade` run shows all."""
    out.mkdir(parents=True, exist_ok=True)
    page = page_view(results) if for_student else results
    written = {
        "feedback.html": render_html(page, lang, path),
        "feedback.md": render_markdown(page, lang, path),
        "gradescope.json": json.dumps(build_gradescope(results, lang, path,
                                                       render_summary_md(results, lang, path)),
                                      ensure_ascii=False, indent=2) + "\n",
    }
    paths = {}
    for name, text in written.items():
        write_atomic(out / name, text)
        paths[name] = out / name
    return paths
