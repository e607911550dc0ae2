"""The plain-text / terminal summary of one results.json."""

from __future__ import annotations

from grader.engine.results import Results
from grader.report.cards import build_cards
from grader.report.changes import change_view, filter_view
from grader.report.i18n import skip_reason, translate
from grader.report.lesson_tasks import task_titles, title_of
from grader.report.markup import ljust_display
from grader.report.view import failure_rows

STATUS_MARK = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "timeout": "TIMEOUT"}


def text_summary(results: Results, lang: str = "en") -> str:
    ko = lang == "ko"
    tr = lambda key: translate(key, lang)  # noqa: E731
    lines = []
    lines.append(f"{tr('text_head')}: {results['submission']}  {results['score']:g} / "
                 f"{results['max_score']:g}  [{', '.join(results['suites'])}; "
                 f"{translate('isolation', lang).lower()}: {results['isolation']}]")
    for banner in (filter_view(results, lang), change_view(results, lang)):
        if banner:
            lines.append(banner["text"])
    if results.get("error"):
        lines.append(f"{tr('text_unreadable')}: {results['error']}")
    titles = task_titles(results)
    for task, tot in results.get("tasks", {}).items():
        title = title_of(titles, task, lang)
        lines.append(f"  {ljust_display(title, 34)} {tot['score']:>5g} / {tot['max_score']:<5g} "
                     f"({tot['passed']}/{tot['total']})")
    cards, not_started = build_cards(failure_rows(results, lang, "exercises"), lang)
    if cards or not_started:
        lines.append("")
        lines.append(tr("text_to_fix"))
    for card in cards:  # one cause once, then each of its checks (report/cards.py)
        if card["count"] > 1:
            lines.append(f"* {card['task_title']} ({card['count_text']}, -{card['lost']:g}): {card['cause']}")
        for f in card["checks"]:
            lines.append(f"- [{STATUS_MARK[f['status']]}] {f['id']} ({f['task']}, {f['points']:g})")
            text = f["text"]
            if card["count"] > 1 and card["cause"]:
                text = text.replace(card["cause"], "").rstrip(" .:").removesuffix(
                    "Likely cause").removesuffix("원인 추정").rstrip(" .:") + "."
            lines.append(f"    {text}")
    for n in not_started:
        lines.append(f"* {n['task_title']} (-{n['lost']:g}): {n['text']}")
        lines += [f"- [{STATUS_MARK[f['status']]}] {f['id']}" for f in n["checks"]]
    for n in ((results.get("artifacts") or {}).get("notebook") or {}).get("notes", []):
        if n.get("important"):  # a notebook cell that failed, or could not run (grader/notebook)
            lines.append(("실행하지 못한 코드: " if ko else "Not run: ") + (n["messages"].get(lang)
                                                                    or n["messages"]["en"]))
    for note in results.get("dropped", []):
        lines.append(f"{tr('text_ignored')}: {note}")
    for s in results.get("skipped", []):
        lines.append(f"{tr('text_skipped')}: {s['id']}: {skip_reason(s['reason'], lang)}")
    return "\n".join(lines) + "\n"
