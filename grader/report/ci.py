"""`grade --ci`: speak GitHub Actions' and GitHub Classroom's formats.

After results.json is written, this adds, from the results alone:

* the Markdown feedback appended to ``$GITHUB_STEP_SUMMARY`` (capped under
  GitHub's 1 MiB per-step limit);
* workflow commands on stdout (``::error file=…,line=…::``) that put the
  failure next to the student's source line in the pull request;
* the ``result`` output in ``$GITHUB_OUTPUT``: base64 of the JSON that
  ``classroom-resources/autograding-grading-reporter`` reads (``version``,
  ``status``, ``max_score``, ``tests[]``), so Classroom's own reporter shows
  the points;
* the exit status for branch protection: 1 when ``--fail-under`` is not met.

Student text (exception messages) is data: it is escaped for workflow commands
and for Markdown, never interpreted.
"""

from __future__ import annotations

import base64
import json
import math
import os
import sys
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import TextIO

from grader.report.i18n import translate
from grader.report.lesson_tasks import Titles, task_titles, title_of

SUMMARY_LIMIT = 1_000_000  # bytes; GitHub rejects a step summary over 1 MiB
RESULT_LIMIT = 96 * 1024  # bytes of base64: the reporter gets it as one env var (Linux caps one at 128 KiB)
MAX_ERRORS = 10  # GitHub shows at most 10 error annotations per step


# -- workflow commands ---------------------------------------------------------------
def escape_data(text: str) -> str:
    """Escape a workflow command's message (GitHub's rules: %, CR, LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value (also ':' and ',')."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, **props: object) -> str:
    shown = [f"{k}={escape_property(str(v))}" for k, v in props.items() if v not in (None, "")]
    return f"::{name}{' ' + ','.join(shown) if shown else ''}::{escape_data(message)}"


def source_file(where_file: str, sub_path: Path, cwd: Path) -> str | None:
    """The repository path of the student's file, only if it really is on disk there."""
    if "/" in where_file or "\\" in where_file:
        return None
    if sub_path.is_file() and sub_path.name == where_file:  # a notebook submission: the notebook itself
        rel = os.path.relpath(sub_path.resolve(), cwd.resolve())
        return None if rel.startswith("..") else Path(rel).as_posix()
    if not sub_path.is_dir():
        return None
    for candidate in (sub_path / where_file, sub_path / "exercises" / where_file):
        if candidate.is_file():
            rel = os.path.relpath(candidate.resolve(), cwd.resolve())
            return None if rel.startswith("..") else Path(rel).as_posix()
    return None


def shown_message(test: Mapping, lang: str) -> str:
    """The test's feedback, unless the instructor keeps this hidden test's details back."""
    if test.get("visibility", "visible") != "visible":
        return translate("ci_hidden_details", lang)
    messages = test.get("messages") or {}
    return str(messages.get(lang) or test.get("message") or "")


def error_annotations(results: Mapping, sub_path: Path, cwd: Path, lang: str) -> list[str]:
    """Error annotations: one per student source line, then one per task for the rest."""
    located: dict[tuple[str, int], list[Mapping]] = {}
    unlocated: dict[str, list[Mapping]] = {}
    for t in results.get("tests", []):
        if t.get("status") == "passed":
            continue
        loc = t.get("location") or {}
        path = source_file(str(loc.get("file", "")), sub_path, cwd) if loc.get("file") else None
        if path:
            # a notebook's line is in the grader's flattened copy: the annotation names the cell instead
            line = 0 if loc.get("cell") else int(loc.get("line") or 0)
            located.setdefault((path, line), []).append(t)
        else:
            unlocated.setdefault(str(t.get("task")), []).append(t)
    lines = []
    titles = task_titles(results)
    for (path, line), tests in located.items():
        lines.append(command("error", _group_message(tests, lang), file=path, line=line or None,
                             title=_group_title(tests, lang, titles)))
    for tests in unlocated.values():
        lines.append(command("error", _group_message(tests, lang), title=_group_title(tests, lang, titles)))
    if len(lines) > MAX_ERRORS:
        rest = len(lines) - (MAX_ERRORS - 1)
        lines = lines[:MAX_ERRORS - 1] + [command(
            "error", translate("ci_more_problems", lang, n=rest))]
    if "hidden" in results.get("suites", []) and results.get("isolation") != "namespaces":
        lines.append(command("warning", translate("ci_weak_isolation", lang),
                             title="grade: isolation " + str(results.get("isolation"))))
    score = f"{results.get('score', 0):g} / {results.get('max_score', 0):g}"
    lines.append(command("notice", translate("ci_score", lang, score=score),
                         title=f"grade: {results.get('submission', '')}"))
    return lines


