"""The LeetCode log as graded tests: review once, then one verdict per rubric group.

Scores are pass/fail per test (the contract: only `passed` earns points), so
the review's rubric (leetlog/review.py) is cut into groups, one test
each per problem. A group fails exactly when the review found an error (or,
for the catalog checks, a warning) on one of its fields, and its message
lists those findings with their line numbers. Public groups check that the
log is complete and well formed; the hidden ones check it against the catalog.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from grader.author import Cause, Said, check, fail, fail_check, particle
from lesson_embedding_pe.leetlog import LogReview, review_log
from lesson_embedding_pe.leetlog.code import coverage
from lesson_embedding_pe.leetlog.review import READ_AT_MOST, TASK_FIT_PENALTY
from lesson_embedding_pe.leetlog.vocab import CUE, Two

LOG_NAME = "LEETCODE_LOG.md"
TASK = "leetcode_log"  # the rubric task the log's tests are filed under
LOGGED = (1, 2)  # the problems a log holds: one test per (problem, group) in each suite
# Findings that concern the whole log: every group of every problem fails with them.
WHOLE_LOG = {"empty_log", "no_fields", "template_untouched", "missing_file", "not_text"}


@dataclass(frozen=True)
class Group:
    name: str
    fields: tuple[str, ...]
    codes: tuple[str, ...] | None  # None: any "error" finding on those fields
    points: float
    en: str
    ko: str
    also: tuple[str, ...] = ()  # finding codes that fail the group besides those ``codes`` selects
    parts: int = 1  # how many fields share its points equally (what one of them is worth to a TA's take)


# Points mirror the review's rubric: 0.25 per field, 0.25 per Big-O that parses,
# 0.25 per Big-O that matches the catalog, 0.5 for fitting the task. The problem group also asks that
# the problem be one the practice code solves (leetlog/code/coverage.py): the log covers those two, and the
# rubric's maximum stays what it was.
PUBLIC_GROUPS = (
    Group("problem", ("problem", "difficulty"), None, 0.5,
          "names the problem and its difficulty, a problem your leetcode.py solves (or the log says why not)",
          "문제와 난이도를 적었는지, leetcode.py로 푼 문제인지(아니면 그 이유를 적었는지)",
          also=("not_in_code",), parts=2),
    Group("approach", ("first_idea", "final_approach"), None, 0.5,
          "first idea and final approach", "처음 아이디어와 최종 접근", parts=2),
    Group("complexity", ("time", "space"), None, 1.0,
          "time and space complexity as Big-O, each with a reason", "시간·공간복잡도(Big-O와 이유)", parts=2),
    Group("went_wrong", ("what_went_wrong",), None, 0.25,
          "what went wrong, or could have", "틀린 이유(또는 틀릴 수 있었던 곳)"),
    Group("solved", ("solved", "redo_date"), None, 0.25,
          "solved alone or after a solution (then with a redo date)",
          "혼자 풀었는지, 풀이를 봤다면 다시 풀 날짜"),
)
HIDDEN_GROUPS = (
    Group("catalog", ("time", "space"), ("complexity_worse", "complexity_inconsistent"), 0.5,
          "complexities agree with what your code does (run and counted) and the known approaches",
          "복잡도가 코드가 실제로 하는 일(실행해 센 결과)·알려진 방법과 맞는지", parts=2),
    # the review's own words state this deduction ("(-0.5)"): one number for both
    Group("task_fit", ("problem", "difficulty"), ("not_medium", "not_math", "duplicate_problem"),
          TASK_FIT_PENALTY,
          "two different Medium problems tagged Math", "서로 다른 Medium 수학 문제 2개인지"),
)


# A notebook with no Markdown cell holding the log's fields: where the log goes, in its terms.
NOTEBOOK_NO_LOG = (
    "이 노트북에서 LeetCode 기록을 찾지 못했습니다: 템플릿의 항목(문제, 난이도, 시간복잡도 ...)이 있는 "
    f"마크다운 셀이 없습니다. {LOG_NAME} 템플릿(lesson.ipynb에서는 맨 아래 셀)을 마크다운 셀에 붙여 넣고 "
    "채우세요. "
    "채점기는 셀의 위치가 아니라 내용으로 기록을 찾습니다. check()는 저장된 노트북을 읽으니 먼저 저장하세요.",
    "No LeetCode log was found in this notebook: no Markdown cell holds the template's fields (Problem, "
    f"Difficulty, Time complexity, ...). Paste the {LOG_NAME} template (in lesson.ipynb, its last cell) "
    "into a Markdown cell and fill it in; the grader finds the log by its content, not its place. check() "
    "reads the notebook as last saved: save it first.",
)


_LABEL_FORM = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\|\s*)?\**([^:：|*\n]{1,40}?)\**\s*[:：|]")
_QUOTED = re.compile(r"^[ \t]{0,3}>[ \t]?", re.M)
_PROBLEM_HEADING = CUE["log_heading"]


def looks_like_log(text: str) -> bool:
    """A cell holds the log when it has a "Problem 1" heading or two of the log's field labels
    written as labels ("- **난이도 (Difficulty):** Medium", "Time complexity: O(n)", a table row).
    The parser itself is tolerant enough to read a label into any sentence naming a field, so the
    lesson's explanations (which name the fields) would pass it."""
    from lesson_embedding_pe.leetlog.parser import match_label

    text = _QUOTED.sub("", text)  # a log quoted line by line ('> - 문제: …') is still the log
    if _PROBLEM_HEADING.search(text):
        return True
    fields = {match_label(m.group(1)) for line in text.splitlines() if (m := _LABEL_FORM.match(line))}
    # a table's header names its fields in every cell ('| # | Problem | Difficulty |')
    fields |= {match_label(cell) for line in text.splitlines() if line.lstrip().startswith("|")
               for cell in line.strip().strip("|").split("|")}
    return len(fields - {None}) >= 2 or _reads_as_prose_log(text)


