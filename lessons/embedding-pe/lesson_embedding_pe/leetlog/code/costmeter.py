"""A complexity claim held to what the student's own function does, counted, not timed.

The log says "O(log n)"; the student's ``my_pow`` is run in the sandboxed worker at growing n and its
work is counted there (probes.py ``probe_practice_cost``): every loop iteration and function call, every
element a built-in goes over on the function's behalf (``[True] * n``, a slice, ``sum(flags)``), the
deepest recursion, and the peak of the memory the call allocates (``tracemalloc``). The counts are
deterministic: the same code gives the same numbers on any machine, at any load.

The worker's guard denies ``sys.settrace`` to everyone (grader/runtime/guard.py), so the counting is
written into the code instead: here, on the trusted side, the student's source is read with ``ast`` (never
run) and each loop, call and built-in gets a counter; the worker compiles that copy beside the student's
module and runs it. Only the practice functions whose size grows without bound are measured (Pow's n,
Count Primes' n); Integer to Roman's num stops at 3,999, and Happy Number's n itself takes log n bits (its
counted bytes would refute Floyd's O(1) space), so their claims go by the approach the log names
(claims.py), as every claim does where nothing runs.

``judge`` compares the counts' growth with the claim's: counts that grow clearly faster than the claim
contradict it (not met, the numbers shown); counts that grow as it does fit it (met); counts that grow
clearly slower leave an upper bound unrefuted (the catalog approaches whose bounds they fit say whether it
is loose, claims.py); anything in between is a TA's to read.
"""

from __future__ import annotations

import ast
import builtins
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the type only: bigo is imported where it is used
    from ..bigo import Complexity

# The functions measured, the arguments at size n, and the sizes (doubling, small enough first that a
# recursion n deep still runs under Python's limit of 1,000 frames).
MEASURED: dict[str, Callable[[int], list[Any]]] = {
    "my_pow": lambda n: [1.000001, n],  # x near 1: no overflow at any n, and no shortcut for x == 1
    "count_primes": lambda n: [n],
}
# Why the others are not measured (en, ko): their claims go by the log's words.
UNMEASURED = {
    "int_to_roman": ("num is at most 3,999 on LeetCode", "LeetCode에서 num은 3,999 이하"),
    "is_happy": ("n itself takes log n digits, so its memory cannot show O(1)",
                 "n 자체가 log n 자리라 메모리로 O(1)을 보일 수 없음"),
}
SIZES = (100, 200, 400, 800, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000)
STOP_AFTER = 100_000  # steps: the next size (double) is not run once a call took this many
BUDGET = 3_000_000  # steps: a call that takes more is stopped there (the series ends with it)
SPAN = 8  # the growth is read over sizes at least this far apart; fewer sizes: nothing measured

# Names the counted copy calls; single underscore, so a method's body is not name-mangled.
LOOP, TICK, ENTER, EXIT = "_gk_loop", "_gk_tick", "_gk_enter", "_gk_exit"
ELEMS, MADE, SCAN, FILL = "_gk_elems", "_gk_made", "_gk_scan", "_gk_fill"
# Built-ins that go over their argument's elements: sum(flags), list(range(n)); each of their arguments is
# counted (a built-in container by its length, anything else item by item as it is consumed, probes.py).
_OVER_ARGUMENT = frozenset({"sum", "min", "max", "any", "all", "sorted", "list", "tuple", "set", "frozenset",
                            "dict"})
# Those that take several iterables, or a function and iterables (each iterable counted, the rest passes):
# map(f, range(n)), functools.reduce, math.prod(itertools.repeat(x, n)).
_OVER_ARGUMENTS = frozenset({"map", "filter", "zip", "enumerate", "reduce", "prod", "fsum", "accumulate",
                             "chain", "starmap", "compress", "islice"})
# Methods that go over their receiver (flags.count(True)) or their argument (out.extend(more)).
_OVER_RECEIVER = frozenset({"count", "index", "copy"})
_OVER_METHOD_ARGUMENT = frozenset({"extend", "join", "update"})
# What runs work the counter cannot see (code from a string, a name looked up at run time) or names the
# counter's own functions: such code is not measured, and its claims are a TA's.
_HIDING = frozenset({"exec", "eval", "compile", "getattr", "globals", "vars", "__builtins__"})


