"""The submitted source as syntax trees, read in the grader (trusted): parsed with ``ast``, never run.

The worker runs student code next to grader code, so anything it reports could
have been computed or replaced by the student.  The staged files cannot: the
grader reads them itself.  ``tamper`` and ``structure`` build on this module.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from grader.core.text import read_python

# Written by the grader for notebooks (grader/engine/submission.py): not the student's code.
SHIM = "from notebook import *  # noqa: F403 (written by the grader)\n"
# The staged notebook.py is the grader's driver (grader/notebook/driver.py); the student's statements
# travel in it as the literal __GK_PLAN, which is what the scan and the evidence must read.
DRIVER_MARK = "# Written by the grader from "
PLAN_NAME = "__GK_PLAN"
PLAN_SOURCE = 3  # index of a step's source (padded to its cell's line numbers) in grader.notebook.cells.Step


@dataclass
class SourceFile:
    name: str
    text: str
    tree: ast.Module | None  # None when the file does not parse (its import fails on its own)
    error: str = ""  # why not: a file the worker imported that the grader cannot parse is the grader's fault


@dataclass
class Sources:
    files: list[SourceFile] = field(default_factory=list)
    _defs: dict[str, list[tuple[str, ast.AST]]] | None = field(default=None, repr=False, compare=False)

    def parsed(self) -> list[SourceFile]:
        return [f for f in self.files if f.tree is not None]

    def unparsed(self) -> list[SourceFile]:
        return [f for f in self.files if f.tree is None]

    def file(self, name: str) -> SourceFile | None:
        """The staged file ``name`` (``embedding.py``), parsed or not; None where there is none."""
        return next((f for f in self.files if f.name == name), None)

    def definitions(self, name: str) -> list[tuple[str, ast.AST]]:
        """Every function and class definition called ``name`` (nested ones too), with its file, in
        file order and, within a file, in ``ast.walk`` order."""
        return list(self._index().get(name, ()))

    def classes(self) -> list[tuple[str, ast.ClassDef]]:
        """Every class definition, with its file, in the order of ``definitions``."""
        return [(fname, node) for found in self._index().values() for fname, node in found
                if isinstance(node, ast.ClassDef)]

    def _index(self) -> dict[str, list[tuple[str, ast.AST]]]:
        if self._defs is None:
            defs: dict[str, list[tuple[str, ast.AST]]] = {}
            for f in self.parsed():
                assert f.tree is not None
                for node in ast.walk(f.tree):
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        defs.setdefault(node.name, []).append((f.name, node))
            self._defs = defs
        return self._defs


# What a read through a SourceView depends on (engine/reuse.py keeps it with a test's result):
ALL = "*"  # every staged file (the whole list, parsed() or unparsed())
DEF = "def:"  # + a name: the definitions of that name, wherever they are
FILE = "file:"  # + a file's name: that file
CLASSES = "classes"  # every class definition


class SourceView:
    """Sources as a test reads them, each read told to ``note`` as what it depends on (ALL, DEF+name,
    FILE+name, CLASSES): a warm re-grade runs the test again only when one of those changed
    (engine/reuse.py, ``read_digest``).  The same methods as Sources: a check takes either."""

    def __init__(self, sources: Sources, note: Callable[[str], None] | None = None) -> None:
        self._sources = sources
        self._note = note or (lambda key: None)

    @property
    def files(self) -> list[SourceFile]:
        self._note(ALL)
        return self._sources.files

    def parsed(self) -> list[SourceFile]:
        self._note(ALL)
        return self._sources.parsed()

    def unparsed(self) -> list[SourceFile]:
        self._note(ALL)
        return self._sources.unparsed()

    def file(self, name: str) -> SourceFile | None:
        self._note(FILE + name)
        return self._sources.file(name)

    def definitions(self, name: str) -> list[tuple[str, ast.AST]]:
        self._note(DEF + name)
        return self._sources.definitions(name)

    def classes(self) -> list[tuple[str, ast.ClassDef]]:
        self._note(CLASSES)
        return self._sources.classes()


def read_digest(sources: Sources, key: str) -> str:
    """The content a SourceView read ``key`` stood for, as a hash: equal exactly when every answer that
    read could give is (definitions compared as syntax trees with their positions, files as text)."""
    if key.startswith(DEF):
        parts: list[Any] = [(f, ast.dump(n, include_attributes=True))
                            for f, n in sources.definitions(key[len(DEF):])]
    elif key == CLASSES:
        parts = [(f, ast.dump(n, include_attributes=True)) for f, n in sources.classes()]
    elif key.startswith(FILE):
        found = sources.file(key[len(FILE):])
        parts = [] if found is None else [found.text, found.error, found.tree is None]
    else:  # ALL, or a key of a later kit: every file
        parts = [(f.name, f.text, f.error) for f in sources.files]
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def read_sources(staging: Path) -> Sources:
    """Every staged ``.py`` file except the grader's notebook shims, in name order."""
    files = []
    for path in sorted(Path(staging).glob("*.py")):
        text = read_python(path)
        if text == SHIM:
            continue
        if text.startswith(DRIVER_MARK):
            text = notebook_statements(text)
        error = ""
        try:
            tree: ast.Module | None = ast.parse(text, filename=path.name)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            tree, error = None, f"{type(exc).__name__}: {exc}"[:200]
        files.append(SourceFile(path.name, text, tree, error))
    return Sources(files)


