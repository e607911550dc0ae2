"""`check()` from inside a notebook: grade what the cells have defined so far.

In a Jupyter or Colab kernel the code comes from the kernel's input history
(IPython's raw ``In``), is written to a temporary notebook and graded by the
``grade`` command in a subprocess: the same reading, the same sandboxed worker,
the same public tests. Nothing of the student's runs in this process beyond what
the kernel already ran. In a plain Python session, or in a notebook whose cells
only import the exercises (they define no contract name), it grades ``./exercises``.

    from grader import check
    check("sinusoidal_pe")   # one task; check() for every task
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.core.lang import default_lang
from grader.daemon.place import python_module
from grader.jupyter.where import FoundNotebook, kernel_notebook

if TYPE_CHECKING:
    from grader.engine.lesson_api import Lesson

TIMEOUT = 900.0


class CheckResult:
    """What `check()` found: ``.score``, ``.max_score``, ``.results`` (results.json) and an HTML view."""

    def __init__(self, results: dict, lang: str, task: str | None, lesson: str | None = None) -> None:
        self.results = results
        self.lang = lang
        self.task = task
        self.lesson = lesson  # check(lesson=...) (None: the one chosen here, engine/lessons.py)

    @property
    def score(self) -> float:
        return float(self.results.get("score", 0.0))

    @property
    def max_score(self) -> float:
        return float(self.results.get("max_score", 0.0))

    @property
    def passed(self) -> bool:
        return self.max_score > 0 and self.score == self.max_score

    @property
    def failures(self) -> list[dict[str, Any]]:
        from grader.report.view import failure_rows

        return failure_rows(self.results, self.lang, "notebook")

    def __repr__(self) -> str:
        what = self.task or ("모든 과제" if self.lang == "ko" else "all tasks")
        lines = [f"check({what!r}): {self.score:g} / {self.max_score:g}"]
        from grader.report.changes import change_view

        change = change_view(self.results, self.lang)
        if change:
            lines.append(change["text"])
        from grader.report.pending import pending

        at_submit = pending(self.results, self.lang)
        if at_submit:
            lines += [at_submit["head"], *(f"- {i['line']}" for i in at_submit["items"])]
        if self.results.get("error"):
            lines.append(str(self.results["error"]))
        note = check_note(self)
        if note:
            lines.append(note)
        from grader.report.cards import build_cards
        from grader.report.markup import without_picture

        # as the HTML view: one line per cause (its checks counted), "fix X first", then what is not
        # started; plain text, so the picture is in the HTML view only
        cards, not_started = build_cards(self.failures, self.lang, rerun="check")
        for c in cards:
            count = f" ({c['count_text']})" if c["count"] > 1 else ""
            lines.append(f"- {c['task_title']} (−{c['lost']:g}){count}: {without_picture(c['text'])}")
            if c.get("first_note"):
                lines.append(f"  {c['first_note']}")
        lines += [f"- {n['task_title']} (−{n['lost']:g}): {n['text']}" for n in not_started]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return render_html(self)


def check(task: str | None = None, *, lang: str | None = None, path: str | os.PathLike | None = None,
          timeout: float = TIMEOUT, lesson: str | None = None) -> CheckResult:
    """Grade ``task`` (a task name such as "sinusoidal_pe"; None: every task) with the public tests.

    ``lang`` is "ko" or "en" (default: the locale, as `grade` chooses). ``path``
    grades that submission instead of the kernel's cells or ./exercises. ``lesson`` is `grade --lesson`
    (default: ``[tool.grade] lesson`` of the project the notebook runs in, else ``GK_LESSON``, else the
    lesson whose files the folder holds, else the only one installed: grader/engine/lessons.py).
    """
    chosen = lang if lang in ("ko", "en") else default_lang()
    with tempfile.TemporaryDirectory(prefix="gk-check-") as tmp:
        staged = _kernel_submission(Path(tmp) / "submission", lesson) if path is None else None
        target = Path(path) if path is not None else staged.folder if staged is not None else None
        if target is None:
            target = Path("exercises") if Path("exercises").is_dir() else Path.cwd()
        out = Path(tmp) / "out"
        # not the notebook's folder on its path: the kit named by PYTHONPATH (_env), never a grader/ there
        cmd = [*python_module("grader.cli"), str(target), "--out", str(out), "-q", "--lang", chosen]
        if task:
            cmd += ["-k", task]
        if lesson:
            cmd += ["--lesson", lesson]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_env())
        report = out / "results.json"
        if not report.exists():
            message = (proc.stderr or proc.stdout).strip().splitlines()
            results = {"score": 0.0, "max_score": 0.0, "tests": [], "tasks": {},
                       "error": message[-1] if message else f"grade exited with status {proc.returncode}"}
        else:
            results = json.loads(report.read_text(encoding="utf-8"))
    if staged is not None:  # say which notebook (and log) was read; never a deduction for a log not seen
        from grader.jupyter.log_note import note_the_log

        note_the_log(results, staged.notebook, staged.log_file, _lesson(lesson))
    remember(results, (task or "", str(path) if path is not None else "", lesson or ""))
    return CheckResult(results, chosen, task, lesson)


# The last result of each check(task, path) in this kernel: the next call says what changed.
_LAST: dict[tuple[str, ...], tuple[dict, float]] = {}


def remember(results: dict, key: tuple[str, ...]) -> None:
    """Give ``results`` the ``previous`` of the last comparable call with ``key``, then keep it."""
    import time

    from grader.engine.history import comparable, summarize

    last = _LAST.get(key)
    if last is not None and comparable(last[0], results):
        results["previous"] = summarize(*last)
    if not results.get("error"):
        _LAST[key] = ({k: v for k, v in results.items() if k != "previous"}, time.time())


def _env() -> dict[str, str]:
    """The kernel's environment, with the kit importable in the subprocess as it is here."""
    env = dict(os.environ)
    # Served by the user's warm grader where `grade` left one (docs/warm-grader.md), cold otherwise;
    # a check() never starts one itself.
    env.setdefault("GK_DAEMON", "if-up")
    kit_parent = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (kit_parent, env.get("PYTHONPATH", "")) if p)
    return env