# --------------------------------------------------------------------------- the counted copy (ast only)


class _Counter(ast.NodeTransformer):
    """Counters into the code: each loop's items, each while-loop's turn, each call's depth, each
    built-in's elements. What the code computes is left as it is."""

    def __init__(self, aliases: dict[str, str]) -> None:
        self.aliases = aliases  # a name -> the function it stands for

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.generic_visit(node)
        start = 1 if node.body and _is_docstring(node.body[0]) else 0
        # ENTER(), then the body, then EXIT() however it ends: the call counted, and its depth while it runs
        guarded = ast.Try(body=node.body[start:] or [ast.Pass()], handlers=[], orelse=[],
                          finalbody=[ast.Expr(_call(EXIT))])
        node.body = [*node.body[:start], ast.Expr(_call(ENTER)), guarded]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        node.iter = _call(LOOP, node.iter)
        return node

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        self.generic_visit(node)
        node.iter = _call(LOOP, node.iter)
        return node

    def visit_While(self, node: ast.While) -> ast.AST:
        self.generic_visit(node)
        node.body = [ast.Expr(_call(TICK)), *node.body]
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        name = self.aliases.get(f.id, f.id) if isinstance(f, ast.Name) else None
        if name in ("bytearray", "bytes"):
            return _call(MADE, node)  # bytearray(n): n elements made
        called = name or (f.attr if isinstance(f, ast.Attribute) else None)
        if name in _OVER_ARGUMENT and len(node.args) == 1:
            node.args[0] = _call(ELEMS, node.args[0])  # sum(flags), not max(a, b)
        elif called in _OVER_ARGUMENTS:
            node.args = [a if isinstance(a, ast.Starred) else _call(ELEMS, a) for a in node.args]
        elif isinstance(f, ast.Attribute) and f.attr in _OVER_RECEIVER:
            f.value = _call(MADE, f.value)  # its length: the receiver itself, never a stand-in for it
        elif isinstance(f, ast.Attribute) and f.attr in _OVER_METHOD_ARGUMENT and node.args:
            node.args[0] = _call(ELEMS, node.args[0])
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        # `x in seen`: a list, tuple or string searched item by item (a set or dict hashes: not counted)
        node.comparators = [_call(SCAN, c) if isinstance(op, (ast.In, ast.NotIn)) else c
                            for op, c in zip(node.ops, node.comparators, strict=True)]
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        self.generic_visit(node)
        # a call as a function's: EXIT(ENTER(), body) enters, runs the body, leaves and gives its value
        node.body = _call(EXIT, _call(ENTER), node.body)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Mult) and (_sequence(node.left) or _sequence(node.right)):
            return _call(MADE, node)  # [True] * n: n elements made
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.slice, ast.Slice) and isinstance(node.ctx, ast.Load):
            return _call(MADE, node)  # flags[i * i::i] read: a copy of that many elements
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        self.generic_visit(node)
        cut = next((t for t in node.targets if isinstance(t, ast.Subscript)
                    and isinstance(t.slice, ast.Slice)), None)
        part = cut.slice if cut is not None else None
        if cut is not None and isinstance(part, ast.Slice) and _plain(cut):
            # flags[i * i::i] = ...: that many elements written, a value given for each or one for all
            # (numpy's sieve[i * i::i] = False)
            bounds: list[ast.expr] = [b or ast.Constant(None) for b in (part.lower, part.upper, part.step)]
            whole = ast.Call(ast.Name("slice", ast.Load()), bounds, [])
            node.value = _call(FILL, cut.value, whole, node.value)
        elif cut is not None:  # a target with side effects is read once: the value's elements
            node.value = _call(ELEMS, node.value)
        return node


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


def _plain(target: ast.Subscript) -> bool:
    """A slice target whose sequence and bounds can be read again without side effects (names, numbers)."""
    return all(isinstance(n, (ast.Name, ast.Attribute, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Slice,
                              ast.Subscript, ast.operator, ast.unaryop, ast.expr_context))
               for n in ast.walk(target))


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(
        stmt.value.value, str)