PROSE_FIELDS = 4  # a log in sentences names its problem and answers at least this many of the fields


def _reads_as_prose_log(text: str) -> bool:
    """A log written as prose ("첫 번째 문제는 LeetCode 50번 Pow(x, n)이고 ... 시간 복잡도는 O(log n)"):
    a sentence names a problem as a log would, and the sentences answer most of the fields, which an
    explanation of the log (naming the fields, answering none) does not."""
    from lesson_embedding_pe.leetlog.prose import read_fields, split_sentences

    found = read_fields(split_sentences(list(enumerate(text.splitlines(), start=1))))
    return "problem" in found and len(found) >= PROSE_FIELDS


@dataclass
class NotebookLogReview(LogReview):
    """A review of a log read from notebook cells: where each cell starts in the joined text."""

    cells: list[tuple[int, int]] = field(default_factory=list)  # (first line in the text, cell number)

    def where(self, line: int) -> tuple[int, int]:
        """A line of the joined text -> (cell number, line in that cell)."""
        start, cell = max((c for c in self.cells if c[0] <= line), default=(1, 0))
        return cell, line - start + 1


def notebook_log(cells: list[tuple[int, str]]) -> tuple[str, list[tuple[int, int]]] | None:
    """The Markdown cells that hold the log, joined, with where each starts; None if none does. A title,
    the lesson's explanations or the log's own instructions are left out, wherever they are."""
    kept = [(n, text) for n, text in cells if looks_like_log(text)]
    if not kept:
        return None
    starts, line = [], 1
    for n, text in kept:
        starts.append((line, n))
        line += len(text.splitlines()) + 1  # joined by one blank line
    return "\n\n".join(text for _, text in kept), starts


