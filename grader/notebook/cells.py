"""A notebook's code cells as Python, and the plan of what the worker runs (trusted side).

IPython syntax (``%magic``, ``!shell``, ``x = !ls``, ``obj?``) is not Python: such
lines become ``pass`` (line numbers stay), ``%%time``-like cell magics lose their
first line, and other cell magics (``%%bash``, ``%%html``) are not run at all.
Each cell is parsed on its own, so one that does not parse costs only itself.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from grader.notebook.plan import SIMPLE, Note, NotebookRules, Stmt, decide, has_call, note_for, statements

PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug", "python", "python3"}
_MAGIC_LINE = re.compile(r"^(\s*)(?:[%!]|\w[\w.,\s]*=\s*[%!](?![=]))")  # %cmd, !cmd, x = !cmd, x = %sx cmd
_HELP_LINE = re.compile(r"^(\s*)(?:\?{1,2}[\w.]+|[\w.]+\?{1,2})\s*$")  # obj? and ??obj
UNTIMED, NEEDED, SPECULATIVE = 0, 1, 2
MODULE_REASONS = ("notebook_only", "plotting", "kit")
_DEFINES = re.compile(r"^(?:async\s+def|def|class)\s+(\w+)", re.M)  # top level only: column 0
_WRITEFILE = re.compile(r"^%%writefile(?:\s+-a)?\s+(\S+)\s*$")


@dataclass
class Step:
    """One statement the worker runs: where it is, and what it reads and binds."""

    cell: int
    line: int
    code: str
    source: str  # padded with newlines so line numbers match the cell
    timed: int  # UNTIMED, NEEDED or SPECULATIVE: which time budget it runs in (driver.BUDGETS)
    binds: list[str]
    needs: list[str]

    def as_tuple(self) -> tuple:
        return (self.cell, self.line, self.code, self.source, self.timed, self.binds, self.needs)


@dataclass
class NotebookPlan:
    steps: list[Step] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)  # what the grader did not run, and why
    cells: dict[int, str] = field(default_factory=dict)  # cell number -> its Python, for tracebacks
    writefiles: list[tuple[str, bytes]] = field(default_factory=list)  # %%writefile name.py cells
    markdown: list[str] = field(default_factory=list)
    markdown_cells: list[int] = field(default_factory=list)  # the cell number of each of ``markdown``
    # name -> module or "cell:line" that was not run
    unavailable: dict[str, str] = field(default_factory=dict)
    sources: str = ""  # every kept statement, cell by cell: what the notebook defines, as one text
    # the kept statements alone (no cell numbers, no file name, nothing skipped): what the submission's seed
    # is drawn from, so the same code draws the same inputs in the saved notebook and in check()'s kernel
    code: str = ""


def python_of_cell(source: str, index: int, notes: list[Note]) -> str | None:
    """The cell as Python with IPython syntax neutralised; None when the cell is not Python."""
    lines = source.splitlines()
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        magic = first[2:].split()[0] if len(first) > 2 else ""
        if magic not in PYTHON_CELL_MAGICS:
            notes.append(Note(index, 1, first[:80], "skipped", "cell_magic", f"%%{magic}"))
            return None
        lines = ["", *lines[1:]]  # `%%time`: the body is Python
        notes.append(Note(index, 1, first[:80], "skipped", "magic", first[:40]))
    if _is_python("\n".join(lines)):
        return "\n".join(lines)  # plain Python: nothing to neutralise (a `% b` continuation stays)
    out = []
    for lineno, line in enumerate(lines, start=1):
        m = _MAGIC_LINE.match(line) or _HELP_LINE.match(line)
        if m and not _is_python(line):
            notes.append(Note(index, lineno, line.strip()[:80], "skipped", "magic", line.strip()[:40]))
            out.append(m.group(1) + "pass" if m.group(1) else "")
        else:
            out.append(line)
    return "\n".join(out)


def _is_python(line: str) -> bool:
    """`x = 5 % 3` matches nothing above, but `a = b != c`-like lines must never be taken for magics."""
    try:
        ast.parse(line.strip() if "\n" not in line else line)
        return True
    except (SyntaxError, ValueError):
        return False


def plan_notebook(nb: dict, rules: NotebookRules) -> NotebookPlan:
    """Read every cell, then decide per statement what the worker runs (``rules``: the graded lesson's)."""
    plan = NotebookPlan()
    stmts: list[Stmt] = []
    kept_text: list[str] = []
    kept_code: list[str] = []
    for index, cell in enumerate(nb.get("cells", []), start=1):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if cell.get("cell_type") == "markdown":
            plan.markdown.append(source)
            plan.markdown_cells.append(index)
            continue
        if cell.get("cell_type") != "code":
            continue
        target = _WRITEFILE.match(source.splitlines()[0].strip()) if source.strip() else None
        if target:
            name = PurePosixPath(target.group(1)).name
            plan.writefiles.append((name, "\n".join(source.splitlines()[1:]).encode()))
            continue
        python = python_of_cell(source, index, plan.notes)
        if python is None or not python.strip():
            continue
        try:
            tree = ast.parse(python)
        except SyntaxError:
            tree = _salvage(python, index, plan.notes)
        except (ValueError, RecursionError) as exc:
            plan.notes.append(Note(index, 1, _line(python, 1), "failed", "syntax", str(exc)[:200]))
            continue
        plan.cells[index] = python
        stmts += statements(tree, python, index, split=True)
    decide(stmts, notebook=True, rules=rules)
    for s in stmts:
        if s.verdict != "run":
            plan.notes.append(note_for(s))
            origin = s.detail if s.verdict in MODULE_REASONS else f"{s.cell}:{s.first}"
            plan.unavailable.update(dict.fromkeys(sorted(s.binds), origin))  # sorted: the staged file, and so
            # its content hash and the seeds drawn from it, must not follow string hashing
            continue
        assert s.cell is not None
        plan.steps.append(Step(s.cell, s.first, s.code, "\n" * (s.first - 1) + s.text + "\n", _budget_of(s),
                               sorted(s.binds), sorted(s.loads)))
        kept_text.append(f"# --- cell {s.cell}, line {s.first} ---\n{s.text}")
        kept_code.append(s.text)
    plan.notes.sort(key=lambda n: (n.cell or 0, n.line))
    plan.sources = "\n\n".join(kept_text) + "\n"
    plan.code = "\n\n".join(kept_code) + "\n"
    return plan


_BOUNDARY = re.compile(r"^(?!(?:else|elif|except|finally|case)\b)[A-Za-z_@]")


def _salvage(python: str, index: int, notes: list[Note]) -> ast.Module:
    """A cell that does not parse, cut where top-level statements start: the parts that parse still count.

    Jupyter would run none of it, but the grade is about what the notebook defines: a typo in one
    function costs that function, each part that fails is noted with its line.
    """
    lines = python.splitlines()
    starts = [i for i, line in enumerate(lines) if _BOUNDARY.match(line)
              and not (i and lines[i - 1].startswith("@"))
              and not (i and lines[i - 1].rstrip().endswith("\\"))]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    ends = [*starts[1:], len(lines)]
    body: list[ast.stmt] = []
    i = 0
    while i < len(starts):
        # the shortest run of parts from here that parses (a string holding `def x():` spans parts)
        for j in range(i, len(starts)):
            try:
                body += ast.parse("\n" * starts[i] + "\n".join(lines[starts[i]:ends[j]])).body
                i = j + 1
                break
            except (SyntaxError, ValueError, RecursionError):
                continue
        else:
            a, b = starts[i], ends[i]
            try:
                ast.parse("\n" * a + "\n".join(lines[a:b]))
                error = "does not parse with what follows"
            except SyntaxError as exc:
                a, error = (exc.lineno or a + 1) - 1, f"line {exc.lineno}: {exc.msg}"
            except (ValueError, RecursionError) as exc:
                error = str(exc)[:200]
            notes.append(Note(index, a + 1, _line(python, a + 1), "failed", "syntax", error,
                              _DEFINES.findall("\n".join(lines[starts[i]:ends[i]]))))
            i += 1
    return ast.Module(body=body, type_ignores=[])


def _budget_of(s: Stmt) -> int:
    if s.is_definition or (all(isinstance(n, SIMPLE) for n in s.nodes) and not has_call(s)):
        return UNTIMED  # `MODES = ("sin", ...)`: cheap, never cut by the budget
    return SPECULATIVE if s.speculative else NEEDED


def _line(text: str, lineno: int | None) -> str:
    lines = text.splitlines()
    if lineno and 0 < lineno <= len(lines):
        return lines[lineno - 1].strip()[:80]
    return ""
