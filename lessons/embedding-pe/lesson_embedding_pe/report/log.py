"""The LeetCode log review (results["artifacts"]["leetcode_log"]) for this lesson's report block.

Findings are shown with the line of the student's log they point at. When
practice code fails (tests of task leetcode_practice), the review is redone
with those failures so each one appears next to the log's "what went wrong"
line for that problem: the log says what went wrong, the code shows it still does.
"""

from __future__ import annotations

import re
from typing import Any

from grader.author import pending, record_of, task_score, translate
from lesson_embedding_pe.leetlog import review_log
from lesson_embedding_pe.loggrade import HIDDEN_GROUPS, PUBLIC_GROUPS
from lesson_embedding_pe.practice import PROBLEMS

SEVERITY_ORDER = {"error": 0, "warning": 1, "unsure": 2, "info": 3}
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


GROUPS = {g.name: g for g in (*PUBLIC_GROUPS, *HIDDEN_GROUPS)}
# Findings whose points only the hidden suite takes: on a public run they cost nothing yet.
AT_SUBMISSION = {code for g in HIDDEN_GROUPS for code in g.codes or ()}
_CASE = re.compile(r"\[problem(\d+)-(\w+)\]$")  # test_log[problem1-complexity]


# A complexity the page says is missing (or has no Big-O) is one the catalog could not check.
_NOT_CHECKED = ("missing_field", "no_bigo")


def _unchecked(findings: list[dict]) -> dict[int, list[str]]:
    """Problem -> the complexities ("time", "space") a sure finding says are missing or unreadable."""
    out: dict[int, list[str]] = {}
    for f in findings:
        sure = f.get("severity") == "error" and f.get("code") in _NOT_CHECKED
        if sure and f.get("field") in ("time", "space"):
            out.setdefault(int(f.get("problem") or 0), []).append(str(f["field"]))
    return out


def _catalog_label(label: str, missing: list[str], lang: str) -> str:
    """The catalog row of a problem whose complexity is missing: it says what it checked, so the page
    never shows points earned for a comparison of a claim it says is not there."""
    ko = {"time": "시간복잡도", "space": "공간복잡도"}
    if set(missing) >= {"time", "space"}:
        return label + (" (확인할 복잡도가 없음)" if lang == "ko" else " (no complexity to check)")
    gone = missing[0]
    other = "space" if gone == "time" else "time"
    if lang == "ko":
        return label + f" ({ko[other]}만 확인함: {ko[gone]}가 없음)"
    return label + f" ({other} complexity only: the {gone} complexity is missing)"


def test_breakdown(results: dict, lang: str, unchecked: dict[int, list[str]] | None = None
                   ) -> list[dict[str, Any]]:
    """'problem 1: time and space complexity ...  0 / 1' per log test, in problem then rubric order."""
    rows: dict[tuple[int, int, str], dict[str, Any]] = {}
    order = list(GROUPS)
    for t in results.get("tests", []):
        m = _CASE.search(str(t.get("id", ""))) if t.get("task") == "leetcode_log" else None
        if not m or m.group(2) not in GROUPS:
            continue
        problem, group = int(m.group(1)), GROUPS[m.group(2)]
        label = f"문제 {problem}: {group.ko}" if lang == "ko" else f"problem {problem}: {group.en}"
        if group.name == "catalog" and (unchecked or {}).get(problem):
            label = _catalog_label(label, (unchecked or {})[problem], lang)
        row = rows.setdefault((problem, order.index(group.name), group.name),
                              {"item": label, "points": 0.0, "max_points": 0.0, "group": False})
        row["points"] = round(row["points"] + float(t.get("score", 0.0)) - taken_from(results).get(
            str(t.get("id")), 0.0), 3)
        row["max_points"] = round(row["max_points"] + float(t.get("max_score", 0.0)), 3)
    return [rows[k] for k in sorted(rows)]