def review_submission(submission: Any, artifacts: dict[str, Any], student: Any = None) -> LogReview | None:
    """Review the submission's log; the review goes to results.json. With ``student`` (the suites'
    fixture), each logged practice function is run in the worker at growing n, counted
    (leetlog/code/costmeter.py), and the log's complexity claims are held to those counts (a second or
    two); without, to the code as read."""
    text = getattr(submission, "log_text", None)
    cells = getattr(submission, "notebook_markdown", None)
    in_notebook = text is None and bool(getattr(submission, "notebook", False))
    starts: list[tuple[int, int]] = []
    if in_notebook:  # a notebook's log: its cells that look like one, found by content
        found = notebook_log(list(cells or []))
        text, starts = found if found else (None, [])
    unsolved = coverage.unsolved(dict(getattr(submission, "sources", None) or {}))
    sources = dict(getattr(submission, "sources", None) or {})
    measure = _measurer(student, sources, unsolved) if student is not None else None
    review = (review_log(text, unsolved=unsolved, sources=sources, measure=measure)
              if text is not None else None)
    if review is not None and starts:
        review = NotebookLogReview(**vars(review), cells=starts)
        _in_cells(review)
    if in_notebook and text is None:
        from lesson_embedding_pe.leetlog.review import _zero

        review = _zero("missing_file", Two(NOTEBOOK_NO_LOG[1], NOTEBOOK_NO_LOG[0]))
    kind = getattr(submission, "log_not_text", None)
    if kind:  # binary data under the log's name: say so rather than "the log is empty"
        from grader.author import BINARY_KINDS
        from lesson_embedding_pe.leetlog.review import _zero

        review = _zero("not_text", log=LOG_NAME, kind=Two(*BINARY_KINDS.get(kind, BINARY_KINDS["binary"])))
    # a notebook without a log is still reviewed: the review's finding says where the log goes
    entry: dict[str, Any] = {"present": text is not None or in_notebook}
    if review is not None:
        entry.update(review.to_dict())
        # kept so the report can quote the lines the findings point at (as much as the reader read)
        entry["source"] = (text or "")[:READ_AT_MOST]
    artifacts["leetcode_log"] = entry
    # what the hidden groups will take at submission, decided here once (the kit's report/pending.py
    # shows it wherever a score is read; a run with the hidden suite has taken it already)
    others = [e for e in artifacts.get("at_submission") or [] if e.get("task") != TASK]
    artifacts["at_submission"] = others + at_submission(review)
    return review


def _measurer(student: Any, sources: dict[str, str], unsolved: dict[str, str] | None) -> Any:
    """Practice function -> its Measurement, each run once in the worker (never here); a function the
    code leaves unsolved is not run."""
    from lesson_embedding_pe.leetlog.code import costmeter

    done: dict[str, costmeter.Measurement] = {}

    def measure(function: str) -> costmeter.Measurement:
        if function not in done:
            if unsolved and function in unsolved:
                done[function] = costmeter.Measurement(function, why=(
                    "the function is not written yet", "함수가 아직 작성되지 않음"))
            else:
                # the whole module: the function's helpers are counted too
                source = sources.get(coverage.PRACTICE_MODULE) or sources.get("notebook")
                done[function] = costmeter.measure(student, coverage.PRACTICE_MODULE, function, source)
        return done[function]

    return measure


def group_findings(review: LogReview, group: Group, problem: int) -> list[Any]:
    """The findings on ``problem`` that fail ``group`` (a whole-log finding aside)."""
    return [f for f in review.findings if f.problem == problem and _counts(f, group)]


def at_submission(review: LogReview | None) -> list[dict[str, Any]]:
    """Each hidden group this log fails, with the points it is worth: {"task", "points", "problem",
    "group", "codes", "lines", "en", "ko"}. None for a log that is missing, blank or unreadable, or a
    problem left out: the public checks already fail those, and say so."""
    if review is None or any(f.code in WHOLE_LOG for f in review.findings):
        return []
    out = []
    for problem in LOGGED:
        if any(f.code == "missing_problem" and f.problem == problem for f in review.findings):
            continue
        for group in HIDDEN_GROUPS:
            found = group_findings(review, group, problem)
            if not found:
                continue
            out.append({
                "task": TASK, "points": group.points, "problem": problem, "group": group.name,
                "codes": sorted({f.code for f in found}), "lines": [f.line for f in found],
                "en": " | ".join(_cite(f.line, f.message_en, "line", review) for f in found),
                "ko": " | ".join(_cite(f.line, f.message_ko, "행", review) for f in found),
            })
    return out


_NAMED = re.compile(re.escape(LOG_NAME) + r"(이|가|은|는|을|를|와|과|의|에|로|으로)?")


