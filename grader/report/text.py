"""The plain-text / terminal summary of one results.json."""

from __future__ import annotations

from grader.engine.results import Results
from grader.lesson.tasks import TASK_TITLES
from grader.report.i18n import skip_reason, translate
from grader.report.markup import ljust_display

STATUS_MARK = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "timeout": "TIMEOUT"}


def text_summary(results: Results, lang: str = "en") -> str:
    ko = lang == "ko"
    tr = lambda key: translate(key, lang)  # noqa: E731
    lines = []
    lines.append(f"{tr('text_head')}: {results['submission']}  {results['score']:g} / "
                 f"{results['max_score']:g}  [{', '.join(results['suites'])}; "
                 f"{translate('isolation', lang).lower()}: {results['isolation']}]")
    if results.get("error"):
        lines.append(f"{tr('text_unreadable')}: {results['error']}")
    for task, tot in results.get("tasks", {}).items():
        title = TASK_TITLES.get(task, (task, task))[1 if ko else 0]
        lines.append(f"  {ljust_display(title, 34)} {tot['score']:>5g} / {tot['max_score']:<5g} "
                     f"({tot['passed']}/{tot['total']})")
    failed = [t for t in results.get("tests", []) if t["status"] != "passed"]
    if failed:
        lines.append("")
        lines.append(tr("text_to_fix"))
        for t in failed:
            lines.append(f"- [{STATUS_MARK[t['status']]}] {t['id']} ({t['task']}, {t['max_score']:g})")
            lines.append(f"    {t['messages'].get(lang) or t['message']}")
    for n in ((results.get("artifacts") or {}).get("notebook") or {}).get("notes", []):
        if n.get("important"):  # a notebook cell that failed, or could not run (grader/notebook)
            lines.append(("실행하지 못한 코드: " if ko else "Not run: ") + (n["messages"].get(lang)
                                                                    or n["messages"]["en"]))
    for note in results.get("dropped", []):
        lines.append(f"{tr('text_ignored')}: {note}")
    for s in results.get("skipped", []):
        lines.append(f"{tr('text_skipped')}: {s['id']}: {skip_reason(s['reason'], lang)}")
    return "\n".join(lines) + "\n"
