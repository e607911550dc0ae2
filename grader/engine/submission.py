"""Reading a submission (folder, notebook or zip) into a staging folder.

This is trusted code and runs nothing of the student's: a notebook is parsed
as data, a zip is read member by member with size limits, and only
allow-listed files are written to the staging folder the worker will see.
"""

from __future__ import annotations

import importlib.util
import stat
import sys
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader.core.text import BINARY_KINDS, as_python, as_text, markdown_text
from grader.engine.lesson_api import Layout, Lesson
from grader.engine.lessons import load_lesson
from grader.notebook.plan import NotebookRules

MAX_FILE_BYTES = 1024 * 1024
MAX_TOTAL_BYTES = 16 * 1024 * 1024
MAX_ZIP_MEMBERS = 2000
MAX_ZIP_RATIO = 200
# Files that configure tools or hook into Python start-up: never copied.
FORBIDDEN = {"conftest", "sitecustomize", "usercustomize", "setup", "__init__", "__main__"}


# The metadata key check() gives a saved code cell the kernel has not run (its source; the cell is empty).
NOT_RUN_KEY = "gk_not_run"


class SubmissionError(Exception):
    """The submission cannot be read at all; the message is one line for the report."""


@dataclass
class Submission:
    name: str
    kind: str  # folder | notebook | zip
    staging: Path
    layout: Layout  # what the lesson's submissions hold (its modules, its log)
    rules: NotebookRules = field(default_factory=NotebookRules)  # the lesson's names and training calls
    files: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    notebook: bool = False
    log_text: str | None = None
    # What a notebook's cells did not run, and why (grader/notebook); the worker adds what failed.
    notebook_notes: list[dict] = field(default_factory=list)
    notebook_label: str = ""
    log_not_text: str | None = None  # a LEETCODE_LOG.md that is binary: what it looks like (BINARY_KINDS)
    # A notebook's Markdown cells, in order: the lesson finds its log among them by content
    # (the lesson's log reader), so a title or an explanation cell is never read as the log.
    notebook_markdown: list[tuple[int, str]] = field(default_factory=list)  # (cell number, text)
    # check() in a kernel: the saved notebook's code cells the kernel has not run yet (cell number,
    # source), graded empty; a missing name one of them defines is "run that cell", not a misspelling.
    notebook_not_run: list[tuple[int, str]] = field(default_factory=list)
    # Module name -> the source that defines its names (a notebook: its kept statements), for static checks.
    sources: dict[str, str] = field(default_factory=dict)
    # Staged files read as other bytes for the seed (core/seeds.py): a notebook's driver as the code it runs
    # (its cell numbers, its file name and the statements it skips differ between the saved notebook and
    # check()'s kernel history; the inputs the tests draw must not).
    seed_files: dict[str, bytes] = field(default_factory=dict)


def notebook_rules(lesson: Lesson) -> NotebookRules:
    """What a notebook's plan (and a .py file's demo pruning) takes from the lesson graded."""
    return NotebookRules(frozenset(lesson.home_modules), frozenset(lesson.notebook_top_level_calls))


