"""summary.txt: the terminal summary as plain text, then every failed check under its cause.

The text is the terminal's (report/terminal.py) rendered without colour, so its top three, its
grouping by cause and its wording are the terminal's by construction; only the task table is drawn
as aligned lines, and what the terminal leaves to feedback.html (each check of each cause, with its
expected / found and command) follows, since a text file has no page to point at.
"""

from __future__ import annotations

import io
import re

from rich.console import Console
from rich.table import Table

from grader.engine.results import Results
from grader.report.cards import build_cards, lost_text, top_fixes
from grader.report.i18n import skip_reason, suites_ran, translate
from grader.report.lesson_tasks import task_titles, title_of
from grader.report.markup import ljust_display
from grader.report.terminal import OTHER_CAUSES, summary_renderables
from grader.report.view import failure_rows, final_score, ignored_files, task_score

# a check's verdict in the reader's language (summary.txt is read beside a Korean page too)
STATUS_MARK = {"en": {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "timeout": "TIMEOUT"},
               "ko": {"passed": "통과", "failed": "실패", "error": "오류", "timeout": "시간 초과"}}
WIDTH = 110
EVERY_CHECK = ("Every failed check, by cause", "실패한 검사 전체(원인별)")
# "Likely cause: X" with its label: a check under a card that states X drops both, never the label alone
_CAUSE_LABEL = r"(?:Likely cause|원인 추정)\s*:\s*"


def text_summary(results: Results, lang: str = "en", path: str = "exercises") -> str:
    console = Console(file=io.StringIO(), record=True, width=WIDTH, color_system=None, emoji=False,
                      highlight=False)
    for i, item in enumerate(summary_renderables(dict(results), lang, path, whole=True)):
        if i == 0:  # the terminal's head, under the file's own title
            console.print(_head(results, lang), markup=False, soft_wrap=True)
        elif isinstance(item, Table):  # the task table as aligned lines: columns line up in any font
            for line in _task_lines(results, lang):
                console.print(line, markup=False, soft_wrap=True)
        else:
            console.print(item, soft_wrap=True)
    lines = console.export_text().rstrip("\n").splitlines()
    lines += _every_check(results, lang, path)
    lines += _the_rest(results, lang)
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _head(results: Results, lang: str) -> str:
    score, top = final_score(results)  # after the instructor's decisions, as the pages lead with it
    shown = score if isinstance(score, str) else f"{score:g}"
    return (f"{translate('text_head', lang)}: {results['submission']}  {shown} / "
            f"{top:g}  [{suites_ran(list(results['suites']), lang)}]")


def _task_lines(results: Results, lang: str) -> list[str]:
    titles = task_titles(results)
    out = []
    for task, tot in results.get("tasks", {}).items():
        title = title_of(titles, task, lang)
        out.append(f"  {ljust_display(title, 34)} {task_score(results, task):>5g} / {tot['max_score']:<5g} "
                   f"({tot['passed']}/{tot['total']})")
    return out


def _every_check(results: Results, lang: str, path: str) -> list[str]:
    """Each card's checks: its cause where the summary above did not state it, then per check the
    message without that cause, and the command."""
    cards, not_started = build_cards(failure_rows(results, lang, path), lang)
    if not cards and not not_started:
        return []
    fixes = top_fixes(cards, not_started)
    said = {id(f["checks"][0]) for f in fixes}
    rest = [c for c in cards if id(c["checks"][0]) not in said]
    said |= {id(c["checks"][0]) for c in rest[:OTHER_CAUSES]}  # their cause is stated above, whole
    out = ["", EVERY_CHECK[1 if lang == "ko" else 0]]
    mark = STATUS_MARK["ko" if lang == "ko" else "en"]
    for card in cards:
        stated = id(card["checks"][0]) in said
        head = f"* {card['task_title']} ({lost_text(card['lost'], lang)}"
        head += f", {card['count_text']})" if card["count"] > 1 else ")"
        if card["count"] > 1 and card["cause"] and not stated:
            head += f": {card['cause']}"
        out.append(head)
        for f in card["checks"]:
            out.append(f"- [{mark.get(f['status'], f['status'])}] {f['id']} ({f['points']:g})")
            text = f["text"]
            if card["count"] > 1 and card["cause"]:
                text = _without(text, card["cause"])
            # a cause of one check keeps its message here too: its expected / found, with its command
            if text:
                out.append(f"    {text}")
            out.append(f"    {f['reproduce']}")
    for n in not_started:
        out.append(f"* {n['task_title']} (−{n['lost']:g}): {n['text']}")
        out += [f"- [{mark.get(f['status'], f['status'])}] {f['id']}" for f in n["checks"]]
    return out


def _without(text: str, cause: str) -> str:
    """``text`` less its 'Likely cause: ...' (label and cause together), tidied."""
    cut = re.sub(_CAUSE_LABEL + re.escape(cause), "", text)
    cut = cut.replace(cause, "") if cut == text else cut
    cut = re.sub(_CAUSE_LABEL + r"(?=$|(?:Fix|How to fix|고치는 방법)\s*:)", "", cut)  # a label left empty
    return re.sub(r"\s{2,}", " ", cut).strip(" .:") + "."


def _the_rest(results: Results, lang: str) -> list[str]:
    tr = lambda key: translate(key, lang)  # noqa: E731
    out = []
    for note in ignored_files(results):
        out.append(f"{tr('text_ignored')}: {note}")
    for s in results.get("skipped", []):
        if s.get("not_counted"):
            continue  # a problem outside the best two: its own section above, failing checks shown
        out.append(f"{tr('text_skipped')}: {s['id']}: {skip_reason(s['reason'], lang, s.get('messages'))}")
    return out