def _in_cells(review: NotebookLogReview) -> None:
    """A notebook's log is its cells: the review's words name the cell, never a LEETCODE_LOG.md (the
    reader's wording is kept; only the document's name changes, its Korean particle with it)."""
    cells = sorted({n for _, n in review.cells})
    en = f"the log in cell {cells[0]}" if len(cells) == 1 else "the log cells"
    ko = f"{cells[0]}번 셀의 기록" if len(cells) == 1 else "기록 셀"
    for f in review.findings:
        # nor a leetcode.py: a notebook's practice code is its cells
        f.message_en = f.message_en.replace("leetcode.py", "your notebook's practice code")
        f.message_ko = f.message_ko.replace("leetcode.py", "노트북의 연습 코드")
        f.message_en = _NAMED.sub(lambda m: en, f.message_en)
        f.message_ko = _NAMED.sub(lambda m: particle(ko, m.group(1)) if m.group(1) else ko, f.message_ko)
        if f.message_en[:1].islower():
            f.message_en = f.message_en[0].upper() + f.message_en[1:]


def check_group(review: LogReview | None, group: Group, problem: int) -> None:
    """Fail (bilingual, with line numbers) when ``group`` of ``problem`` lost points."""
    what_en = f"LeetCode log, problem {problem}: {group.en}"
    what_ko = f"LeetCode 기록, 문제 {problem}: {group.ko}"
    if _of_a_notebook(review):  # a notebook has no leetcode.py: its practice code is its cells
        what_en = what_en.replace("your leetcode.py", "your notebook's practice code")
        what_ko = what_ko.replace("leetcode.py로", "노트북의 연습 코드로")
    if review is None:
        fail_check(check(Said(what_en, what_ko), Said(f"{LOG_NAME} in the submission",
                                                       f"제출물에 {LOG_NAME}가 있어야 함"),
                         Said("none", "없습니다"),
                         fix=Said(f"Copy the template exercises/{LOG_NAME}, fill it in, and submit it "
                                  "with your code.",
                                  f"exercises/{LOG_NAME} 템플릿을 복사해 채운 뒤 코드와 함께 제출하세요.")))
    whole = [f for f in review.findings if f.code in WHOLE_LOG]
    mine = group_findings(review, group, problem)
    missing = [f for f in review.findings if f.code == "missing_problem" and f.problem == problem]
    found = whole or missing or mine
    if not found:
        return
    lines_en = [_cite(f.line, f.message_en, "line", review) for f in found]
    lines_ko = [_cite(f.line, f.message_ko, "행", review) for f in found]
    # a log still its blank template is not started (the reports say so once, not per field)
    blank = any(f.code == "template_untouched" for f in found)
    # the blank document as the student knows it: a notebook's log is its cell, not a LEETCODE_LOG.md
    document = (f"cell:{review.cells[0][1]}" if isinstance(review, NotebookLogReview) and review.cells
                else LOG_NAME)
    # a finding on the whole log (none found, not text) fails every group: one cause, told once
    cause = (Cause(whole[0].message_en, whole[0].message_ko, f"log:{whole[0].code}")
             if whole and not blank else None)
    fail(f"{what_en}: " + " | ".join(lines_en), f"{what_ko}: " + " | ".join(lines_ko),
         status="not_started" if blank else "failed", document=document if blank else None, cause=cause)


def _of_a_notebook(review: LogReview | None) -> bool:
    """Whether ``review`` read a notebook's log (its cells), or found none in a notebook."""
    findings = review.findings if review is not None else []
    return isinstance(review, NotebookLogReview) or any(
        f.code == "missing_file" and f.message_en == NOTEBOOK_NO_LOG[1] for f in findings)


def _counts(finding: Any, group: Group) -> bool:
    if finding.field not in group.fields:
        return False
    if finding.code in group.also:
        return True
    if group.codes is None:
        return finding.severity == "error"
    return finding.code in group.codes


def _cite(line: int | None, message: str, word: str, review: LogReview | None = None) -> str:
    if line is None:
        return message
    if isinstance(review, NotebookLogReview):  # a notebook has cells, not a LEETCODE_LOG.md
        cell, at = review.where(line)
        return (f"the log in cell {cell}, line {at}: {message}" if word == "line"
                else f"셀 {cell}의 기록 {at}행: {message}")
    return f"{LOG_NAME} line {line}: {message}" if word == "line" else f"{LOG_NAME} {line}{word}: {message}"
