"""Gradescope's results.json, built in Python from our results.json.

Follows https://gradescope-autograders.readthedocs.io/en/latest/specs/ (top
level score, execution_time, output, output_format, visibility,
stdout_visibility, tests[] with score, max_score, status, name, number,
output, output_format, tags, visibility). tests/schemas/gradescope_results.schema.json
is the same spec as a JSON Schema, and the tests validate against it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from grader.engine.results import ResultsView
from grader.engine.scoring import task_totals
from grader.engine.tachecks import checks_in
from grader.report.cards import build_cards, top_fixes
from grader.report.i18n import translate
from grader.report.lesson_tasks import lesson_of, rank, task_order, task_titles
from grader.report.markup import without_picture
from grader.report.view import failure_rows, final_score, task_title

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
MAX_OUTPUT = 20_000  # characters per output string: long enough to help, short enough to read


def _clip(text: str) -> str:
    return text if len(text) <= MAX_OUTPUT else text[: MAX_OUTPUT - 1] + "…"


def visible_view(results: ResultsView) -> ResultsView:
    """``results`` as a student may see it before publication: only the ``visible`` tests.

    Gradescope's top-level ``output`` is always shown, so it is built from this: no
    hidden test's name, message or points, and no total that includes them.
    """
    tests = [t for t in results.get("tests", []) if t.get("visibility", "visible") == "visible"]
    if len(tests) == len(results.get("tests", [])):
        return results
    withheld = len(results.get("tests", [])) - len(tests)
    view = dict(results, tests=tests, tasks=task_totals(tests, task_order(results)), withheld=withheld,
                score=round(sum(t["score"] for t in tests), 3),
                max_score=round(sum(t["max_score"] for t in tests), 3))
    view["artifacts"] = _visible_artifacts(results)
    view["skipped"] = [s for s in results.get("skipped", [])
                       if not str(s.get("id", "")).startswith("hidden/")]
    return view


# What the kit itself writes into ``artifacts`` (the notebook's cells), never from a hidden test.
KIT_ARTIFACTS = ("notebook",)


def _visible_artifacts(results: ResultsView) -> dict:
    """The artifacts a student may see before the hidden tests are published: without those the graded
    lesson's hidden tests write (``Lesson.hidden_artifacts``); a lesson that cannot be loaded here keeps
    only the kit's own."""
    artifacts = dict(results.get("artifacts") or {})
    lesson = lesson_of(results, default=True)
    if lesson is None:
        return {k: v for k, v in artifacts.items() if k in KIT_ARTIFACTS}
    return {k: v for k, v in artifacts.items() if k not in lesson.hidden_artifacts}


def page_view(results: ResultsView) -> ResultsView:
    """``results`` for a student's own pages (feedback.html/.md): a test the hidden suite declared
    ``hidden`` (``--hidden-visibility hidden``) is counted, never named; its points stay in the total."""
    tests = [t for t in results.get("tests", []) if t.get("visibility", "visible") != "hidden"]
    if len(tests) == len(results.get("tests", [])):
        return results
    return dict(results, tests=tests, withheld=len(results.get("tests", [])) - len(tests),
                skipped=[s for s in results.get("skipped", [])
                         if not str(s.get("id", "")).startswith("hidden/")])