def _sequence(node: ast.expr) -> bool:
    """A literal list, tuple, str or bytes, or a bytearray/bytes/list call: what ``* n`` repeats."""
    if isinstance(node, (ast.List, ast.Tuple, ast.ListComp)):
        return True
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
        "list", MADE)


def hidden(source: str, function: str) -> tuple[str, str] | None:
    """Why ``function``'s work cannot be counted (en, ko): its module (the other practice functions aside)
    runs code from a string or looks a name up at run time (``_HIDING``), uses the counter's own names, or
    reads what it computes when it is imported; None when it can be."""
    others = (set(MEASURED) | set(UNMEASURED)) - {function}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    nodes = [n for top in tree.body if getattr(top, "name", None) not in others for n in ast.walk(top)]
    called = sorted({n.id for n in nodes if isinstance(n, ast.Name)} & _HIDING)  # not re.compile
    if called:
        said = ", ".join(called)
        return (f"it runs work the counter cannot see ({said})",
                f"세지 못하는 방식으로 실행하는 부분이 있음({said})")
    named = (getattr(n, a, None) for n in nodes for a in ("id", "attr", "name", "arg", "asname"))
    if any(isinstance(name, str) and name.startswith("_gk_") for name in named):
        return "it uses the counter's own names (_gk_…)", "측정기의 이름(_gk_…)을 씀"
    built = _built_at_import(tree, function)
    if built:
        said = ", ".join(built)
        return (f"it reads what the module computes with a loop when it is imported ({said}), work its "
                "counts leave out", f"모듈을 불러올 때 반복문으로 미리 계산한 값({said})을 읽어, 그 작업은 "
                "세지 못함")
    return None


def _built_at_import(tree: ast.Module, function: str) -> list[str]:
    """The module's names ``function`` reads (itself or through the module's functions and classes) that a
    loop or a call of its own functions touches when the module is imported: a table of primes built before
    the call, a default argument, a class attribute. That work is the code's, but not the counted call's."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    defs = {n.name: n for n in tree.body if isinstance(n, kinds)}
    known = set(dir(builtins)) | {a.asname or a.name.split(".")[0] for n in tree.body
                                  if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}

    def works(node: ast.AST | None) -> bool:
        return any(isinstance(n, (ast.For, ast.While, ast.comprehension)) or (
            isinstance(n, ast.Call) and _named(n.func) in defs) for n in ast.walk(node or ast.Pass()))

    def names(node: ast.AST, ctx: type = ast.expr_context) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}

    built: set[str] = set()
    for top in tree.body:
        if isinstance(top, kinds):  # its decorators, default arguments, class body: run at import
            outside = [*top.decorator_list, *([*top.args.defaults, *top.args.kw_defaults] if not isinstance(
                top, ast.ClassDef) else [s for s in top.body if not isinstance(s, kinds)])]
            built |= {top.name} if any(works(n) for n in outside) else set()
        elif works(top):
            built |= names(top)
    read, todo = set(), [function]
    while todo:  # the names it reads that are not its own (nor its parameters), and theirs
        name = todo.pop()
        if name not in read:
            read.add(name)
            node = defs.get(name)
            todo += sorted(names(node, ast.Load) - names(node, ast.Store) - {
                a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}) if node else []
    return sorted((built - known) & read)


def counted_source(source: str) -> str | None:
    """The module's functions and classes with their work counted, as source the worker compiles beside
    the student's module (its other statements, imports and constants, are the module's own, already
    run); None when the source does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    module = ast.Module(body=[n for n in tree.body if isinstance(n, kinds)], type_ignores=[])
    # another name for a function: 'from math import prod as product', 'multiply_all = math.prod'
    aliases = {a.asname: a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names
               if a.asname}
    # and 'product = partial(reduce, mul)': the function it binds arguments to
    aliases |= {n.targets[0].id: name for n in ast.walk(tree) if isinstance(n, ast.Assign)
                and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and (name := _named(_unbound(n.value)))}
    return ast.unparse(ast.fix_missing_locations(_Counter(aliases).visit(module)))


def _unbound(value: ast.expr) -> ast.expr:
    """``f`` of ``partial(f, ...)``, else ``value``."""
    partial = isinstance(value, ast.Call) and _named(value.func) == "partial" and value.args
    return value.args[0] if partial and isinstance(value, ast.Call) else value