def read_submission(path: Path, staging: Path | None = None, lesson: Lesson | None = None) -> Submission:
    """Turn ``path`` into a staging folder holding only what the worker may import.
    ``lesson``: the one graded (default: the lesson chosen here, lessons.choose), for its layout and notebook
    rules."""
    lesson = load_lesson() if lesson is None else lesson
    layout, rules = lesson.layout, notebook_rules(lesson)
    path = Path(path)
    if path.is_symlink():
        raise SubmissionError(f"{path.name} is a symbolic link; submit the folder or file itself")
    if not path.exists():
        raise SubmissionError(f"{path} does not exist")
    staging = Path(staging or tempfile.mkdtemp(prefix="gk-sub-"))
    staging.mkdir(parents=True, exist_ok=True)
    name = path.name.removesuffix(".zip").removesuffix(".ipynb")
    if path.is_dir():
        sub = Submission(name, "folder", staging, layout, rules)
        _from_folder(path, sub)
    elif path.suffix == ".ipynb":
        sub = Submission(name, "notebook", staging, layout, rules)
        _from_notebook(_read_limited(path), sub, path.name)
    elif path.suffix == ".zip":
        sub = Submission(name, "zip", staging, layout, rules)
        _from_zip(path, sub)
    else:
        raise SubmissionError(f"{path.name}: expected a folder, a .ipynb notebook or a .zip")
    if not sub.files and sub.log_text is None:
        expected = [*(f"{m}.py" for m in layout.modules), "notebook", *filter(None, [layout.log_name])]
        raise SubmissionError(f"{path.name}: no {', '.join(expected[:-1])} or {expected[-1]} found")
    _drop_demos(sub)
    return sub


def _drop_demos(sub: Submission) -> None:
    """Blank the top-level demos and experiment runs of the student's .py files (line numbers kept).

    `print(sinusoidal_pe(4, 6))` or `run_experiment(...)` without a `__main__` guard would
    otherwise run (or fail) at import and sink every test of the file; see grader/notebook/plan.py.
    """
    from grader.notebook.plan import names_imported_from, prune_module

    texts = {m: sub.sources[m] for m in sub.layout.modules if f"{m}.py" in sub.files and m in sub.sources}
    for module, text in texts.items():
        pruned, notes = prune_module(text, names_imported_from(module, texts), sub.rules)
        if notes:
            (sub.staging / f"{module}.py").write_text(pruned, encoding="utf-8")
            sub.notebook_notes += [dict(n.as_dict(), file=f"{module}.py") for n in notes]


def _read_limited(path: Path) -> bytes:
    size = path.stat().st_size
    if size > MAX_TOTAL_BYTES:
        raise SubmissionError(f"{path.name} is {size // 1024} KiB, over the {MAX_TOTAL_BYTES // 1024} "
                              "KiB limit")
    return path.read_bytes()


def _source_root(root: Path, modules: tuple[str, ...]) -> Path:
    """Files may sit at the root or under exercises/ (a copy of the kit's layout)."""
    inner = root / "exercises"
    if (inner.is_dir() and not inner.is_symlink()
            and any((inner / f"{m}.py").exists() for m in modules)):
        return inner
    return root


def _from_folder(root: Path, sub: Submission) -> None:
    base = _source_root(root, sub.layout.modules)
    entries = sorted(base.iterdir())
    notebooks = [p for p in entries if p.suffix == ".ipynb" and p.is_file() and not p.is_symlink()]
    has_modules = any((base / f"{m}.py").exists() for m in sub.layout.modules)
    for entry in entries:
        if entry.is_symlink():
            sub.dropped.append(f"{entry.name}: symbolic link, not followed")
            continue
        if not entry.is_file():
            continue
        if entry.suffix == ".ipynb":
            continue
        _accept(sub, entry.name, _read_limited(entry))
    if not has_modules and len(notebooks) == 1:
        sub.kind = "notebook"
        _from_notebook(_read_limited(notebooks[0]), sub, notebooks[0].name)