def build_gradescope(results: ResultsView, lang: str, path: str, summary_md: str = "") -> dict[str, Any]:
    tests_out = []
    failures = {f["id"]: f for f in failure_rows(results, lang, path)}
    numbering: dict[str, int] = {}
    order, titles = task_order(results), task_titles(results)
    ordered = sorted(results.get("tests", []), key=lambda t: rank(order, t.get("task")))
    decided = (results.get("final") or {}).get("checks") or {}
    provisional: dict[str, list[dict]] = {}  # test id -> the checks it passed provisionally
    for c in checks_in(results):
        for tid in c["tests"]:
            provisional.setdefault(str(tid), []).append(c)
    for t in ordered:
        task = t.get("task") or "?"
        major = rank(order, task) + 1
        numbering[task] = numbering.get(task, 0) + 1
        visibility = t.get("visibility", "visible")
        if visibility not in VISIBILITIES:
            visibility = "after_published"
        if t["status"] == "passed":
            output = translate("status_passed", lang)
            if t["id"] in provisional:
                parts = provisional[t["id"]]
                read = all(c["key"] in decided for c in parts)  # a TA decided each: the final total has it
                output = translate("ta_read_part" if read else "ta_reads_part", lang).format(
                    keys=", ".join(str(c.get(f"part_{lang}") or c["key"]) for c in parts))
        else:
            f = failures[t["id"]]
            output = f"[{f['status_word']}] {without_picture(f['text'])}\n\n"  # Gradescope draws no table
            output += (translate("hidden_reproduce", lang) if f["hidden"] else translate("reproduce", lang))
            output += f": {f['reproduce']}"
        tests_out.append({
            "name": f"{task_title(task, lang, titles)}: {t['id']}",
            "number": f"{major}.{numbering[task]}",
            "score": float(t["score"]),
            "max_score": float(t["max_score"]),
            "status": "passed" if t["status"] == "passed" else "failed",
            "output": _clip(output),
            "output_format": "text",
            "tags": [task, t["id"].split("/", 1)[0]],
            "visibility": visibility,
        })

    def next_number(task: str) -> str:  # a TA's check follows its task's tests, numbered as theirs
        numbering[task] = numbering.get(task, 0) + 1
        return f"{rank(order, task) + 1}.{numbering[task]}"

    tests_out += ta_check_tests(results, next_number)
    output = summary_md or _fallback_output(visible_view(results), lang, path)
    score, _ = final_score(results)  # the term's final total, if any
    out: dict[str, Any] = {
        "score": score,
        "execution_time": int(round(float(results.get("duration", 0.0)))),
        "output": _clip(output),
        "output_format": "md",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests_out,
    }
    if isinstance(score, str):  # excused: Gradescope has no EX; no number is given, the file says why
        del out["score"]
        out["extra_data"] = {"excused": True}
        out["output"] = _clip(f"EX: {translate('excused', lang)}\n\n{output}")
    return out


def _fallback_output(results: ResultsView, lang: str, path: str) -> str:
    if results.get("error"):
        return f"{translate('unreadable', lang)}: {results['error']}"
    fixes = top_fixes(*build_cards(failure_rows(results, lang, path), lang))
    score, top = final_score(results)  # with a late policy or decisions: the final total over its maximum
    lines = [f"{translate('score', lang)}: {score if isinstance(score, str) else f'{score:g}'} / {top:g}"]
    if fixes:
        lines.append(f"{translate('top_fixes', lang)}:")
        lines += [f"{i}. {f['task_title']}: {f['text']}" for i, f in enumerate(fixes, 1)]
    return "\n".join(lines)


def ta_check_tests(results: Mapping[str, Any], number: Callable[[str], str]) -> list[dict[str, Any]]:
    """Each check passed provisionally (results.json ``ta_checks``) as a test only instructors see
    (``visibility: hidden``, no points): what it is, what the reader saw, and how a TA decides it.
    ``number``: its Gradescope number from its task (the builder's: after the task's own tests)."""
    final = (results.get("final") or {}).get("checks") or {}
    out = []
    for c in checks_in(results):
        d = final.get(c["key"])
        state = (f"decided: {d['decision']} ({d.get('reason', '')})" if isinstance(d, dict)
                 else "pending: a TA decides with grade review DIR ID --check KEY --confirm|--take")
        where = f"{c['document']}, line {c['line']}" if c.get("document") and c.get("line") else ""
        saw = "\n".join(f"    {line}" for line in str(c.get("saw") or "").splitlines())
        out.append({
            "name": f"TA reads: {c.get('task', '?')} {c['key']}",
            "number": number(str(c.get("task", ""))),
            "score": 0.0, "max_score": 0.0, "status": "passed",
            "output": _clip(f"{c.get('en', '')}\n{c.get('ko', '')}\n\n{where}\n{saw}\n\n"
                            f"{float(c.get('points') or 0):g} points passed provisionally in "
                            f"{', '.join(c['tests'])}; {state}"),
            "output_format": "text",
            "tags": ["ta_check", str(c.get("task", ""))],
            "visibility": "hidden",  # instructors only: the student's test says a TA reads it
        })
    return out