def _named(node: ast.expr) -> str | None:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


# --------------------------------------------------------------------------- what a measurement holds


@dataclass(frozen=True)
class Run:
    """One call at size ``n``: its steps, deepest recursion (1: no recursion), peak bytes, and how it
    ended ('ok', 'budget': stopped at BUDGET steps, 'recursion': past Python's limit, or the error's
    type)."""

    n: int
    steps: int
    depth: int
    peak: int
    status: str = "ok"


@dataclass
class Measurement:
    """A practice function's runs at growing n; ``why`` (en, ko) when nothing usable was measured."""

    function: str
    runs: list[Run] = field(default_factory=list)
    why: tuple[str, str] | None = None
    hidden: tuple[str, str] | None = None  # why some of its work is hidden from the counter (``hidden``)

    @property
    def usable(self) -> bool:
        ok = [r for r in self.runs if r.status == "ok"]
        return self.why is None and len(ok) >= 3 and ok[-1].n >= SPAN * ok[0].n

    def to_dict(self) -> dict[str, Any]:
        return {"function": self.function, "runs": [vars(r) for r in self.runs],
                "why": list(self.why) if self.why else None}


def measure(student: Any, module: str, function: str, source: str | None,
            timeout: float = 60.0) -> Measurement:
    """Run ``function`` of the student's ``module`` in the worker at growing sizes, counted (probes.py);
    never here. A function that cannot be measured says why, and its claims go by the log's words."""
    if function not in MEASURED:
        return Measurement(function, why=UNMEASURED.get(function, ("it is not a practice function",
                                                                    "연습 함수가 아님")))
    counted = counted_source(source or "")
    if counted is None:
        return Measurement(function, why=("the code does not parse", "코드를 읽을 수 없음"))
    calls = [MEASURED[function](n) for n in SIZES]
    try:
        raw = student.probe("practice_cost", f"{module}.{function}", counted, function, calls, STOP_AFTER,
                            BUDGET, timeout=timeout)
    except Exception as exc:  # the module does not import, the worker timed out: the log's words decide
        kind = type(exc).__name__
        return Measurement(function, why=(f"the function could not be run ({kind})",
                                          f"함수를 실행하지 못함({kind})"))
    try:  # the worker's answer, read as numbers
        runs = [Run(int(c[-1]), int(r["steps"]), int(r["depth"]), int(r["peak"]), str(r["status"]))
                for c, r in zip(calls, raw, strict=False)]
    except (TypeError, KeyError, ValueError):
        return Measurement(function, why=("the worker's counts could not be read", "측정값을 읽지 못함"))
    found = Measurement(function, runs, hidden=hidden(source or "", function))
    if not found.usable:
        last = runs[-1].status if runs else "none"
        found.why = (f"too few sizes ran ({last})", f"실행된 크기가 너무 적음({last})")
    return found


# --------------------------------------------------------------------------- the claim against the counts

OVER, FITS, UNDER, BETWEEN = "over", "fits", "under", "between"


def log_growth(claim: Complexity, n: int) -> float:
    """log of the claim's value at ``n`` (its one variable set to n): what its growth is compared by."""
    logs = []
    for term in claim.terms:
        total = 0.0
        for _, g in term.factors:
            ln = math.log(n)
            lg = math.log2(n)
            total += float(g.poly) * ln + g.exp * n * math.log(2) + float(g.log) * math.log(lg)
            total += float(g.loglog) * math.log(max(math.log2(lg), 1e-9)) + float(g.fact) * math.lgamma(n + 1)
        logs.append(total)
    top = max(logs, default=0.0)
    return top + math.log(sum(math.exp(v - top) for v in logs)) if logs else 0.0


@dataclass(frozen=True)
class Judgement:
    """The claim against one series: OVER (the counts outgrow it), FITS, UNDER or BETWEEN; the series'
    name and the points it read."""

    verdict: str
    series: str  # 'steps', 'depth' or 'bytes'
    points: tuple[tuple[int, int], ...]
    grows_like: str | None = None  # the plain growth the counts show ('n', 'log n'), when one is close