def _from_zip(path: Path, sub: Submission) -> None:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SubmissionError(f"{path.name} is not a readable zip ({exc})") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_ZIP_MEMBERS:
            raise SubmissionError(f"{path.name} holds {len(members)} entries, over the "
                                  f"{MAX_ZIP_MEMBERS} limit")
        total = sum(m.file_size for m in members)
        if total > MAX_TOTAL_BYTES * 4:
            raise SubmissionError(f"{path.name} unpacks to {total // (1024 * 1024)} MiB: "
                                  "refused as a possible zip bomb")
        files: dict[str, bytes] = {}
        for m in members:
            if m.is_dir():
                continue
            rel = PurePosixPath(m.filename.replace("\\", "/"))
            if rel.is_absolute() or ".." in rel.parts:
                sub.dropped.append(f"{m.filename}: path leaves the archive, ignored")
                continue
            if stat.S_ISLNK(m.external_attr >> 16):
                sub.dropped.append(f"{m.filename}: symbolic link, ignored")
                continue
            if rel.parts and rel.parts[0] in ("__MACOSX",):
                continue
            if m.file_size > MAX_FILE_BYTES or (m.compress_size
                                                and m.file_size / m.compress_size > MAX_ZIP_RATIO
                                                and m.file_size > 64 * 1024):
                sub.dropped.append(f"{m.filename}: too large or too compressed, ignored")
                continue
            try:
                with archive.open(m) as fh:
                    data = fh.read(MAX_FILE_BYTES + 1)
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError,
                    RuntimeError) as exc:
                # A lying size header fails the CRC; an encrypted member needs a password.
                sub.dropped.append(f"{m.filename}: unreadable ({str(exc)[:80]}), ignored")
                continue
            if len(data) > MAX_FILE_BYTES:
                sub.dropped.append(f"{m.filename}: larger than declared, ignored")
                continue
            files[str(rel)] = data
    # The zip may wrap a single top-level folder, or hold exercises/.
    prefix = _zip_prefix(files)
    chosen = {k[len(prefix):]: v for k, v in files.items()
              if k.startswith(prefix) and "/" not in k[len(prefix):]}
    notebooks = [k for k in chosen if k.endswith(".ipynb")]
    for fname, data in sorted(chosen.items()):
        if not fname.endswith(".ipynb"):
            _accept(sub, fname, data)
    if not any(f"{m}.py" in chosen for m in sub.layout.modules) and len(notebooks) == 1:
        sub.kind = "zip"
        _from_notebook(chosen[notebooks[0]], sub, notebooks[0])


def _zip_prefix(files: dict[str, bytes]) -> str:
    names = list(files)
    for candidate in ("exercises/",):
        if any(n.startswith(candidate) and n.endswith(".py") for n in names):
            return candidate
    tops = {n.split("/")[0] for n in names if "/" in n}
    at_root = [n for n in names if "/" not in n]
    if len(tops) == 1 and not any(n.endswith((".py", ".ipynb")) for n in at_root):
        top = tops.pop() + "/"
        inner = {n[len(top):]: b"" for n in names if n.startswith(top)}
        return top + _zip_prefix(inner)
    return ""


def _not_text_stub(fname: str, kind: str) -> bytes:
    """A module that says, when imported, that the student's file was not text (see core/feedback.py)."""
    return (f"# Written by the grader: the submitted {fname} is not a text file ({kind}).\n"
            "class NotATextFile(Exception):\n    pass\n\n\n"
            f"raise NotATextFile({kind!r})\n").encode()


def _accept(sub: Submission, fname: str, data: bytes) -> None:
    """Write one file to staging if the allow-list admits it."""
    log_name = sub.layout.log_name
    if log_name and fname.lower() == log_name.lower():
        text, kind, note = as_text(data)
        if text is None:
            sub.dropped.append(f"{fname}: not a text file ({BINARY_KINDS[kind][0]}), not read")
            sub.log_not_text = kind
            text = ""
        else:
            text = markdown_text(text)
            if note:
                sub.dropped.append(f"{fname}: {note}")
        sub.log_text = text
        (sub.staging / log_name).write_text(text, encoding="utf-8")
        return
    if not fname.endswith(".py"):
        return
    reason = module_name_problem(fname[:-3], sub.layout.modules)
    if reason:
        sub.dropped.append(f"{fname}: {reason}")
        return
    # Staged as the importer reads it (BOM, CRLF, a coding cookie normalised): core/text.py.
    too_large = len(data) > MAX_FILE_BYTES
    source = as_python(data[:MAX_FILE_BYTES + 1])
    text, data = source.text, source.staged
    if text is None:
        what = BINARY_KINDS[source.kind][0]
        sub.dropped.append(f"{fname}: not a text file ({what}); every test of it says so")
        data = _not_text_stub(fname, source.kind)
    elif source.note:
        sub.dropped.append(f"{fname}: {source.note}")
    if (too_large and text is not None) or len(data) > MAX_FILE_BYTES:
        sub.dropped.append(f"{fname}: larger than {MAX_FILE_BYTES // 1024} KiB, ignored")
        return
    if sum((sub.staging / f).stat().st_size for f in sub.files) + len(data) > MAX_TOTAL_BYTES:
        sub.dropped.append(f"{fname}: total size limit reached, ignored")
        return
    (sub.staging / fname).write_bytes(data)
    sub.files.append(fname)
    if fname[:-3] in sub.layout.modules and text is not None:
        sub.sources[fname[:-3]] = text


