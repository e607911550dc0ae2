"""Which approach a practice function implements, read from its syntax tree (``ast``, nothing run).

The log's complexity claims are held to the approach the student's own code implements (catalog.py
names each approach's bounds; this module says which one the code is): ``my_pow`` that loops n times
is the O(n) repeated multiplication whatever the log calls it, ``x * my_pow(x, n - 1)`` recurses n deep
(O(n) space), a sieve that allocates one √n segment at a time is the segmented sieve (O(√n) space),
Integer to Roman by per-digit tables works digit by digit. Each reading is a pattern a TA would see at a
glance (a loop over ``range(n)``, a loop that halves n, a call on ``n - 1``); anything else reads as
nothing, and the catalog then goes by the log's words alone. Each key comes with the line that shows it,
which the review quotes to the student.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["Implementation", "implemented", "parameters", "size_name"]

# The parameter that is the input's size, by position, and its name in the stubs.
_SIZE = {"my_pow": (1, "n"), "count_primes": (0, "n"), "is_happy": (0, "n"), "int_to_roman": (0, "num")}


@dataclass
class Implementation:
    """The approaches (catalog keys) a function's code shows, each with (line, source line) as evidence."""

    keys: dict[str, tuple[int, str]] = field(default_factory=dict)
    size: str = "n"

    def add(self, key: str, node: ast.AST, lines: list[str]) -> None:
        line = getattr(node, "lineno", 1)
        self.keys.setdefault(key, (line, lines[line - 1].strip() if 0 < line <= len(lines) else ""))


def size_name(function: str, source: str | None = None) -> str:
    """The name of ``function``'s size parameter in the student's code (else in the stub): 'num'."""
    node = _function(function, source) if source else None
    position, default = _SIZE.get(function, (0, "n"))
    if node is not None and len(_params(node)) > position:
        return _params(node)[position]
    return default


def parameters(function: str, source: str | None = None) -> list[str]:
    """``function``'s parameters in the student's code, else the stub's (my_pow(x, n))."""
    node = _function(function, source) if source else None
    if node is not None:
        return _params(node)
    return [*(("x",) if function == "my_pow" else ()), _SIZE.get(function, (0, "n"))[1]]


def implemented(function: str, source: str | None) -> Implementation | None:
    """What ``function`` in ``source`` implements; None when the source lacks it or shows nothing known."""
    node = _function(function, source) if source else None
    reader = _READERS.get(function)
    if node is None or reader is None or source is None:
        return None
    found = Implementation(size=size_name(function, source))
    reader(node, found, source.splitlines())
    return found if found.keys else None


