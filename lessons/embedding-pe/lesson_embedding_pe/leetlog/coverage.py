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
    each one the code leaves unsolved; None when the submission holds no practice code to read."""
    text = sources.get(PRACTICE_MODULE)
    # a notebook: every kept statement, cell by cell; a function it does not define may live in a file
    # it imports (check() in a kernel), so only a stub it does define counts there
    in_notebook = text is None
    text = sources.get("notebook") if in_notebook else text
    if text is None:
        return None
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None  # the practice suite reports the file; the log is not held against it
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    out: dict[str, str] = {}
    for name in PRACTICE_FUNCTIONS:
        node = defs.get(name)
        if node is None and not in_notebook:
            out[name] = "missing"
        elif node is not None and _is_stub(node):
            out[name] = "stub"
    return out


def _is_stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The body is the stub's: a docstring, `pass`/`...`, and `raise NotImplementedError(...)`."""
    body = list(node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    raises = False
    for stmt in body:
        filler = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)  # '...', a string
        if isinstance(stmt, ast.Pass) or filler:
            continue
        if isinstance(stmt, ast.Raise) and _names_not_implemented(stmt.exc):
            raises = True
            continue
        return False
    return raises or not body


def _names_not_implemented(exc: ast.expr | None) -> bool:
    target = exc.func if isinstance(exc, ast.Call) else exc
    return isinstance(target, ast.Name) and target.id == "NotImplementedError"


def function_source(sources: dict[str, str] | None, name: str) -> str | None:
    """The source of practice function ``name`` (leetcode.py, else the notebook's code), for the
    catalog to see which approach it implements; None when it is not there or does not parse."""
    for key in (PRACTICE_MODULE, "notebook"):
        text = (sources or {}).get(key)
        if not text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return ast.get_source_segment(text, node)
    return None