def kernel_cells() -> list[str] | None:
    """The raw source of every cell this kernel has run, in order; None outside IPython."""
    ipython = sys.modules.get("IPython")  # never imported here: a plain session has none
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return None
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if history is None:
        history = shell.user_ns.get("In", [])
    cells = [str(c) for c in list(history)[1:] if str(c).strip()]
    if not cells:
        return cells
    # The last one is the cell calling check() right now; earlier runs of that same cell are dropped too,
    # so calling check() again from the same cell grades the same code with the same inputs (the seed is
    # made from the staged files: a cell's second run must not change them).
    current = cells[-1].strip()
    return [c for c in cells[:-1] if c.strip() != current]


@dataclass(frozen=True)
class KernelSubmission:
    """The kernel's cells staged as a submission: ``folder``, the notebook file they were matched with
    (None where no front end said which) and the log file copied beside them (None: none)."""

    folder: Path
    notebook: FoundNotebook | None
    log_file: str | None


def _kernel_submission(folder: Path, lesson: str | None = None) -> KernelSubmission | None:
    """The kernel's cells as a notebook in ``folder``: with the saved notebook's Markdown (its log cell,
    never exercises/'s log file, so check() and `grade lesson.ipynb` read the same log), else with the
    log file beside it when no front end says which notebook runs."""
    cells = kernel_cells()
    if cells is None or not _defines_the_lesson(cells, _graded_names(lesson)):
        return None  # a plain session, or a notebook that imports from exercises/: grade the files
    import nbformat

    folder.mkdir(parents=True)
    found = _saved_notebook()
    saved = found.cells if found is not None else []
    aligned = aligned_cells(cells, saved)
    if aligned is not None:  # cell numbers as in the saved notebook: "cell 12" here is cell 12 in grade
        nb = nbformat.v4.new_notebook(cells=aligned)
    else:  # cells run out of order or edited since the save: the kernel's order, the log after it
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
        nb.cells += [c for c in saved if c.get("cell_type") == "markdown"]
    nbformat.write(nb, str(folder / "kernel.ipynb"))
    if found is not None:  # the notebook is the submission: its log cell is the log, as in `grade x.ipynb`
        return KernelSubmission(folder, found, None)
    # No notebook to read the log cell from (no front end said which file): the log file, if any
    declared = _lesson(lesson)
    log_name = declared.layout.log_name if declared is not None else None
    for log in (Path(log_name), Path("exercises") / log_name) if log_name else ():
        if log.is_file():
            (folder / log.name).write_bytes(log.read_bytes()[:1024 * 1024])
            return KernelSubmission(folder, None, log.as_posix())
    return KernelSubmission(folder, None, None)