def module_name_problem(stem: str, modules: tuple[str, ...]) -> str | None:
    """Why a student file named ``stem``.py may not reach the worker, or None (``modules``: the lesson's)."""
    if stem in modules:
        return None
    if not stem.isidentifier():
        return "not an importable module name, ignored"
    if stem in FORBIDDEN or stem.startswith("gk_"):
        return "reserved name (it would hook into Python or the grader), ignored"
    if stem in sys.stdlib_module_names or stem in sys.builtin_module_names:
        return f"shadows the standard module `{stem}`, ignored"
    try:
        installed = importlib.util.find_spec(stem) is not None
    except (ImportError, ValueError, OSError):  # an install this user cannot read still owns the name
        installed = True
    if installed:
        return f"shadows the installed module `{stem}`, ignored"
    return None


def _from_notebook(data: bytes, sub: Submission, label: str) -> None:
    """Stage a notebook as a driver that runs, cell by cell, what grading needs (grader/notebook)."""
    from grader.notebook.cells import plan_notebook
    from grader.notebook.driver import driver_source
    from grader.notebook.read import read_notebook

    try:
        nb = read_notebook(data.decode("utf-8-sig"))
    except Exception as exc:  # nbformat raises many kinds on bad input
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SubmissionError(f"{label} is not a readable Jupyter notebook ({first[:200]})") from None
    sub.notebook = True
    plan = plan_notebook(nb, sub.rules)
    for fname, body in plan.writefiles:
        _accept(sub, fname, body)
    sub.notebook_notes = [n.as_dict() for n in plan.notes]
    for n in plan.notes:  # shell and cell magics are also listed with the ignored files, as before
        if n.reason == "cell_magic":
            sub.dropped.append(f"{label} cell {n.cell}: `{n.code[:60]}` cell not run")
        elif n.reason == "magic" and not n.code.startswith("%%"):
            sub.dropped.append(f"{label} cell {n.cell} line {n.line}: `{n.code[:60]}` not run")
    sub.notebook_label = label
    sub.sources["notebook"] = plan.sources
    (sub.staging / "notebook.py").write_text(driver_source(plan, label), encoding="utf-8")
    sub.files.append("notebook.py")
    sub.seed_files["notebook.py"] = plan.code.encode("utf-8")
    # Shims so `from embedding import ...` (in the notebook or the grader) finds
    # the notebook's names; a star import of the partly run notebook works too.
    for module in sub.layout.modules:
        if f"{module}.py" not in sub.files:
            (sub.staging / f"{module}.py").write_text(
                "from notebook import *  # noqa: F403 (written by the grader)\n")
    sub.notebook_markdown = [(n, text) for n, text in zip(plan.markdown_cells, plan.markdown, strict=True)
                             if text.strip()]
    sub.notebook_not_run = [(i, str(c.get("metadata", {}).get(NOT_RUN_KEY, "")))
                            for i, c in enumerate(nb.get("cells", []), start=1)
                            if c.get("cell_type") == "code" and c.get("metadata", {}).get(NOT_RUN_KEY)]