def _group_title(tests: list[Mapping], lang: str, titles: Titles) -> str:
    task = str(tests[0].get("task"))
    title = title_of(titles, task, lang)
    lost = sum(float(t.get("max_score", 0)) for t in tests)
    n = len(tests)
    return translate("ci_group" if n > 1 else "ci_group_one", lang, title=title, n=n, lost=f"{lost:g}")


def _group_message(tests: list[Mapping], lang: str) -> str:
    first = shown_message(tests[0], lang)[:1500]
    cell = (tests[0].get("location") or {}).get("cell")
    if cell:
        first = f"{translate('ci_cell', lang, cell=cell)}: {first}"
    if len(tests) == 1:
        return f"{tests[0].get('id')}: {first}"
    names = ", ".join(str(t.get("id")).split("::")[-1] for t in tests[:6]) + (", …" if len(tests) > 6 else "")
    return f"{first}\n({names})"


# -- GitHub Classroom ------------------------------------------------------------------
# The reporter prints passed/total x max_score as the runner's total, while its
# "Points X/Y" notice (what Classroom records) sums the tests' scores. Both are
# the same number only when every entry weighs the same: so each test becomes
# max_score/unit entries of one ``unit`` of points (the first carries its name,
# line and message, the rest are marked as its extra points).


QUARTS = 10_000  # points are exact to 1/10000 (the rubric uses quarters)


def _unit(results: Mapping) -> Fraction:
    """The largest number of points that divides every test's max_score."""
    g = 0
    for t in results.get("tests", []):
        g = math.gcd(g, _q(Fraction(str(t.get("max_score", 0)))))
    return Fraction(g, QUARTS) if g else Fraction(1)


def _q(value: Fraction) -> int:
    return round(value * QUARTS)


def _line_message(t: Mapping, lang: str, loc: Mapping, limit: int) -> str:
    """What the reporter prints for a failure: which test, where, why (it prints messages of errors only)."""
    where = (f"{loc.get('file')}, cell {loc['cell']}" if loc.get("cell") else
             f"{loc.get('file')}:{loc.get('line')}" if loc.get("file") else "")
    head = f"❌ {t.get('id')}" + (f" ({where})" if where else "")
    reason = shown_message(t, lang).replace("\r", "")[:limit] if limit else ""
    return f"{head}: {reason}" if reason else head


