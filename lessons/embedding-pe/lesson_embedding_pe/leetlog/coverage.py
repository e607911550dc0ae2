"""The log against the code: each logged problem is one the practice code solves, or the log says why.

The README's rule is "the log covers the two you solved". Which practice functions are still the
stub is read from the source with ``ast`` (nothing of the student's runs, so the log suite stays
fast and a hung function costs nothing here); the practice suite judges whether they are right.
"""

from __future__ import annotations

import ast

from .vocab import CUE

__all__ = ["PRACTICE_FUNCTIONS", "function_source", "says_why", "unsolved"]

PRACTICE_FUNCTIONS = ("my_pow", "count_primes", "is_happy", "int_to_roman")
PRACTICE_MODULE = "leetcode"


def says_why(text: str) -> bool:
    """Whether the log says why a problem is not in the practice code (solved on LeetCode only...)."""
    return bool(CUE["why_not_in_code"].search(text))


def unsolved(sources: dict[str, str]) -> dict[str, str] | None:
    """Practice function -> 'stub' (still raises NotImplementedError) or 'missing' (not defined), for
    each one the code leaves unsolved; None when the submission holds no practice code to read (or code
    that does not parse: the practice suite reports the file, the log is not held against it)."""
    # a notebook: every kept statement, cell by cell; a function it does not define may live in a file
    # it imports (check() in a kernel), so only a stub it does define counts there
    in_notebook = sources.get(PRACTICE_MODULE) is None
    nodes = _functions(sources.get("notebook" if in_notebook else PRACTICE_MODULE))
    if nodes is None:
        return None
    defs = {n.name: n for n in nodes}
    out: dict[str, str] = {}
    for name in PRACTICE_FUNCTIONS:
        if name not in defs and not in_notebook:
            out[name] = "missing"
        elif name in defs and _is_stub(defs[name]):
            out[name] = "stub"
    return out


def function_source(sources: dict[str, str] | None, name: str) -> str | None:
    """The source of practice function ``name`` (leetcode.py, else the notebook's code), for the
    catalog to see which approach it implements; None when it is not there or does not parse."""
    for key in (PRACTICE_MODULE, "notebook"):
        text = (sources or {}).get(key) or ""
        node = next((n for n in _functions(text) or [] if n.name == name), None)
        if node is not None:
            return ast.get_source_segment(text, node)
    return None


def _functions(text: str | None) -> list[ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The module-level functions of ``text``; None when there is no text or it does not parse."""
    try:
        tree = ast.parse(text) if text is not None else None
    except SyntaxError:
        return None
    return [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))] if tree else None


def _is_stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The body is the stub's: a docstring, `pass`/`...`, and `raise NotImplementedError(...)`."""
    body = node.body[1:] if _filler(node.body[0]) else node.body
    for stmt in body:
        exc = stmt.exc if isinstance(stmt, ast.Raise) else None
        target = exc.func if isinstance(exc, ast.Call) else exc
        if not (isinstance(stmt, ast.Pass) or _filler(stmt)
                or isinstance(target, ast.Name) and target.id == "NotImplementedError"):
            return False
    return not body or any(isinstance(stmt, ast.Raise) for stmt in body)


def _filler(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)  # '...', a string