def practice_failures(results: dict, lang: str = "en") -> dict[str, str]:
    """Practice function -> its first failing check in ``lang`` (not-attempted ones excluded)."""
    found: dict[str, str] = {}
    for t in results.get("tests", []):
        if t.get("task") != "leetcode_practice" or t["status"] == "passed":
            continue
        messages = t.get("messages") or {}
        text = messages.get("en") or t.get("message", "")
        if record_of(t).status == "not_started":
            continue
        shown = messages.get(lang) or text
        for fn in PROBLEMS:
            if fn in t["id"] or text.startswith(fn):
                found.setdefault(fn, shown.rstrip(". "))
    return found


def not_counted_failures(results: dict, lang: str) -> dict[str, str]:
    """Practice function -> its first failing check, for a logged problem outside the best two: it costs
    nothing, but the log's 'what went wrong' still sits next to it (practice_failures has the rest)."""
    found: dict[str, str] = {}
    for entry in results.get("skipped") or []:
        left = entry.get("not_counted") or {}
        for t in left.get("tests") or []:
            messages = t.get("messages") or {}
            en = messages.get("en", "")
            if t.get("status") != "passed" and en and record_of(t).status != "not_started":
                found.setdefault(str(left.get("group", "")), (messages.get(lang) or en).rstrip(". "))
    return found


