"""Transformations of a submission that cannot change what its code does (tests/test_transforms.py).

A submission is its files, ``{name: bytes}``.  Three independent layers, composed by ``build``:

- source edits on each ``.py`` that parses (``SOURCE_EDITS``): tabs for indentation, comments and
  blank lines added, local variables renamed, top-level definitions reordered;
- how each ``.py`` is saved (``ENCODINGS`` x ``NEWLINES``): UTF-8, UTF-8 with a byte-order mark
  (Notepad), CP949 with a PEP 263 cookie (Korean Windows); LF, CRLF, lone CR;
- how the files are handed in (``CONTAINERS``): the folder, a zip (flat, under a top folder,
  with macOS's ``__MACOSX/`` and ``.DS_Store``), a notebook (one cell per file, or each file
  split across cells).

Each edit works on the source's tokens or ``ast`` and keeps behaviour by construction: names
are renamed only where every use is a plain ``Name`` in one function's own scope (the edited
source is checked against the renamed ``ast``), and definitions move only inside a run of
top-level ``def``/``class`` statements whose definition-time code names none of the others.
"""

from __future__ import annotations

import ast
import io
import json
import random
import tokenize
import zipfile
from collections.abc import Callable
from pathlib import Path

Files = dict[str, bytes]
STUDENT_MODULES = ("embedding", "reversal", "leetcode")
LOG = "LEETCODE_LOG.md"
COMMENTS = ("# checked by hand", "# 여기서 모양을 확인함", "# TODO(student): tidy", "# 참고: 강의 노트 3장")


def load(folder: Path) -> Files:
    """The files of a submission folder that grading reads (the .py files and the log)."""
    return {p.name: p.read_bytes() for p in sorted(Path(folder).iterdir())
            if p.is_file() and (p.suffix == ".py" or p.name == LOG)}


def parses(text: str) -> bool:
    try:
        ast.parse(text)
        return True
    except (SyntaxError, ValueError):
        return False


# --------------------------------------------------------------------------- source edits


def _logical_starts(text: str) -> dict[int, int]:
    """Line number -> indentation depth of every line that starts a logical line."""
    starts: dict[int, int] = {}
    depth, at_start = 0, True
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.INDENT:
            depth += 1
        elif tok.type == tokenize.DEDENT:
            depth -= 1
        elif tok.type == tokenize.NEWLINE:
            at_start = True
        elif tok.type in (tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER):
            continue
        elif at_start:
            starts[tok.start[0]] = depth
            at_start = False
    return starts


def tabs(text: str, rng: random.Random) -> str:
    """Indent every logical line with one tab per block level (continuation lines and strings untouched)."""
    lines = text.splitlines(keepends=True)
    for line_no, depth in _logical_starts(text).items():
        lines[line_no - 1] = "\t" * depth + lines[line_no - 1].lstrip(" \t\f")
    return "".join(lines)


def comments(text: str, rng: random.Random) -> str:
    """Comment lines and blank lines before some statements, and comments at the end of some lines."""
    lines = text.splitlines(keepends=True)
    starts = _logical_starts(text)
    ends = {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(text).readline)
            if tok.type == tokenize.NEWLINE and tok.string}
    out = []
    for i, line in enumerate(lines, 1):
        if i in starts and rng.random() < 0.4:
            indent = line[:len(line) - len(line.lstrip(" \t"))]
            out.append(f"{indent}{rng.choice(COMMENTS)}\n")
            if rng.random() < 0.5:
                out.append("\n")
        if i in ends and rng.random() < 0.3 and line.endswith("\n") and not line.rstrip().endswith("\\"):
            line = line[:-1] + f"  {rng.choice(COMMENTS)}\n"
        out.append(line)
    return "".join(out)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _own_scope(func: ast.AST):
    """The nodes of a function's own scope (not those of nested functions, classes or comprehensions)."""
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))


