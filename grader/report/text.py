"""The plain-text / terminal summary of one results.json."""

from __future__ import annotations

from grader.engine.rubric import TASK_TITLES

STATUS_MARK = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "timeout": "TIMEOUT"}


def text_summary(results: dict, lang: str = "en") -> str:
    ko = lang == "ko"
    lines = []
    head = "채점 결과" if ko else "Grade"
    lines.append(f"{head}: {results['submission']}  {results['score']:g} / {results['max_score']:g}"
                 f"  [{', '.join(results['suites'])}; isolation: {results['isolation']}]")
    if results.get("error"):
        lines.append(("제출물을 읽을 수 없습니다: " if ko else "Submission unreadable: ") + results["error"])
    for task, tot in results.get("tasks", {}).items():
        title = TASK_TITLES.get(task, (task, task))[1 if ko else 0]
        lines.append(f"  {title:<34} {tot['score']:>5g} / {tot['max_score']:<5g} ({tot['passed']}/{tot['total']})")
    failed = [t for t in results.get("tests", []) if t["status"] != "passed"]
    if failed:
        lines.append("")
        lines.append("고칠 것:" if ko else "To fix:")
        for t in failed:
            lines.append(f"- [{STATUS_MARK[t['status']]}] {t['id']} ({t['task']}, {t['max_score']:g})")
            lines.append(f"    {t['messages'].get(lang) or t['message']}")
    for n in ((results.get("artifacts") or {}).get("notebook") or {}).get("notes", []):
        if n.get("important"):  # a notebook cell that failed, or could not run (grader/notebook)
            lines.append(("실행하지 못한 코드: " if ko else "Not run: ") + (n["messages"].get(lang) or n["messages"]["en"]))
    for note in results.get("dropped", []):
        lines.append(("무시한 항목: " if ko else "Ignored: ") + note)
    for s in results.get("skipped", []):
        lines.append(("건너뜀: " if ko else "Skipped: ") + f"{s['id']}: {s['reason']}")
    return "\n".join(lines) + "\n"
