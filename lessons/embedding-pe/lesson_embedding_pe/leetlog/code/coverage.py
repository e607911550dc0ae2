"""Which practice functions the code leaves unsolved (a logged problem must be solved there, or the log
says why), and each one's source and parameters, read with ``ast``: nothing of the student's runs here."""

from __future__ import annotations

import ast

__all__ = ["PRACTICE_FUNCTIONS", "function_source", "parameters", "parsed", "size_name", "unsolved"]

# Each practice function's parameters in the stub (exercises/leetcode.py); the size is the last of them.
STUB_PARAMETERS = {"my_pow": ("x", "n"), "count_primes": ("n",), "is_happy": ("n",), "int_to_roman": ("num",)}
PRACTICE_FUNCTIONS = tuple(STUB_PARAMETERS)
PRACTICE_MODULE = "leetcode"
_Function = ast.FunctionDef | ast.AsyncFunctionDef


def unsolved(sources: dict[str, str]) -> dict[str, str] | None:
    """Practice function -> 'stub' or 'missing' for each one the code leaves unsolved; None when there is
    no practice code to read, or it does not parse (the practice suite reports that, not the log)."""
    # a notebook: a function it does not define may live in a file it imports (check() in a kernel), so
    # only a stub it does define counts there
    in_notebook = sources.get(PRACTICE_MODULE) is None
    tree = parsed(sources.get("notebook" if in_notebook else PRACTICE_MODULE))
    if tree is None:
        return None
    # the last binding is the one that runs: a definition, or an assignment that solves it as well
    # ('my_pow = Solution().myPow' with LeetCode's class kept, 'my_pow = Power()', 'my_pow = power_loop')
    defs: dict[str, ast.stmt] = {}
    for top in tree.body:
        targets = top.targets if isinstance(top, ast.Assign) else []
        defs |= dict.fromkeys([top.name] if isinstance(top, _Function) else
                              [t.id for t in targets if isinstance(t, ast.Name)], top)
    return {name: "stub" if name in defs else "missing" for name in PRACTICE_FUNCTIONS
            if (isinstance(node := defs.get(name), _Function) and _is_stub(node))
            or (name not in defs and not in_notebook)}


def function_source(sources: dict[str, str] | None, name: str) -> str | None:
    """The source of practice function ``name`` (leetcode.py, else the notebook's): its last definition,
    the one that runs (a stub above it is replaced); None when it is not there or does not parse."""
    for key in (PRACTICE_MODULE, "notebook"):
        text = (sources or {}).get(key) or ""
        node = _last(text, name)
        if node is not None:
            return ast.get_source_segment(text, node)
    return None


def parameters(name: str, source: str | None) -> tuple[str, ...]:
    """``name``'s parameters in ``source`` (its ``function_source``), ``self`` aside, else the stub's."""
    node = _last(source, name)
    if node is None:
        return STUB_PARAMETERS.get(name, ("n",))
    return tuple(a.arg for a in node.args.args if a.arg != "self")


def size_name(name: str, source: str | None) -> str:
    """The student's name for the size ('num' in ``O(log num)``): the parameter in the stub's size's place."""
    stub, own = STUB_PARAMETERS.get(name, ("n",)), parameters(name, source)
    return own[len(stub) - 1] if len(own) >= len(stub) else stub[-1]


def parsed(text: str | None) -> ast.Module | None:
    """``text`` read with ``ast``; None when there is no text or it does not parse."""
    try:
        return ast.parse(text) if text is not None else None
    except SyntaxError:
        return None


def _functions(text: str | None) -> list[_Function] | None:
    """The module-level functions of ``text``; None when there is no text or it does not parse."""
    tree = parsed(text)
    return [n for n in tree.body if isinstance(n, _Function)] if tree else None


def _last(text: str | None, name: str) -> _Function | None:
    """The last module-level definition of function ``name`` in ``text``: the one that runs."""
    return next((n for n in reversed(_functions(text) or []) if n.name == name), None)


def _is_stub(node: _Function) -> bool:
    """The body is the stub's: a docstring, `pass`/`...`, and `raise NotImplementedError(...)`; a body
    with no `raise` is a stub only when the docstring (or `...`) is all of it."""
    body = node.body[1:] if _filler(node.body[0]) else node.body
    raises = [s.exc.func if isinstance(s.exc, ast.Call) else s.exc for s in body if isinstance(s, ast.Raise)]
    return all(isinstance(s, (ast.Pass, ast.Raise)) or _filler(s) for s in body) \
        and all(isinstance(e, ast.Name) and e.id == "NotImplementedError" for e in raises) \
        and (not body or bool(raises))


def _filler(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)  # '...', a string