def classroom_entries(results: Mapping, *, message_limit: int = 1000, per_task: bool = False) -> list[dict]:
    """The reporter's tests[]: one unit of points per entry, the test's own entry first."""
    lang = str(results.get("lang", "en"))
    unit = _unit(results)
    groups: list[tuple[Mapping, list[Mapping]]] = []
    if per_task:  # last resort for size: one readable entry per task, units still exact
        by_task: dict[str, list[Mapping]] = {}
        for t in results.get("tests", []):
            by_task.setdefault(str(t.get("task")), []).append(t)
        for task, tests in by_task.items():
            failed = [t for t in tests if t.get("status") != "passed"]
            groups.append(({"id": task, "status": failed[0]["status"] if failed else "passed",
                            "location": (failed[0].get("location") if failed else None) or {},
                            "messages": {}, "message": f"{len(failed)}/{len(tests)} not passed"}, tests))
    else:
        groups = [(t, [t]) for t in results.get("tests", [])]
    entries = []
    for head, tests in groups:
        loc = head.get("location") or {}
        units = sum(_q(Fraction(str(t.get("max_score", 0)))) for t in tests) // _q(unit)
        earned = sum(_q(Fraction(str(t.get("score", 0)))) for t in tests) // _q(unit)
        passed = head.get("status") == "passed"
        first: dict = {
            "name": str(head.get("id")),
            # failures go out as "error": the reporter prints a message for those only
            "status": "pass" if passed else "error",
            "score": float(unit) if earned else 0.0,
            "message": "" if passed else _line_message(head, lang, loc, message_limit),
            "line_no": 0 if loc.get("cell") else int(loc.get("line") or 0),  # a notebook has cells, not lines
            "duration": round(sum(float(t.get("duration", 0.0)) for t in tests), 3),
        }
        if loc.get("file"):
            first["filename"] = str(loc["file"])
        if not units:  # a 0-point test still shows, weighing nothing
            first["score"] = 0.0
            entries.append(first)
            continue
        # too many units to send: one entry per task, its points exact (the count-based total is not)
        if per_task:
            first["score"] = float(sum(float(t.get("score", 0.0)) for t in tests))
            entries.append(first)
            continue
        entries.append(first)
        short = str(head.get("id")).split("::")[-1]
        for k in range(1, units):
            got = k < earned
            entries.append({"name": f"  ↳ {short} (+{float(unit):g})", "status": "pass" if got else "fail",
                            "score": float(unit) if got else 0.0, "message": "", "line_no": 0,
                            "duration": 0.0})
    return entries


def classroom_result(results: Mapping, *, message_limit: int = 1000, per_task: bool = False) -> dict:
    """The JSON that autograding-grading-reporter decodes from a runner's ``result``."""
    tests = classroom_entries(results, message_limit=message_limit, per_task=per_task)
    if results.get("error") or not results.get("tests"):
        status = "error"
    elif all(t.get("status") == "passed" for t in results.get("tests", [])):
        status = "pass"
    else:
        status = "fail"
    if not tests:  # the reporter divides by len(tests): give it one entry that says why
        tests = [{"name": "grade", "status": "error", "score": 0.0, "line_no": 0, "duration": 0.0,
                  "message": str(results.get("error") or "no tests ran")[:message_limit or 200]}]
    result: dict = {"version": 1, "status": status, "max_score": float(results.get("max_score", 0.0)),
                    "tests": tests}
    if results.get("error"):
        result["message"] = str(results["error"])[:message_limit]
    return result


def encode_result(results: Mapping) -> str:
    """base64(JSON), shortening messages until it fits in one environment variable.

    As a last resort (thousands of tests) they are merged per task: the points
    Classroom records stay exact, the reporter's count-based line does not.
    """
    def encode(obj: dict) -> str:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        return base64.b64encode(text.encode("utf-8")).decode("ascii")

    for limit in (1000, 300, 80, 0):
        encoded = encode(classroom_result(results, message_limit=limit))
        if len(encoded) <= RESULT_LIMIT:
            return encoded
    return encode(classroom_result(results, message_limit=80, per_task=True))


def append_output(path: Path, name: str, value: str) -> None:
    """One ``name=value`` line in $GITHUB_OUTPUT (value has no newline: it is base64)."""
    assert "\n" not in value and "\r" not in value
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{name}={value}\n")


# -- job summary -----------------------------------------------------------------------
def md_escape(text: str) -> str:
    """Student text as plain Markdown text: no HTML, no table breaks.

    Code spans (`...`) are kept as they are: entities are not decoded inside them.
    """
    parts = text.replace("\r", "").split("`")
    if len(parts) % 2 == 0:  # an unbalanced backtick: treat it as text
        parts = [text.replace("\r", "").replace("`", "'")]
    for i in range(0, len(parts), 2):
        parts[i] = (parts[i].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                    .replace("|", "\\|").replace("\n", "<br>"))
    for i in range(1, len(parts), 2):
        parts[i] = parts[i].replace("\n", " ")
    return "`".join(parts)


