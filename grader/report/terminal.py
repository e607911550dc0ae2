"""The terminal side of a grading run, with rich: a progress bar, then a colour summary.

The plugin calls ``progress.start(n)`` after collection and
``progress.advance(nodeid)`` after each test; ``Progress`` below is that object.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.table import Table

from grader.core.lang import particle
from grader.engine.results import Results, ResultsView
from grader.report.cards import build_cards, lost_text, not_counted_cards, tally, top_fixes
from grader.report.changes import change_view, filter_view, lesson_banner, nothing_to_fix
from grader.report.i18n import suites_ran, translate
from grader.report.markup import without_picture
from grader.report.pending import pending
from grader.report.view import converted_files, failure_rows, final_score, task_rows

STYLE = {"good": "green", "mid": "yellow", "bad": "red"}
OTHER_CAUSES = 6  # lines of causes beyond the top three (the rest are counted)


class Progress:
    """A bar on stderr while the suites run: start(n) once, advance(nodeid) per test."""

    def __init__(self, lang: str = "en", console: Console | None = None) -> None:
        self.lang = lang
        # bound to the real stderr now: the runner redirects sys.stderr while pytest runs
        self.console = console or Console(file=sys.stderr)
        self._bar: RichProgress | None = None
        self._task: Any = None

    def start(self, total: int) -> None:
        self.close()  # a restarted session (e.g. public then hidden) gets a fresh bar
        self._bar = RichProgress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("[dim]{task.fields[test]}"), TimeElapsedColumn(),
            console=self.console, transient=True,
            # rich's Live would swap sys.stdout/sys.stderr for proxies and, at stop, put back whatever
            # it found at start: pytest's capture sink (the runner redirects output while the suites run),
            # so the summary printed after the bar went into that sink and a terminal showed nothing.
            redirect_stdout=False, redirect_stderr=False,
        )
        self._bar.start()
        self._task = self._bar.add_task(translate("grading", self.lang), total=total, test="")

    def advance(self, nodeid: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, advance=1, test=nodeid.split("::")[-1][:40])

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress_for(lang: str, quiet: bool) -> Progress | None:
    """A bar only for a person at a terminal: CI logs get no control characters."""
    if quiet or not sys.stderr.isatty():
        return None
    return Progress(lang)


def summary_renderables(results: ResultsView, lang: str, path: str, out_dir: str | None = None,
                        reports: bool = True, whole: bool = False) -> list[Any]:
    """What print_summary prints, as rich objects (tests render them to text). ``whole``: each cause's line
    as long as it is (summary.txt), not cut to the terminal's width with "…"."""
    t = lambda key, **fmt: translate(key, lang, **fmt)  # noqa: E731
    line = _one_line if whole else _first_line
    score, max_score = final_score(results)  # the term's final total where given, EX if excused
    frac = score / max_score if max_score and not isinstance(score, str) else 0.0
    level = "good" if frac >= 0.999 else ("mid" if frac >= 0.5 else "bad")
    said = score if isinstance(score, str) else f"{score:g}"
    head = (f"[bold]{t('score')}[/]: {escape(str(results.get('submission', '')))}  "
            f"[bold {STYLE[level]}]{said} / {max_score:g}[/]  "
            f"[dim]\\[{suites_ran(list(results.get('suites', [])), lang)}][/]")
    out: list[Any] = [head]
    filtered, change = filter_view(results, lang), change_view(results, lang)
    other = lesson_banner(results, lang)  # another lesson's folder: said before any number is read
    if other:
        out.append(f"[bold red]{escape(other)}[/]")
    if filtered:
        out.append(f"[bold yellow]{escape(filtered['text'])}[/]")
    if change:
        out.append(f"[bold {STYLE[change['level']]}]{escape(change['text'])}[/]")
    if results.get("error"):
        out.append(f"[red]{t('unreadable')}:[/] {escape(results['error'])}")
    for reason in (results.get("review") or {}).get("reasons", [])[:3]:
        out.append(f"[yellow]{t('review_flagged')}:[/] {escape(reason.get(lang) or reason.get('en', ''))}")
    table = Table(show_edge=False, header_style="bold")
    table.add_column(t("task"))
    table.add_column(t("points"), justify="right")
    table.add_column(t("tests_passed"), justify="right")
    table.add_column("", min_width=12)
    for row in task_rows(results, lang):
        style = STYLE[row["level"]]
        filled = row["percent"] // 10
        table.add_row(row["title"], f"[{style}]{row['score']:g} / {row['max_score']:g}[/]",
                      f"{row['passed']} / {row['total']}",
                      f"[{style}]{'█' * filled}[/][dim]{'░' * (10 - filled)}[/]")
    if table.row_count:
        out.append(table)
    at_submit = pending(results, lang)
    if at_submit:  # a deduction the hidden checks will take, with its amount (report/pending.py)
        out.append(f"[bold yellow]{escape(at_submit['head'])}[/]")
        out += [f"[yellow]-[/] {escape(i['line'])}" for i in at_submit["items"]]
    cards, not_started = build_cards(failure_rows(results, lang, path), lang)
    fixes = top_fixes(cards, not_started)
    if fixes:
        out.append(f"\n[bold]{t('top_fixes')}[/]")
        for i, f in enumerate(fixes, 1):
            count = f" [dim]({f['count_text']})[/]" if f["kind"] == "card" and f["count"] > 1 else ""
            lost = lost_text(f["task_lost"], lang)
            out.append(f"[bold]{i}. {escape(f['task_title'])}[/] [red]({lost})[/]{count}: "
                       f"{escape(without_picture(f['text']))}")
            if f.get("first_note"):
                out.append(f"   [yellow]{escape(f['first_note'])}[/]")
            out.append(f"   [dim]{escape(f['reproduce'])}[/]")
        shown = {id(f["checks"][0]) for f in fixes}
        rest = [c for c in cards if id(c["checks"][0]) not in shown]
        if rest:  # every other cause, one line each (its checks are in feedback.html)
            out.append(f"\n[bold]{t('other_causes')}[/]")
            for c in rest[:OTHER_CAUSES]:
                count = f" [dim]({c['count_text']})[/]" if c["count"] > 1 else ""
                lost = lost_text(c["lost"], lang)
                out.append(f"[yellow]-[/] {escape(c['task_title'])} [red]({lost})[/]{count}: "
                           f"{escape(line(without_picture(c['text'])))}")
        if len(rest) > OTHER_CAUSES:
            out.append(f"[dim]{escape(t('more_causes', n=len(rest) - OTHER_CAUSES))}[/]")
        idle = [n for n in not_started if id(n["checks"][0]) not in shown]
        if idle:
            out.append(f"\n[bold]{t('not_started')}[/]")
            out += [f"[yellow]-[/] {escape(n['task_title'])} [red](−{n['lost']:g})[/]: {escape(n['text'])}"
                    for n in idle]
        if reports:  # never point at feedback files that were not written
            html = f"{out_dir}/feedback.html" if out_dir else "feedback.html"
            failed = tally(cards, not_started, lang)["checks"]
            every = t("every_check" if failed != 1 else "the_one_check", n=failed, html=html,
                      html_and=particle(html, "과"))
            out.append(f"[dim]{escape(every)}[/]")
    elif table.row_count:
        out.append(f"[green]{escape(nothing_to_fix(results, lang))}[/]")
        if out_dir and reports:
            key = "report_at_filtered" if results.get("filter") else "report_at"
            out.append(f"[dim]{escape(t(key, html=f'{out_dir}/feedback.html'))}[/]")
    out += not_counted_lines(results, lang, path, whole)
    # a file graded by converting its encoding, which Python itself would refuse: said, not "ignored"
    out += [f"[yellow]![/] {escape(line)}" for line in converted_files(results, lang)]
    # a notebook's (or module's) top-level code that failed or could not run (grader/notebook)
    notes = [n for n in ((results.get("artifacts") or {}).get("notebook") or {}).get("notes", [])
             if n.get("important")]
    if notes:
        out.append(f"\n[bold]{'실행하지 못했거나 실패한 최상위 코드' if lang == 'ko' else 'Top-level code that failed or did not run'}[/]")  # noqa: E501
        out += [f"[yellow]-[/] {escape(n['messages'].get(lang) or n['messages']['en'])}" for n in notes[:8]]
    return out


