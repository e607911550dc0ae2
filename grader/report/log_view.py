"""The LeetCode log review (results["artifacts"]["leetcode_log"]) for the reports.

Findings are shown with the line of the student's log they point at. When
practice code fails (tests of task leetcode_practice), the review is redone
with those failures so each one appears next to the log's "what went wrong"
line for that problem: the log says what went wrong, the code shows it still does.
"""

from __future__ import annotations

from typing import Any

from grader.lesson.leetlog import review_log
from grader.report.i18n import translate
from grader.report.view import practice_failures

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
# The review names its breakdown items in English; their Korean, by suffix.
BREAKDOWN_KO = {
    "fields present and well formed": "항목이 모두 있고 형식이 맞음",
    "time complexity parses and matches a known approach": "시간복잡도: 읽을 수 있고 알려진 방법과 일치",
    "space complexity parses and matches a known approach": "공간복잡도: 읽을 수 있고 알려진 방법과 일치",
    "task fit (Medium, Math, distinct)": "과제 조건(Medium, 수학, 서로 다른 문제)",
}


def breakdown_label(item: str, lang: str) -> str:
    """'problem 1: fields ...' -> '문제 1: 항목이 ...' in Korean; unchanged otherwise."""
    if lang != "ko":
        return item
    head, _, tail = item.partition(": ")
    head = head.replace("problem", "문제")
    return f"{head}: {BREAKDOWN_KO.get(tail, tail)}" if tail else head


def log_view(results: dict, lang: str) -> dict[str, Any] | None:
    """None when the log was not graded in this run (e.g. -k selected other tests)."""
    art = (results.get("artifacts") or {}).get("leetcode_log")
    if not isinstance(art, dict):
        return None
    if not art.get("present", True):
        return {"present": False}
    source = str(art.get("source") or "")
    lines = source.splitlines()
    practice = practice_failures(results, lang)
    linked = art.get("linked_failures") or []
    if practice and source:
        linked = review_log(source, practice).to_dict()["linked_failures"]
    key = "message_ko" if lang == "ko" else "message_en"
    findings = []
    for f in sorted(art.get("findings") or [],
                    key=lambda f: (f.get("line") or 0, SEVERITY_ORDER.get(f.get("severity"), 3))):
        line = f.get("line")
        findings.append({
            "severity": f.get("severity", "info"), "code": f.get("code", ""), "line": line,
            "message": f.get(key) or f.get("message_en", ""),
            "quote": lines[line - 1].strip() if isinstance(line, int) and 0 < line <= len(lines) else "",
        })
    breakdown = [dict(b, item=breakdown_label(str(b.get("item", "")), lang), group=False)
                 for b in art.get("breakdown") or []]
    # One figure for the log: the task's points (the review rubric plus the task's other tests);
    # the review's own share is a line of the breakdown, so the two can never disagree.
    review, review_max = float(art.get("points", 0.0)), float(art.get("max_points", 0.0))
    task = (results.get("tasks") or {}).get("leetcode_log") or {}
    total, total_max = float(task.get("score", review)), float(task.get("max_score", review_max))
    if task and abs(total_max - review_max) > 1e-9:
        breakdown = [{"item": translate("log_review_part", lang), "points": review, "max_points": review_max,
                      "group": True}, *breakdown,
                     {"item": translate("log_other_checks", lang), "points": round(total - review, 3),
                      "max_points": round(total_max - review_max, 3), "group": True}]
    return {
        "present": True,
        "points": total, "max_points": total_max,
        "breakdown": breakdown, "problems": art.get("problems") or [],
        "findings": findings, "linked": linked,
        "errors": sum(f["severity"] == "error" for f in findings),
    }