def compact_markdown(results: Mapping, lang: str) -> str:
    """A job summary of our own, used when the report renderer is not there."""
    score, top = results.get("score", 0), results.get("max_score", 0)
    out = [f"## {translate('text_head', lang)}: {md_escape(str(results.get('submission', '')))} — "
           f"**{score:g} / {top:g}**", ""]
    if results.get("error"):
        out += [f"> {translate('ci_unreadable', lang)}: "
                + md_escape(str(results["error"])), ""]
    tasks = results.get("tasks") or {}
    if tasks:
        out += ["| " + " | ".join(translate(k, lang) for k in ("task", "score", "ci_passed")) + " |",
                "|---|---:|---:|"]
        titles = task_titles(results)
        for task, tot in tasks.items():
            title = title_of(titles, task, lang)
            mark = "✅" if tot["passed"] == tot["total"] else "❌"
            out.append(f"| {mark} {title} | {tot['score']:g} / {tot['max_score']:g} | "
                       f"{tot['passed']}/{tot['total']} |")
        out.append("")
    failed = [t for t in results.get("tests", []) if t.get("status") != "passed"]
    if failed:
        out += [f"### {translate('ci_to_fix', lang)} ({len(failed)})", ""]
        for t in failed:
            loc = t.get("location") or {}
            where = f" — `{md_escape(str(loc.get('file')))}:{loc.get('line')}`" if loc.get("file") else ""
            out.append(f"- **{md_escape(str(t.get('id')))}** ({t.get('status')}, "
                       f"{t.get('max_score', 0):g}){where}  ")
            out.append(f"  {md_escape(shown_message(t, lang))}")
        out.append("")
    meta = [f"suites: {', '.join(results.get('suites', []))}", f"isolation: {results.get('isolation')}"]
    if results.get("duration") is not None:
        meta.append(f"{results['duration']:g} s")
    out.append("<sub>" + md_escape(" · ".join(meta)) + "</sub>")
    return "\n".join(out) + "\n"


def feedback_markdown(results: Mapping, sub_path: Path, lang: str) -> str:
    """The report's feedback.md (grader/report) when it renders, else our compact summary."""
    try:
        from grader.report.render import render_markdown
    except ImportError:
        return compact_markdown(results, lang)
    try:
        return str(render_markdown(dict(results), lang, sub_path.as_posix()))
    except Exception as exc:  # a report bug must not cost the student their CI result
        print(f"grade --ci: the feedback renderer failed ({type(exc).__name__}: {exc}); using the compact "
              "summary / 피드백 렌더러가 실패해 간단한 요약을 씁니다", file=sys.stderr)
        return compact_markdown(results, lang)


def fit_summary(text: str, limit: int = SUMMARY_LIMIT) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    note = ("\n\n> … truncated to fit GitHub's 1 MiB summary limit; the full report is in the job's "
            "artifacts. / GitHub 요약 한도(1 MiB)에 맞추려고 잘랐습니다.\n")
    return data[:limit - len(note.encode("utf-8"))].decode("utf-8", "ignore") + note


# -- the whole `--ci` step ------------------------------------------------------------------
def finish(results: Mapping, *, sub_path: Path, out: Path, lang: str, fail_under: float | None,
           env: Mapping[str, str] | None = None, stream: TextIO | None = None, exit_status: int = 0) -> int:
    """Write the CI outputs for graded ``results``; the exit status for the job."""
    env = os.environ if env is None else env
    stream = sys.stdout if stream is None else stream
    if env.get("GITHUB_STEP_SUMMARY"):
        with open(env["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as f:
            f.write(fit_summary(feedback_markdown(results, sub_path, lang)))
    for line in error_annotations(results, sub_path, Path.cwd(), lang):
        print(line, file=stream)
    if env.get("GITHUB_OUTPUT"):
        append_output(Path(env["GITHUB_OUTPUT"]), "result", encode_result(results))
        append_output(Path(env["GITHUB_OUTPUT"]), "score", f"{results.get('score', 0):g}")
        append_output(Path(env["GITHUB_OUTPUT"]), "max_score", f"{results.get('max_score', 0):g}")
    stream.flush()
    if exit_status:
        return exit_status
    if fail_under is not None and float(results.get("score", 0)) < fail_under:
        print(f"grade: score {results.get('score', 0):g} is below --fail-under {fail_under:g} / "
              f"점수 {results.get('score', 0):g}점이 기준 {fail_under:g}점보다 낮습니다", file=sys.stderr)
        return 1
    return 0