def not_counted_lines(results: ResultsView, lang: str, path: str, whole: bool = False) -> list[str]:
    """A problem outside the best two that fails: said, with its first checks and the command to rerun,
    though it costs nothing (report/cards.py). A message several checks share is said once."""
    cards = not_counted_cards(results, lang, path)
    if not cards:
        return []
    line = _one_line if whole else _first_line
    out = [f"\n[bold]{escape(cards[0]['head'])}[/]"]
    for c in cards:
        out.append(f"[yellow]-[/] {escape(c['task_title'])}: {escape(c['text'])}")
        texts = list(dict.fromkeys(line(f["text"]) for f in c["checks"]))
        out += [f"   {escape(text)}" for text in texts[:3]]
        out.append(f"   [dim]{escape(c['reproduce'])}[/]")
    return out


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _first_line(text: str, limit: int = 160) -> str:
    """The text on one line of at most ``limit`` characters: whole if it fits, else its whole sentences
    that fit, else cut at a space outside code (never inside a `code span` or a word), with "…"."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    sentence = re.match(r"(.+[.!?])(?= )", line[:limit])  # the last sentence that ends within the limit
    if sentence and len(sentence.group(1)) >= limit // 3 and sentence.group(1).count("`") % 2 == 0:
        return sentence.group(1) + " …"
    cut = line[: limit - 1]
    if cut.count("`") % 2:  # inside a code span: end before it opens
        cut = cut[: cut.rfind("`")]
    space = cut.rfind(" ")
    cut = cut[:space] if space > limit // 3 else cut
    return cut.rstrip(" ,;:(") + " …"


def watch_lines(results: ResultsView, lang: str, path: str) -> list[str]:
    """`grade --watch`'s short view after a grade, as the summary says it: the deductions still to come
    at submission with their amounts, then the top three causes (one line each, a cause once however
    many checks it fails) and how many more; the score and the change line are the watch's own."""
    out = []
    at_submit = pending(results, lang)
    if at_submit:
        out.append(at_submit["head"])
        out += [f"! {i['line']}" for i in at_submit["items"]]
    cards, not_started = build_cards(failure_rows(results, lang, path), lang)
    fixes = top_fixes(cards, not_started)
    for f in fixes:
        count = f" ({f['count_text']})" if f["kind"] == "card" and f["count"] > 1 else ""
        lost = lost_text(f["task_lost"], lang)
        out.append(f"✗ {f['task_title']} ({lost}){count}: {without_picture(f['text'])}")
    more = len(cards) + len(not_started) - len(fixes)
    if more > 0:
        out.append(translate("more_causes", lang, n=more))
    return out


def print_summary(results: Results, lang: str, path: str, console: Console | None = None,
                  out: str | None = None, reports: bool = True) -> None:
    console = console or Console()
    for item in summary_renderables(results, lang, path, out, reports):
        console.print(item, highlight=False)