def notebook_statements(driver: str) -> str:
    """The student's statements a notebook driver runs, read back from its literal plan (never run)."""
    try:
        tree = ast.parse(driver)
    except (SyntaxError, ValueError):
        return ""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == PLAN_NAME
                                                for t in node.targets):
            try:
                plan = ast.literal_eval(node.value)
                return "\n".join(str(step[PLAN_SOURCE]).strip("\n") for step in plan) + "\n"
            except (ValueError, TypeError, IndexError, SyntaxError):
                return ""
    return ""


@lru_cache(maxsize=8)
def _cached(staging: str, stamp: tuple) -> Sources:
    return read_sources(Path(staging))


def as_sources(where: Path | Sources | SourceView) -> Sources | SourceView:
    """What a check reads: a staging folder's sources (sources_of), or a Sources or a SourceView
    (``student.sources``, which records the reads) as it is."""
    return where if isinstance(where, (Sources, SourceView)) else sources_of(where)


def sources_of(staging: Path) -> Sources:
    """read_sources, once per staging folder and content (the suites ask many times)."""
    paths = sorted(Path(staging).glob("*.py"))
    stamp = tuple((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in paths)
    return _cached(str(staging), stamp)


def content_hash(staging: Path, read_as: Mapping[str, bytes] | None = None) -> str:
    """sha256 over the staged files' names and bytes: what the worker will see, whatever the container.
    ``read_as``: file name -> the bytes hashed in its place (a notebook's driver as the code it runs)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(staging).iterdir() if p.is_file()):
        data = (read_as or {}).get(path.name)
        data = path.read_bytes() if data is None else data
        digest.update(f"{path.name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def literal_str(node: ast.AST | None) -> str | None:
    """The string a node spells, folding literal concatenation ("__glo" + "bals__", implicit joins)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = literal_str(node.left), literal_str(node.right)
        if left is not None and right is not None:
            return left + right
    if isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values):
        return "".join(str(v.value) for v in node.values if isinstance(v, ast.Constant))
    return None


def dotted(node: ast.AST) -> str:
    """``a.b.c`` for a Name/Attribute chain, "" otherwise."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def student_imports(staging: Path, module: str) -> list[str]:
    """The staged modules ``module`` imports when it is imported, transitively, dependencies first.

    Only statements that run at import time count (not function bodies); the
    grader's notebook shims count too (each imports notebook.py).  A module in
    an import cycle with ``module`` is left out: importing it first could change
    how the cycle resolves.
    """
    staged = {p.stem for p in Path(staging).glob("*.py")}
    graph: dict[str, list[str]] = {}

    def edges(name: str) -> list[str]:
        if name not in graph:
            try:
                tree = ast.parse(read_python(Path(staging) / f"{name}.py"))
                found = dict.fromkeys(_import_time_imports(tree))
                graph[name] = [d for d in found if d in staged and d != name]
            except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
                graph[name] = []
        return graph[name]

    def reaches(start: str, goal: str) -> bool:
        seen, todo = {start}, [start]
        while todo:
            for nxt in edges(todo.pop()):
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    order: list[str] = []
    visited = {module}

    def visit(name: str) -> None:
        for dep in edges(name):
            if dep not in visited and not reaches(dep, module):
                visited.add(dep)
                visit(dep)
                order.append(dep)

    visit(module)
    return order


def _import_time_imports(tree: ast.Module) -> list[str]:
    names: list[str] = []
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Import):
            names += [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module.split(".")[0])
        todo.extend(ast.iter_child_nodes(node))
    return names