def _function(name: str, source: str | None) -> ast.FunctionDef | None:
    """``name``'s last module-level definition in ``source``: the one that runs (coverage.function_source)."""
    try:
        tree = ast.parse(source or "")
    except SyntaxError:
        return None
    for node in reversed(tree.body):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def _params(node: ast.FunctionDef) -> list[str]:
    return [a.arg for a in node.args.args if a.arg != "self"]


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` less nested functions' bodies (a helper is read on its own terms)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        yield child
        yield from _walk(child)


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _derived(fn: ast.FunctionDef, size: str) -> set[str]:
    """Names holding the size or a copy of it: ``n``, ``m = abs(n)``, ``x, n = 1 / x, -n``."""
    names = {size}
    changed = True
    while changed:
        changed = False
        for node in _walk(fn):
            pairs: list[tuple[ast.expr, ast.expr]] = []
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                        pairs += list(zip(target.elts, node.value.elts, strict=False))
                    else:
                        pairs.append((target, node.value))
            for target, value in pairs:
                if isinstance(target, ast.Name) and target.id not in names and _is_copy(value, names):
                    names.add(target.id)
                    changed = True
    return names


def _is_copy(value: ast.expr, names: set[str]) -> bool:
    """``n``, ``-n``, ``abs(n)``, ``n + 1``, ``int(n)``: the size itself, give or take a constant."""
    if isinstance(value, ast.Name):
        return value.id in names
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
        return _is_copy(value.operand, names)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("abs", "int"):
        return len(value.args) == 1 and _is_copy(value.args[0], names)
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)):
        sides = (value.left, value.right)
        return any(_is_copy(s, names) for s in sides) and any(isinstance(s, ast.Constant) for s in sides)
    return False


def _shrinks(body: list[ast.stmt], names: set[str]) -> str | None:
    """How a loop's body changes the size: 'halves' (``n //= 2``, ``n >>= 1``, ``n = n // 2``),
    'steps' (``n -= 1``), or None."""
    for stmt in body:
        for node in [stmt, *_walk(stmt)]:
            target: ast.expr | None = None
            op: ast.operator | None = None
            by: ast.expr | None = None
            if isinstance(node, ast.AugAssign):
                target, op, by = node.target, node.op, node.value
            elif (
                isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.BinOp)
            ):
                if isinstance(node.value.left, ast.Name) and node.value.left.id == getattr(
                    node.targets[0], "id", ""
                ):
                    target, op, by = node.targets[0], node.value.op, node.value.right
            if not (isinstance(target, ast.Name) and target.id in names and isinstance(by, ast.Constant)):
                continue
            if op is None:
                continue
            if _divides(op, by):
                return "halves"
            if isinstance(op, ast.Sub) and by.value == 1:
                return "steps"
    return None


def _divides(op: ast.operator, by: ast.Constant) -> bool:
    """``// 2``, ``/ 10``, ``>> 1``: the size divided by a constant greater than one."""
    if not isinstance(by.value, int) or isinstance(by.value, bool):
        return False
    if isinstance(op, ast.RShift):
        return by.value >= 1
    return isinstance(op, (ast.FloorDiv, ast.Div)) and by.value >= 2


def _self_calls(fn: ast.FunctionDef) -> list[ast.Call]:
    out = []
    for node in _walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id == fn.name) or (
                isinstance(f, ast.Attribute) and f.attr == fn.name
            ):
                out.append(node)
    return out


def _argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _range_stop(loop: ast.For) -> ast.expr | None:
    it = loop.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and it.args:
        return it.args[0] if len(it.args) == 1 else it.args[1]
    return None


# --------------------------------------------------------------------------- the practice functions


def _pow(fn: ast.FunctionDef, found: Implementation, lines: list[str]) -> None:
    position, _ = _SIZE["my_pow"]
    names = _derived(fn, found.size)
    kinds: dict[str, ast.Call] = {}
    for call in _self_calls(fn):
        arg = _argument(call, position, found.size)
        if isinstance(arg, ast.BinOp) and _names(arg.left) & names and isinstance(arg.right, ast.Constant):
            if _divides(arg.op, arg.right):
                kinds.setdefault("halves", call)
            elif isinstance(arg.op, ast.Sub) and arg.right.value == 1:
                kinds.setdefault("steps", call)
    halving = [
        c
        for c in _self_calls(fn)
        if kinds.get("halves") is not None
        and ast.dump(_argument(c, position, found.size) or c)
        == ast.dump(_argument(kinds["halves"], position, found.size) or c)
    ]
    if set(kinds) == {"steps"}:
        found.add("pow_linear_recursive", kinds["steps"], lines)
    elif set(kinds) == {"halves"} and len(halving) == 1:  # two calls on n // 2 per frame are O(n) calls
        found.add("pow_halving_recursive", kinds["halves"], lines)
    if kinds:
        return
    for loop in _walk(fn):
        if isinstance(loop, ast.For) and (stop := _range_stop(loop)) is not None and _is_copy(stop, names):
            found.add("pow_linear_loop", loop, lines)
        elif isinstance(loop, ast.While) and _names(loop.test) & names:
            how = _shrinks(loop.body, names)
            if how == "halves":
                found.add("pow_halving_loop", loop, lines)
            elif how == "steps":
                found.add("pow_linear_loop", loop, lines)
    if len(found.keys) > 1:
        found.keys.clear()  # two readings: the code says nothing sure


def _primes(fn: ast.FunctionDef, found: Implementation, lines: list[str]) -> None:
    loops = [n for n in _walk(fn) if isinstance(n, (ast.For, ast.While))]
    loop_vars = {n.target.id for n in loops if isinstance(n, ast.For) and isinstance(n.target, ast.Name)}
    loop_vars |= {v for n in loops if isinstance(n, ast.While) for v in _names(n.test)}
    for loop in loops:
        # the linear sieve: over the primes found so far, stop at a composite's least prime factor
        # ('for p in primes: ... if i % p == 0: break'); trial division's loop is over a range
        if not (isinstance(loop, ast.For) and isinstance(loop.iter, ast.Name)):
            continue
        for node in _walk(loop):
            if (
                isinstance(node, ast.If)
                and _is_mod_zero(node.test)
                and any(isinstance(s, ast.Break) for s in node.body)
            ):
                found.add("linear_sieve", node, lines)
    for outer in loops:
        if not (isinstance(outer, ast.For) and (step := _range_step(outer)) is not None):
            continue
        if isinstance(step, ast.Name) and step.id not in loop_vars and _allocates(outer.body):
            found.add("segmented_sieve", outer, lines)  # a fresh array per block of the range
    if "linear_sieve" in found.keys or "segmented_sieve" in found.keys:
        return
    for node in _walk(fn):
        crossing = (
            isinstance(node, ast.For)
            and isinstance(_range_step(node), ast.Name)
            and getattr(_range_step(node), "id", "") in loop_vars
        )
        sliced = isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Subscript)
            and isinstance(t.slice, ast.Slice)
            and isinstance(t.slice.step, ast.Name)
            and t.slice.step.id in loop_vars
            for t in node.targets
        )
        if crossing or sliced:
            found.add("sieve", node, lines)
            return
    # trial division: a divisibility test in a loop inside a loop, and no table of the numbers
    for outer in loops:
        inner = [n for n in _walk(outer) if isinstance(n, (ast.For, ast.While))]
        if (
            inner
            and any(isinstance(n, ast.Compare) and _is_mod_zero(n) for n in _walk(outer))
            and not _allocates(fn.body)
        ):
            found.add("trial_division", inner[0], lines)
            return


def _range_step(loop: ast.For) -> ast.expr | None:
    it = loop.iter
    if (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "range"
        and len(it.args) == 3
    ):
        return it.args[2]
    return None


def _is_mod_zero(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.BinOp)
        and isinstance(test.left.op, ast.Mod)
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == 0
    )


def _allocates(body: list[ast.stmt]) -> bool:
    """An array sized by an expression: ``[True] * m``, ``bytearray(m)``, a comprehension over a range."""
    for stmt in body:
        for node in [stmt, *_walk(stmt)]:
            if (
                isinstance(node, ast.BinOp)
                and isinstance(node.op, ast.Mult)
                and isinstance(node.left, ast.List)
            ):
                return True
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("bytearray", "bytes")
                and node.args
                and not isinstance(node.args[0], ast.Constant)
            ):
                return True
    return False


def _roman(fn: ast.FunctionDef, found: Implementation, lines: list[str]) -> None:
    names = _derived(fn, found.size)
    for node in _walk(fn):
        # a table indexed by one digit of num: THOUSANDS[num // 1000], ONES[num % 10]
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.BinOp)
            and isinstance(node.slice.op, (ast.FloorDiv, ast.Mod))
            and _names(node.slice) & names
        ):
            found.add("roman_digit_tables", node, lines)
            return
        # a loop over num's digits: while num: ... num //= 10
        if (
            isinstance(node, ast.While)
            and _names(node.test) & names
            and _shrinks(node.body, names) == "halves"
        ):
            found.add("roman_digit_tables", node, lines)
            return
    for node in _walk(fn):
        # greedy over the symbol values: for value, symbol in TABLE (a constant table, not a range)
        if (
            isinstance(node, ast.For)
            and _range_stop(node) is None
            and any(
                isinstance(n, (ast.While, ast.AugAssign, ast.Call)) and _names(n) & names for n in _walk(node)
            )
        ):
            found.add("roman_greedy", node, lines)
            return


def _happy(fn: ast.FunctionDef, found: Implementation, lines: list[str]) -> None:
    for node in _walk(fn):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.args
            and isinstance(node.args[0], ast.Call)
            and ast.dump(node.args[0].func) == ast.dump(node.func)
        ):
            found.add("floyd", node, lines)  # fast = step(step(fast))
        if (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "set"
        ) or isinstance(node, ast.Set):
            found.add("hash_set", node, lines)
    if len(found.keys) > 1:
        found.keys.clear()


_READERS = {"my_pow": _pow, "count_primes": _primes, "int_to_roman": _roman, "is_happy": _happy}