def _slope(points: list[tuple[int, int]]) -> tuple[float, tuple[int, int], tuple[int, int]]:
    """The counts' log-log slope over the top of the range (the largest size, and the largest at most
    an eighth of it), with the two points used."""
    hi_n, hi = points[-1]
    lo_n, lo = next((p for p in reversed(points) if p[0] * SPAN <= hi_n), points[0])
    return math.log((hi + 1) / (lo + 1)) / math.log(hi_n / lo_n), (lo_n, lo), (hi_n, hi)


_PLAIN = (("1", 0.0), ("log n", None), ("√n", 0.5), ("n", 1.0), ("n log n", None), ("n√n", 1.5), ("n^2", 2.0))


# What a constant may still vary by: a few steps or frames; for bytes, the allocator's own granularity.
_SLACK = {"steps": 2, "depth": 2, "bytes": 1024}
# At most what a recursion's frames take in traced bytes: a KiB a frame, and the interpreter's frame stack
# grows in 16 KiB chunks (two of them, wherever the call starts in one).
_FRAME_BYTES, _CHUNKS = 1024, 2 * 16_384


def judge_series(claim: Complexity, series: str, points: list[tuple[int, int]],
                 margin: float = 0.25, strict: bool = False) -> Judgement:
    """The claim (its one variable, the size) against ``points`` (n, count); counts that outgrow it by more
    than ``margin`` (in slope) refute it. ``strict``: bytes read over the top of the range only."""
    first, last = points[0][1], points[-1][1]
    slack = _SLACK[series]
    flat = last <= 1.25 * first + slack
    like = _grows_like(points, slack)
    if not claim.variables:  # O(1): bounded. Deterministic counts that rise at every size and keep rising
        counts = [c for _, c in points]
        rising = all(b > a for a, b in zip(counts[-4:], counts[-3:], strict=False))
        grows = all(b >= a for a, b in zip(counts, counts[1:], strict=False))
        if grows and rising and last >= first + 3 * slack:
            return Judgement(OVER, series, tuple(points), like)
        return Judgement(FITS if flat else BETWEEN, series, tuple(points), like)
    if flat:  # counts that do not grow refute no growing bound: whether it is loose is claims.py's to say,
        # except in bytes for a bound of logs, which stays inside the slack (log n numbers: a few hundred)
        logs = all(not (g.poly or g.exp or g.fact) for t in claim.terms for _, g in t.factors)
        return Judgement(BETWEEN if series == "bytes" and logs else UNDER, series, tuple(points), like)
    gap = _gap(claim, *_slope(points)[1:])
    if series == "bytes" and not strict:
        # a set's or dict's table grows 4-fold at once, and the top eighth of the range may hold such a jump
        # whole or miss it: of that reading and the whole range's, the one closer to the claim
        gap = min(gap, _gap(claim, points[0], points[-1]), key=abs)
    # a claim is an upper bound: counts that outgrow it by n^0.25 over an 8-fold range (1.7 times) refute
    # it; a log factor or two grows less (n log² n over n: n^0.2 at these sizes)
    verdict = OVER if gap > margin else FITS if abs(gap) <= 0.2 else UNDER if gap < -0.3 else BETWEEN
    return Judgement(verdict, series, tuple(points), like)


def _gap(claim: Complexity, low: tuple[int, int], high: tuple[int, int]) -> float:
    """How much faster than the claim the counts grow (log-log slope) from point ``low`` to ``high``."""
    (lo_n, lo), (hi_n, hi) = low, high
    measured = math.log((hi + 1) / (lo + 1)) / math.log(hi_n / lo_n)
    return measured - (log_growth(claim, hi_n) - log_growth(claim, lo_n)) / math.log(hi_n / lo_n)


def _grows_like(points: list[tuple[int, int]], slack: int) -> str | None:
    """The plain growth closest to the counts' (within 0.15 in slope), for the student's message."""
    if points[-1][1] <= 1.25 * points[0][1] + slack:
        return "1"
    measured, (lo_n, _), (hi_n, _) = _slope(points)
    best = None
    for name, slope in _PLAIN:
        if slope is None:  # log n and n log n: their slope over this range
            from ..bigo import parse

            c = parse(f"O({name})")
            slope = (log_growth(c, hi_n) - log_growth(c, lo_n)) / math.log(hi_n / lo_n)
        if abs(measured - slope) <= 0.15 and (best is None or abs(measured - slope) < best[1]):
            best = (name, abs(measured - slope))
    return best[0] if best else None