def _renamable(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Locals of ``func`` whose every binding and use in it is a plain Name (so renaming cannot leak)."""
    stored = {n.id for n in _own_scope(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    blocked: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.arg):
            blocked.add(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            blocked |= set(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            blocked.add(node.name)
        elif isinstance(node, ast.ClassDef):
            return set()  # a class body's names are its attributes
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not func:
            blocked.add(node.name)
        elif isinstance(node, ast.alias):
            blocked.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.comprehension):
            blocked |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            blocked.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            blocked.add(node.rest)
        elif isinstance(node, ast.JoinedStr):  # f"{x=}" prints the name itself
            for text, value in zip(node.values, node.values[1:], strict=False):
                if (isinstance(text, ast.Constant) and str(text.value).rstrip().endswith("=")
                        and isinstance(value, ast.FormattedValue)):
                    blocked |= {n.id for n in ast.walk(value.value) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                "locals", "vars", "eval", "exec", "dir"):
            return set()  # code that reads its own names
    return stored - blocked


class _Renamer(ast.NodeTransformer):
    def __init__(self, mapping: dict[ast.AST, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.Name:
        new = self.mapping.get(node)
        if new is not None:
            return ast.copy_location(ast.Name(id=new, ctx=node.ctx), node)
        return node


def rename_locals(text: str, rng: random.Random) -> str:
    """Rename some local variables of every function to fresh names (``t`` -> ``t_v2``)."""
    tree = ast.parse(text)
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    targets: dict[ast.AST, str] = {}
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for name in sorted(_renamable(func)):
            if rng.random() < 0.3:
                continue
            new = f"{name}_v{rng.randint(2, 99)}"
            while new in taken:
                new += "x"
            taken.add(new)
            for node in ast.walk(func):  # nested scopes read the local too (closures): same new name
                if isinstance(node, ast.Name) and node.id == name:
                    targets[node] = new
    if not targets:
        return text
    # Splice the new names in at their positions (comments and layout kept); positions are UTF-8 bytes.
    lines = [line.encode("utf-8") for line in text.splitlines(keepends=True)]
    for node, new in sorted(targets.items(), key=lambda kv: (kv[0].lineno, kv[0].col_offset), reverse=True):
        row = lines[node.lineno - 1]
        lines[node.lineno - 1] = row[:node.col_offset] + new.encode() + row[node.end_col_offset:]
    spliced = b"".join(lines).decode("utf-8")
    expected = ast.dump(_Renamer(targets).visit(tree))
    if parses(spliced) and ast.dump(ast.parse(spliced)) == expected:
        return spliced
    return ast.unparse(tree) + "\n"  # a position the splice got wrong: the renamed tree, without its layout


def _deftime_names(node: ast.AST) -> set[str]:
    """Names a top-level def or class evaluates when it is defined (decorators, defaults, bases, body)."""
    exprs: list[ast.AST] = []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = node.args
        exprs += [*node.decorator_list, *a.defaults, *[d for d in a.kw_defaults if d is not None]]
        exprs += [x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg)
                  if x is not None and x.annotation is not None]
        exprs += [node.returns] if node.returns is not None else []
    elif isinstance(node, ast.ClassDef):
        exprs += [*node.decorator_list, *node.bases, *[k.value for k in node.keywords]]
        names: set[str] = set()
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names |= _deftime_names(stmt)
            else:
                exprs.append(stmt)
        return names | {n.id for e in exprs for n in ast.walk(e) if isinstance(n, ast.Name)}
    return {n.id for e in exprs for n in ast.walk(e) if isinstance(n, ast.Name)}


def reorder(text: str, rng: random.Random) -> str:
    """Shuffle each run of consecutive top-level definitions that may be defined in any order."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    runs: list[list[ast.stmt]] = [[]]
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            runs[-1].append(stmt)
        elif runs[-1]:
            runs.append([])
    out: list[str] = []
    cursor = 0  # lines[:cursor] are in out
    for run in runs:
        names = [s.name for s in run]  # type: ignore[attr-defined]
        if len(run) < 2 or len(set(names)) < len(names) or any(_deftime_names(s) & set(names) for s in run):
            continue
        starts = [min([s.lineno, *(d.lineno for d in s.decorator_list)]) - 1 for s in run]  # type: ignore
        end = run[-1].end_lineno or run[-1].lineno
        chunks = [lines[a:b] for a, b in zip(starts, [*starts[1:], end], strict=True)]
        chunks = [c if c[-1].endswith("\n") else [*c[:-1], c[-1] + "\n"] for c in chunks]
        order = list(range(len(chunks)))
        rng.shuffle(order)
        if order == sorted(order):
            order.reverse()
        out += lines[cursor:starts[0]]
        for k, i in enumerate(order):
            out += chunks[i] + (["\n", "\n"] if i == len(chunks) - 1 and k != len(chunks) - 1 else [])
        cursor = end
    return "".join(out + lines[cursor:])


SOURCE_EDITS: dict[str, Callable[[str, random.Random], str]] = {
    "tabs": tabs, "comments": comments, "rename_locals": rename_locals, "reorder": reorder,
}


# --------------------------------------------------------------------------- saving


ENCODINGS = ("utf-8", "utf-8-bom", "cp949-cookie")
NEWLINES = ("lf", "crlf", "cr")


def save(text: str, encoding: str, newline: str) -> bytes:
    """The bytes an editor writes for ``text`` (a CP949 file declares itself on its first line)."""
    if encoding == "cp949-cookie":
        text = "# -*- coding: cp949 -*-\n" + text
    text = text.replace("\n", {"lf": "\n", "crlf": "\r\n", "cr": "\r"}[newline])
    if encoding == "cp949-cookie":
        return text.encode("cp949")
    return (b"\xef\xbb\xbf" if encoding == "utf-8-bom" else b"") + text.encode("utf-8")


# --------------------------------------------------------------------------- handing in


APPLE_DOUBLE = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + b"\x00" * 64


def _zip(files: Files, dest: Path, top: str, macos: bool) -> Path:
    path = dest / "submission.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        if top:
            z.writestr(zipfile.ZipInfo(top + "/"), b"")
        for name, data in files.items():
            z.writestr(f"{top}/{name}" if top else name, data)
            if macos:  # what Finder's "Compress" adds: AppleDouble resource forks and .DS_Store
                z.writestr(f"__MACOSX/{top + '/' if top else ''}._{name}", APPLE_DOUBLE)
        if macos:
            z.writestr(f"{top + '/' if top else ''}.DS_Store", b"\x00\x00\x00\x01Bud1" + b"\x00" * 64)
    return path


def _cells(text: str, split: bool, rng: random.Random) -> list[str]:
    """A file as notebook cells: whole, or cut at some top-level statement boundaries."""
    if not split or not parses(text):
        return [text]
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    bounds = sorted({min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", []))]) - 1
                     for s in tree.body[1:]})
    cuts = [b for b in bounds if rng.random() < 0.5] or bounds[:1]
    return ["".join(lines[a:b]) for a, b in zip([0, *cuts], [*cuts, len(lines)], strict=True)]


def _notebook(files: Files, dest: Path, split: bool, rng: random.Random) -> Path:
    """The .py files pasted into a notebook in import order (the log stays a file next to it)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    cells = [new_markdown_cell("# Embedding + Positional Encoding")]
    order = [f"{m}.py" for m in STUDENT_MODULES if f"{m}.py" in files]
    order += sorted(n for n in files if n.endswith(".py") and n not in order)
    for name in order:
        text = files[name].decode("utf-8")
        cells += [new_code_cell(c.rstrip("\n")) for c in _cells(text, split, rng) if c.strip()]
    folder = dest / "submission"
    folder.mkdir()
    nbformat.write(new_notebook(cells=cells), str(folder / "work.ipynb"))
    if LOG in files:
        (folder / LOG).write_bytes(files[LOG])
    json.loads((folder / "work.ipynb").read_text(encoding="utf-8"))  # a well-formed notebook
    return folder


CONTAINERS = ("folder", "zip", "zip-top", "zip-macos", "notebook", "notebook-split")


# --------------------------------------------------------------------------- all together


def build(files: Files, dest: Path, *, edits: tuple[str, ...] = (), encoding: str = "utf-8",
          newline: str = "lf", container: str = "folder", seed: int = 0) -> Path:
    """Write ``files`` transformed into ``dest`` (an empty folder); the path to grade.

    Source edits apply to each .py file that parses; a notebook keeps its cells as text (its
    encoding and line ends are the notebook format's), so ``encoding`` and ``newline`` apply to
    .py files handed in as files.
    """
    rng = random.Random(seed)
    out: Files = {}
    for name, data in files.items():
        if not name.endswith(".py"):
            out[name] = data
            continue
        text = data.decode("utf-8")
        for edit in edits:
            if parses(text):
                text = SOURCE_EDITS[edit](text, rng)
        out[name] = (text.encode("utf-8") if container.startswith("notebook")
                     else save(text, encoding, newline))
    if container == "folder":
        folder = dest / "submission"
        folder.mkdir()
        for name, data in out.items():
            (folder / name).write_bytes(data)
        return folder
    if container.startswith("zip"):
        return _zip(out, dest, "" if container == "zip" else "my_submission", container == "zip-macos")
    return _notebook(out, dest, container == "notebook-split", rng)