def _lesson(lesson: str | None) -> Lesson | None:
    """The lesson `grade` will pick here (``--lesson``, else ``lessons.choose`` from the working folder);
    None where none is chosen or it cannot load (`grade` then says why)."""
    from grader.engine.lessons import select
    from grader.engine.options import UsageProblem

    try:
        return select(lesson, Path.cwd()).load()
    except UsageProblem:
        return None


def _graded_names(lesson: str | None) -> set[str]:
    """The contract's names of the lesson `grade` will pick here."""
    declared = _lesson(lesson)
    return set(declared.home_modules) if declared is not None else set()


def _defines_the_lesson(cells: list[str], names: set[str]) -> bool:
    """Whether the cells themselves define a contract name (or write a module with %%writefile)."""
    text = "\n".join(cells)
    return "%%writefile" in text or any(name in names for name in _TOP_DEFS.findall(text))


_TOP_DEFS = re.compile(r"^(?:async\s+def|def|class)\s+(\w+)", re.M)


def _saved_notebook() -> FoundNotebook | None:
    """The notebook this kernel runs, as saved (Colab: as open), where a front end says which."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return kernel_notebook(getattr(shell, "user_ns", None))


def aligned_cells(history: list[str], saved: list) -> list | None:
    """The saved notebook's cells with what the kernel ran in place, so cell numbers match `grade`.

    Each cell the kernel ran must be a code cell of the saved notebook, run top to bottom (a cell run
    again right away counts once); saved code cells the kernel has not run yet stay empty, Markdown
    cells (the LeetCode log) stay where they are. None when the history does not fit (cells run out
    of order, or edited since the last save): the caller numbers by the kernel's order then.
    """
    import nbformat

    from grader.engine.submission import NOT_RUN_KEY

    if not saved:
        return None
    code = [(i, str(c.get("source", "")).strip())
            for i, c in enumerate(saved) if c.get("cell_type") == "code"]
    ran: dict[int, str] = {}
    at = -1
    for cell in history:
        text = cell.strip()
        match = next((i for i, src in code if i >= at and src == text), None)
        if match is None:
            return None
        ran[match], at = cell, match
    out = []
    for i, c in enumerate(saved):
        if c.get("cell_type") == "code":
            cell = nbformat.v4.new_code_cell(ran.get(i, ""))
            if i not in ran and str(c.get("source", "")).strip():  # graded empty; its names "run that cell"
                cell.metadata[NOT_RUN_KEY] = str(c.get("source", ""))
            out.append(cell)
        elif c.get("cell_type") == "markdown":
            out.append(nbformat.v4.new_markdown_cell(str(c.get("source", ""))))
        else:
            out.append(nbformat.v4.new_raw_cell(str(c.get("source", ""))))
    return out


# --------------------------------------------------------------------------- HTML

_CSS = """<style>
.gk-check{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans KR",sans-serif;font-size:14px;line-height:1.45;
 max-width:60rem;word-break:keep-all;overflow-wrap:anywhere;border:1px solid #d0d7de;border-radius:8px;padding:.8rem 1rem;background:#fff;color:#1f2328}
.gk-check h3{margin:.1rem 0 .5rem;font-size:1.05rem}.gk-check .good{color:#1a7f37}.gk-check .bad{color:#cf222e}
.gk-check .mid{color:#9a6700}.gk-check table{border-collapse:collapse;margin:.3rem 0}
.gk-check td{padding:.15rem .6rem .15rem 0;vertical-align:top}.gk-check .card{border-left:4px solid #cf222e;
 padding:.3rem .7rem;margin:.5rem 0;background:#fff8f8}.gk-check dl{display:grid;grid-template-columns:max-content 1fr;
 gap:.1rem .8rem;margin:.3rem 0}.gk-check dt{font-weight:600}.gk-check dd{margin:0}.gk-check code{background:#f6f8fa;padding:0 .2rem;border-radius:3px}
.gk-check .muted{color:#656d76}.gk-check .gk-panels{display:flex;flex-wrap:wrap;gap:8px}
.gk-check .gk-panels{overflow-x:auto}.gk-check td.gk-num,.gk-check .gk-nowrap{white-space:nowrap}.gk-check figure{margin:.4rem 0}
</style>"""  # noqa: E501

_WORDS = {
    "en": {"title": "check", "all": "all tasks", "passed": "All checks passed.", "expected": "Expected",
           "hidden": "The hidden tests still run when you submit.",
           "found": "Found", "cause": "Likely cause", "fix": "How to fix", "check": "Check",
           "message": "Message",
           "notes": "Top-level code the grader did not run, or that failed", "tests": "checks passed",
           "not_started": "Not started yet",
           "none": "No test matched this task name", "try": ": try {names}", "or": " or "},
    "ko": {"title": "check", "all": "모든 과제", "passed": "모든 검사를 통과했습니다.",
           "hidden": "숨은 테스트는 제출할 때 따로 실행됩니다.",
           "expected": "기대한 것",
           "found": "실제 결과", "cause": "원인 추정", "fix": "고치는 방법", "check": "검사",
           "message": "메시지",
           "notes": "채점기가 실행하지 않았거나 실패한 최상위 코드", "tests": "검사 통과",
           "not_started": "아직 시작하지 않은 항목",
           "none": "이 과제 이름에 맞는 테스트가 없습니다", "try": ": {names} 중 하나를 쓰세요", "or": ", "},
}


def no_match(result: CheckResult) -> str:
    """What to say when no test matched the task asked for: the lesson's task names to try (those
    ``results`` records, else those of the lesson check() grades here)."""
    from grader.report.lesson_tasks import recorded_tasks

    w = _WORDS[result.lang]
    recorded = recorded_tasks(result.results)
    if recorded is not None:
        names = [t["name"] for t in recorded]
    else:
        declared = _lesson(result.lesson)
        names = list(declared.task_names) if declared is not None else []
    if not names:
        return w["none"] + "."
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + w["or"] + names[-1]
    return w["none"] + w["try"].format(names=listed) + "."


def check_note(result: CheckResult) -> str:
    """What check() read, in the reader's language ("" where it says nothing): log_note.py wrote it."""
    note = result.results.get("check_note") or {}
    return str(note.get(result.lang) or note.get("en") or "")


def render_html(result: CheckResult) -> str:
    """The report's feedback for a notebook output: score, tasks, each failing check, cells not run."""
    from grader.report.cards import build_cards
    from grader.report.changes import change_view
    from grader.report.lesson_sections import lesson_sections
    from grader.report.markup import code_spans
    from grader.report.pending import pending
    from grader.report.view import task_rows

    w = _WORDS[result.lang]
    e = html.escape
    r = result.results
    level = "good" if result.passed else ("mid" if result.score >= result.max_score / 2 > 0 else "bad")
    what = e(result.task) if result.task else w["all"]
    parts = [_CSS, '<div class="gk-check">',
             f'<h3>{w["title"]}({what}): <span class="{level}">'
             f'{result.score:g} / {result.max_score:g}</span></h3>']
    if r.get("error"):
        parts.append(f'<p class="bad">{e(str(r["error"]))}</p>')
    rows = [t for t in task_rows(r, result.lang) if t["total"]]
    if rows:
        parts.append("<table>")
        for t in rows:
            parts.append(f'<tr><td>{e(t["title"])}</td><td class="gk-num {t["level"]}">'
                         f'{t["score"]:g} / {t["max_score"]:g}'
                         f'</td><td class="muted"><span class="gk-nowrap">{t["passed"]} / '
                         f'{t["total"]}</span> {w["tests"]}</td></tr>')
        parts.append("</table>")
        at_submit = pending(r, result.lang)  # what the hidden checks will take, with its amount
        if at_submit:
            parts.append(f'<p class="mid" data-at-submit="{at_submit["points"]:g}"><strong>'
                         f'{e(at_submit["head"])}</strong></p><ul>')
            parts += [f'<li>{code_spans(i["line"])}</li>' for i in at_submit["items"]]
            parts.append("</ul>")
    elif not r.get("error") and not r.get("left_out_tasks"):
        parts.append(f'<p class="mid">{html.escape(no_match(result))}</p>')
    note = check_note(result)
    if note:
        level = "mid" if (r.get("check_note") or {}).get("left_out") else "muted"
        parts.append(f'<p class="{level}" data-check-note>{code_spans(note)}</p>')
    change = change_view(r, result.lang)
    if change:
        rest = f': {e(change["rest"])}' if change["rest"] else "."
        parts.insert(3, f'<p class="{change["level"]}" data-change="{change["delta"]:g}"><strong>'
                        f'{e(change["head"])}</strong>{rest}</p>')
    failures = result.failures
    if rows and not failures:
        hidden = "" if "hidden" in (r.get("suites") or []) else " " + e(w["hidden"])
        parts.append(f'<p class="good">{w["passed"]}{hidden}</p>')
    cards, not_started = build_cards(failures, result.lang, rerun="check")
    for c in cards:
        parts.append('<div class="card">')
        if c["count"] > 1:
            parts.append(f'<strong>{e(c["task_title"])}: {e(c["count_text"])}</strong>')
            if c["cause"]:
                parts.append(f'<p><strong>{w["cause"]}:</strong> {code_spans(c["cause"])}</p>')
        if c.get("first_note"):
            parts.append(f'<p class="first">{code_spans(c["first_note"])}</p>')
        if c["figure"]:
            fig = c["figure"]
            parts.append(f'<figure class="gk-fig" data-figure="{e(fig["kind"])}"><div class="gk-panels">'
                         f'{fig["found"]}{fig["expected"]}</div><figcaption class="muted">{e(fig["count"])} '
                         f'{e(fig["crop"])} {e(fig["scale"])}</figcaption></figure>')
        m = code_spans  # messages: escaped, `code` spans as <code>
        for f in c["checks"]:
            p = f["parts"]
            parts.append(f'<div><strong>{e(f["id"].split("::")[-1])}</strong> '
                         f'<span class="muted">{e(f["task_title"])} · {e(f["status_word"])}</span><dl>')
            if p["expected"]:
                if p["what"]:
                    parts.append(f'<dt>{w["check"]}</dt><dd>{m(p["what"])}</dd>')
                parts.append(f'<dt>{w["expected"]}</dt><dd>{m(p["expected"])}</dd>')
                parts.append(f'<dt>{w["found"]}</dt><dd>{m(p["found"])}</dd>')
            else:
                parts.append(f'<dt>{w["message"]}</dt><dd>{m(f["text"])}</dd>')
            if p["cause"] and (c["count"] == 1 or p["cause"] != c["cause"]):
                parts.append(f'<dt>{w["cause"]}</dt><dd>{m(p["cause"])}</dd>')
            if p.get("fix"):
                parts.append(f'<dt>{w["fix"]}</dt><dd>{m(p["fix"])}</dd>')
            parts.append("</dl></div>")
        parts.append("</div>")
    if not_started:
        parts.append(f'<p><strong>{e(w["not_started"])}</strong></p><ul>')
        parts += [f'<li>{e(n["task_title"])} (−{n["lost"]:g}): {code_spans(n["text"])}</li>'
                  for n in not_started]
        parts.append("</ul>")
    left_out = set(r.get("left_out_tasks") or ())
    for section in lesson_sections(r, result.lang):  # the graded lesson's own blocks, as in feedback.html
        if section["task"] in left_out:  # a log check() did not see: no review of it
            continue
        key = e(section["key"])
        parts.append(f'<h4 id="lesson-{key}">{e(section["title"])}</h4>'
                     f'<div class="lesson-section" data-section="{key}">{section["html"]}</div>')
    notes = [n for n in ((r.get("artifacts") or {}).get("notebook") or {}).get("notes", [])
             if n.get("important")]
    if notes:
        parts.append(f'<p><strong>{w["notes"]}</strong></p><ul>')
        parts += [f'<li>{code_spans(n["messages"].get(result.lang) or n["messages"]["en"])}</li>'
                  for n in notes]
        parts.append("</ul>")
    parts.append("</div>")
    return "\n".join(parts)