def judge(claim: Complexity, part: str, found: Measurement, strict: bool = False) -> Judgement | None:
    """The claim on ``part`` ('time' or 'space') against the measurement; None when nothing usable was
    measured or the claim is in more than one variable. Time is the steps (and the bytes, which it writes);
    space the recursion depth where the function recurses deeper as n grows, else the peak bytes it
    allocates. Sizes too few to read a growth from (a recursion past Python's limit at n = 800, counts past
    the budget at n = 400) still refute a claim they outgrow by twice the margin over a 4-fold range: only
    that is said of them. ``strict``: see ``judge_series``."""
    ok = [r for r in found.runs if r.status == "ok"]
    short = not found.usable
    if len(claim.variables) > 1 or (short and (len(ok) < 3 or ok[-1].n < 4 * ok[0].n)):
        return None
    # a recursion's memory is its frames, which the depth counts exactly (the interpreter's frame stack
    # grows in chunks, so its bytes jump); without one, the bytes the call allocates
    deeper = ok[-1].depth > ok[0].depth + _SLACK["depth"]
    series = "steps" if part == "time" else "depth" if deeper else "bytes"
    count = {"steps": lambda r: r.steps, "depth": lambda r: r.depth, "bytes": lambda r: r.peak}[series]
    judged = judge_series(claim, series, [(r.n, count(r)) for r in ok], 0.5 if short else 0.25, strict)
    if series != "bytes" and ok[-1].peak > _FRAME_BYTES * ok[-1].depth + _CHUNKS:
        # bytes beyond what the frames could take are the data's (a memo list of n beside a halving
        # recursion): they refute a claim too; and every byte allocated is written, so bytes that outgrow a
        # time claim refute it (a string of n characters made and scanned by re.sub, an int of n bits)
        data = judge_series(claim, "bytes", [(r.n, r.peak) for r in ok], margin=0.5 if short else 0.25)
        judged = data if data.verdict == OVER and judged.verdict != OVER else judged
    return judged if not short or judged.verdict == OVER else None


# --------------------------------------------------------------------------- the numbers, as said

_UNIT = {"steps": ("steps", "단계"), "depth": ("recursion depth", "재귀 깊이"), "bytes": ("bytes", "바이트")}


def shown(j: Judgement, found: Measurement, part: str = "") -> tuple[str, str]:
    """The numbers the student is shown (en, ko): n = 1,000 and 2,000 where both ran, and the largest;
    a call that stopped past Python's recursion limit is said too, and why bytes hold a ``part`` 'time'."""
    points = dict(j.points)
    picks: list[int] = [n for n in (1_000, 2_000) if n in points] or [j.points[0][0]]
    picks += [n for n in (j.points[-2][0], j.points[-1][0]) if n not in picks][-1:]
    picks = sorted(set(picks))
    unit_en, unit_ko = _UNIT[j.series]
    # '1,001 steps', 'recursion depth 801'; '1,001단계', '2,175바이트', '재귀 깊이 801' (a count before its
    # unit, as Korean writes it; a depth is named first in both)
    depth = j.series == "depth"
    en = [f"n = {n:,} → " + (f"{unit_en} {points[n]:,}" if depth else f"{points[n]:,} {unit_en}")
          for n in picks]
    ko = [f"n = {n:,} → " + (f"{unit_ko} {points[n]:,}" if depth else f"{points[n]:,}{unit_ko}")
          for n in picks]
    stopped = next((r for r in found.runs if r.status == "recursion"), None)
    if stopped is not None and j.series in ("depth", "steps"):
        en.append(f"n = {stopped.n:,} → deeper than Python's recursion limit (RecursionError)")
        ko.append(f"n = {stopped.n:,} → 파이썬 재귀 한도를 넘음(RecursionError)")
    if part == "time" and j.series == "bytes":  # a time claim refuted by the bytes: why they are its
        en.append("every byte allocated is written, so at least as many steps")
        ko.append("할당한 바이트는 모두 쓰이므로 단계도 그만큼 이상")
    return "; ".join(en), "; ".join(ko)