def problem_points(results: dict, problems: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each problem's points as this run's log tests gave them, so the problems add up to the log's
    score (the review's own 3 per problem includes checks that run only at submission)."""
    earned: dict[int, list[float]] = {}
    for t in results.get("tests", []):
        m = _CASE.search(str(t.get("id", ""))) if t.get("task") == "leetcode_log" else None
        if m and m.group(2) in GROUPS:
            got = earned.setdefault(int(m.group(1)), [0.0, 0.0])
            got[0] += float(t.get("score", 0.0)) - taken_from(results).get(str(t.get("id")), 0.0)
            got[1] += float(t.get("max_score", 0.0))
    if not earned:
        return problems
    return [dict(p, points=round(earned.get(int(p.get("index", 0)), [0.0, 0.0])[0], 3),
                 max_points=round(earned.get(int(p.get("index", 0)), [0.0, 0.0])[1], 3)) for p in problems]


def taken_from(results: dict) -> dict[str, float]:
    """Test id -> the points a TA's take removed from it (results.json ``final.checks``; a check's part
    out of its tests, first test first, as the term applied it)."""
    decided = (results.get("final") or {}).get("checks") or {}
    out: dict[str, float] = {}
    for check in results.get("ta_checks") or []:
        d = decided.get(str(check.get("key"))) if isinstance(check, dict) else None
        if not (isinstance(d, dict) and d.get("decision") == "take"):
            continue
        left = -float(d.get("points") or 0.0)
        for test in check.get("tests") or []:
            earned = next((float(r.get("score") or 0.0) for r in results.get("tests", [])
                           if r.get("id") == test), 0.0) - out.get(test, 0.0)
            step = min(earned, left)
            if step > 0:
                out[test] = round(out.get(test, 0.0) + step, 4)
                left -= step
    return out


def ta_decision(finding: dict, results: dict, message: str, lang: str) -> tuple[str, str]:
    """An unsure finding as the student reads it once a TA decided (logta.py's key names it): read by a
    TA (a note: confirmed, or the points taken and why); still ``unsure`` while undecided or void."""
    from lesson_embedding_pe.logta import check_key

    d = ((results.get("final") or {}).get("checks") or {}).get(check_key(finding))
    if not isinstance(d, dict) or d.get("decision") not in ("confirm", "take"):
        return "unsure", message
    from lesson_embedding_pe.report.texts import t

    what = t("ta_confirmed" if d["decision"] == "confirm" else "ta_taken", lang,
              points=f"{abs(float(d.get('points') or 0)):g}", reason=str(d.get("reason") or ""))
    head = message.split(". ", 1)[0].split(": ", 1)[0]  # "Problem 1" / "문제 1"
    return "info", f"{head}: {what}"


def log_view(results: dict, lang: str) -> dict[str, Any] | None:
    """None when the log was not graded in this run (e.g. -k selected other tests)."""
    art = (results.get("artifacts") or {}).get("leetcode_log")
    if not isinstance(art, dict):
        return None
    if not art.get("present", True):
        return {"present": False}
    source = str(art.get("source") or "")
    lines = source.splitlines()
    practice = not_counted_failures(results, lang) | practice_failures(results, lang)
    linked = art.get("linked_failures") or []
    if practice and source:
        linked = review_log(source, practice).to_dict()["linked_failures"]
    key = "message_ko" if lang == "ko" else "message_en"
    public_only = "hidden" not in (results.get("suites") or [])
    # the points the hidden groups will take, as the lesson decided them once (loggrade.at_submission):
    # the first finding of each group carries the amount, the problem's row and the log's total the sum
    entries = [e for e in (results.get("artifacts") or {}).get("at_submission") or []
               if e.get("task") == "leetcode_log"] if pending(results, lang) else []
    tagged: set[int] = set()

    def amount_of(f: dict[str, Any]) -> float | None:
        for i, e in enumerate(entries):
            if f.get("code") in (e.get("codes") or ()) and f.get("line") in (e.get("lines") or ()):
                first = i not in tagged
                tagged.add(i)
                return float(e.get("points") or 0.0) if first else None
        return None

    def tag(points: float) -> str:
        return translate("at_submit_tag", lang, points=f"{round(points, 3):g}")

    findings = []
    for f in sorted(art.get("findings") or [],
                    key=lambda f: (f.get("line") or 0, SEVERITY_ORDER.get(f.get("severity"), 4))):
        line = f.get("line")
        severity, message = f.get("severity", "info"), f.get(key) or f.get("message_en", "")
        if severity == "unsure":  # a TA's decision on it (grade review --check) replaces "a TA reads this"
            severity, message = ta_decision(f, results, message, lang)
        findings.append({
            "severity": severity, "code": f.get("code", ""), "line": line,
            "message": message,
            "quote": lines[line - 1].strip() if isinstance(line, int) and 0 < line <= len(lines) else "",
            "at_submission": public_only and f.get("code") in AT_SUBMISSION,
        })
        amount = amount_of(f) if findings[-1]["at_submission"] else None
        findings[-1]["at_submission_text"] = tag(amount) if amount else ""
    review, review_max = float(art.get("points", 0.0)), float(art.get("max_points", 0.0))
    task = (results.get("tasks") or {}).get("leetcode_log") or {}
    # the task's points after the TAs' and the instructor's decisions: what the task table says too
    total = task_score(results, "leetcode_log") if task else review
    total_max = float(task.get("max_score", review_max))
    # One figure for the log, the task's points, and a breakdown that adds up to it: one line per
    # log test (problem, rubric group) of this run. The review's own rubric only where no test ran.
    breakdown = test_breakdown(results, lang, _unchecked(art.get("findings") or [])) or [
        dict(b, item=breakdown_label(str(b.get("item", "")), lang), group=False)
        for b in art.get("breakdown") or []]
    adjusted = round(total - sum(float(b["points"]) for b in breakdown), 3) if task else 0.0
    if adjusted:  # an instructor's adjustment of the task: its own line, so the breakdown adds up
        from lesson_embedding_pe.report.texts import t as words

        breakdown.append({"item": words("adjusted", lang, points=f"{adjusted:+g}"), "points": adjusted,
                          "max_points": 0.0, "group": False})
    problems = problem_points(results, art.get("problems") or [])
    for p in problems:
        lost = sum(float(e.get("points") or 0.0) for e in entries if e.get("problem") == p.get("index"))
        p["at_submission"] = tag(lost) if lost else ""
    lost = sum(float(e.get("points") or 0.0) for e in entries)
    return {
        "present": True,
        "points": total, "max_points": total_max, "at_submission": tag(lost) if lost else "",
        "breakdown": breakdown, "problems": problems,
        "findings": findings, "linked": linked,
        "errors": sum(f["severity"] == "error" for f in findings),
        "unsure": sum(f["severity"] == "unsure" for f in findings),  # a TA reads these (leetlog/unsure.py)
    }
