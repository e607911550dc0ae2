"""A complexity claim held to what the student's own function does, counted, not timed.

The log says "O(log n)"; the student's ``my_pow`` is run in the sandboxed worker at growing n and its
work is counted there (probes.py ``probe_practice_cost``): every loop iteration and function call, every
element a built-in or an operator goes over on the function's behalf (``[True] * n``, a slice,
``sum(flags)``, a big int's words), the deepest recursion, and the peak of the memory the call allocates
(``tracemalloc``). The counts are deterministic: the same code gives the same numbers on any machine,
at any load.

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
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from ..vocab import message
from .coverage import PRACTICE_FUNCTIONS, parsed

if TYPE_CHECKING:  # the type only: bigo is imported where it is used
    from ..bigo import Complexity

# The functions measured, the arguments at size n, and the sizes (doubling, small enough first that a
# recursion n deep still runs under Python's limit of 1,000 frames).
MEASURED: dict[str, Callable[[int], list[Any]]] = {
    "my_pow": lambda n: [1.000001, n],  # x near 1: no overflow at any n, and no shortcut for x == 1
    "count_primes": lambda n: [n],
}
# The others' claims go by the log's words; why each is not measured is vocab.toml's meter_unmeasured_<name>.
SIZES = (100, 200, 400, 800, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000)
STOP_AFTER = 100_000  # steps: the next size (double) is not run once a call took this many
BUDGET = 3_000_000  # steps: a call that takes more is stopped there (the series ends with it)
SPAN = 8  # the growth is read over sizes at least this far apart; fewer sizes: nothing measured

# Names the counted copy calls; single underscore, so a method's body is not name-mangled.
LOOP, TICK, ENTER, EXIT = "_gk_loop", "_gk_tick", "_gk_enter", "_gk_exit"
ELEMS, MADE, SCAN, FILL = "_gk_elems", "_gk_made", "_gk_scan", "_gk_fill"
# Built-ins that go over their argument's elements: sum(flags), list(range(n)); each of their arguments is
# counted (a built-in container by its length, anything else item by item as it is consumed, probes.py).
_OVER_ARGUMENT = {"sum", "min", "max", "any", "all", "sorted", "list", "tuple", "set", "frozenset", "dict"}
# Those that take several iterables, or a function and iterables (each iterable counted, the rest passes):
# map(f, range(n)), functools.reduce, math.prod(itertools.repeat(x, n)).
_OVER_ARGUMENTS = {"map", "filter", "zip", "enumerate", "reduce", "prod", "fsum", "accumulate", "chain",
                   "starmap", "compress", "islice"}
# Methods that go over their receiver (flags.count(True)) or their argument (out.extend(more)).
_OVER_RECEIVER = {"count", "index", "copy"}
_OVER_METHOD_ARGUMENT = {"extend", "join", "update"}
# Methods that search or shift a sequence's items (nums.remove(m), out.insert(0, c), queue.pop(0)): its length
# where it is a list, tuple, str or deque, as `in` (a set's remove hashes, pop() takes the last: not counted).
_SEQUENCE_METHODS = {"remove", "insert", "pop"}
# What runs work the counter cannot see (code from a string, a name looked up at run time) or names the
# counter's own functions: such code is not measured, and its claims are a TA's.
_HIDING = {"exec", "eval", "compile", "getattr", "globals", "vars", "__builtins__"}
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # what the counted copy holds
Words = tuple[str, str]  # a text in English and Korean


# --------------------------------------------------------------------------- the counted copy (ast only)


class _Counter(ast.NodeTransformer):
    """Counters into the code: each loop's items, each while-loop's turn, each call's depth, each
    built-in's elements. What the code computes is left as it is."""

    def __init__(self, aliases: dict[str, str]) -> None:
        self.aliases = aliases  # a name -> the function it stands for

    def visit(self, node: ast.AST) -> Any:
        """``node`` after its children (a counter wraps code already counted), by its ``count_`` method."""
        self.generic_visit(node)
        return getattr(self, f"count_{type(node).__name__}", lambda same: same)(node)

    def count_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        start = int(ast.get_docstring(node, clean=False) is not None)
        # ENTER(), then the body, then EXIT() however it ends: the call counted, and its depth while it runs
        # (a try with no handlers and no else, EXIT() its finally)
        guarded = ast.Try(node.body[start:] or [ast.Pass()], [], [], [ast.Expr(_call(EXIT))])
        node.body = [*node.body[:start], ast.Expr(_call(ENTER)), guarded]
        return node

    count_AsyncFunctionDef = count_FunctionDef

    def count_For(self, node: ast.For | ast.comprehension) -> ast.AST:
        node.iter = _call(LOOP, node.iter)
        return node

    count_comprehension = count_For

    def count_While(self, node: ast.While) -> ast.AST:
        node.body = [ast.Expr(_call(TICK)), *node.body]
        return node

    def count_Call(self, node: ast.Call) -> ast.AST:
        f = node.func
        name = self.aliases.get(f.id, f.id) if isinstance(f, ast.Name) else None
        method = f.attr if isinstance(f, ast.Attribute) else None
        if name in ("bytearray", "bytes"):
            return _call(MADE, node)  # bytearray(n): n elements made
        if (name in _OVER_ARGUMENT and len(node.args) == 1) or (
                method in _OVER_METHOD_ARGUMENT and node.args):
            node.args[0] = _call(ELEMS, node.args[0])  # sum(flags), not max(a, b); out.extend(more)
        elif (name or method) in _OVER_ARGUMENTS:
            node.args = [a if isinstance(a, ast.Starred) else _call(ELEMS, a) for a in node.args]
        elif isinstance(f, ast.Attribute) and (method in _OVER_RECEIVER or (
                method in _SEQUENCE_METHODS and (method != "pop" or node.args))):
            # its length: the receiver itself, never a stand-in for it
            f.value = _call(MADE if method in _OVER_RECEIVER else SCAN, f.value)
        return node

    def count_Compare(self, node: ast.Compare) -> ast.AST:
        # `x in seen`: a list, tuple or string searched item by item (a set or dict hashes: not counted)
        node.comparators = [_call(SCAN, c) if isinstance(op, (ast.In, ast.NotIn)) else c
                            for op, c in zip(node.ops, node.comparators, strict=True)]
        return node

    def count_Lambda(self, node: ast.Lambda) -> ast.AST:
        # a call as a function's: EXIT(ENTER(), body) enters, runs the body, leaves and gives its value
        node.body = _call(EXIT, _call(ENTER), node.body)
        return node

    def count_BinOp(self, node: ast.BinOp) -> ast.AST:
        # what an operator makes: [True] * n's n elements, a + b's, a big int's words (1 << n: n / 64)
        return _call(MADE, node)

    def count_Subscript(self, node: ast.Subscript) -> ast.AST:
        if isinstance(node.slice, ast.Slice) and isinstance(node.ctx, ast.Load):
            return _call(MADE, node)  # flags[i * i::i] read: a copy of that many elements
        return node

    def count_Assign(self, node: ast.Assign) -> ast.AST:
        for target in node.targets:  # the first slice written
            if isinstance(target, ast.Subscript) and isinstance(part := target.slice, ast.Slice):
                if _plain(target):
                    # flags[i * i::i] = ...: that many elements written, a value given for each or one for
                    # all (numpy's sieve[i * i::i] = False)
                    bounds = (b or ast.Constant(None) for b in (part.lower, part.upper, part.step))
                    node.value = _call(FILL, target.value, _call("slice", *bounds), node.value)
                else:  # a target with side effects is read once: the value's elements
                    node.value = _call(ELEMS, node.value)
                break
        return node


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Name(name, ast.Load()), list(args), [])  # func, args, keywords


def _plain(target: ast.Subscript) -> bool:
    """A slice target whose sequence and bounds can be read again without side effects (names, numbers)."""
    return all(isinstance(n, (ast.Name, ast.Attribute, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Slice,
                              ast.Subscript, ast.operator, ast.unaryop, ast.expr_context))
               or (isinstance(n, ast.Call) and _named(n.func) == MADE) for n in ast.walk(target))


def hidden(source: str, function: str) -> Words | None:
    """Why ``function``'s work cannot be counted (en, ko): its module (the other practice functions aside)
    runs code from a string or looks a name up at run time (``_HIDING``), uses the counter's own names, or
    reads what it computes when it is imported; None when it can be."""
    tree = parsed(source)
    if tree is None:
        return None
    others = set(PRACTICE_FUNCTIONS) - {function}
    nodes = [n for top in tree.body if getattr(top, "name", None) not in others for n in ast.walk(top)]
    called = sorted({n.id for n in nodes if isinstance(n, ast.Name)} & _HIDING)  # not re.compile
    if called:
        return message("meter_hidden_run", said=", ".join(called))
    named = (getattr(n, a, None) for n in nodes for a in ("id", "attr", "name", "arg", "asname"))
    if any(isinstance(name, str) and name.startswith("_gk_") for name in named):
        return message("meter_hidden_names")
    built = _built_at_import(tree, function)
    return message("meter_hidden_built", said=", ".join(built)) if built else None


def _built_at_import(tree: ast.Module, function: str) -> list[str]:
    """The module's names ``function`` reads (itself or through the module's functions and classes) that a
    loop or a call of its own functions touches when the module is imported: a table of primes built before
    the call, a default argument, a class attribute. That work is the code's, but not the counted call's."""
    defs: dict[str, ast.AST] = {n.name: n for n in tree.body if isinstance(n, _DEFINITIONS)}
    defs |= _bound_practice(tree)  # their work is the call's (counted_source)
    known = set(dir(builtins)) | {a.asname or a.name.split(".")[0] for n in tree.body
                                  if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}

    def works(*nodes: ast.AST | None) -> bool:  # a loop, or a call of the module's own functions
        return any(isinstance(n, (ast.For, ast.While, ast.comprehension)) or (
            isinstance(n, ast.Call) and _named(n.func) in defs)
            for node in nodes if node for n in ast.walk(node))

    def names(node: ast.AST, ctx: type = ast.expr_context) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}

    built: set[str] = set()
    for top in tree.body:
        if not isinstance(top, _DEFINITIONS):
            built |= names(top) if works(top) and top not in defs.values() else set()
        elif works(*top.decorator_list, *([*top.args.defaults, *top.args.kw_defaults] if not isinstance(
                top, ast.ClassDef) else [s for s in top.body if not isinstance(s, _DEFINITIONS)])):
            built.add(top.name)  # its decorators, default arguments or class body work at import
    read, todo = set(), [function]
    while todo:  # the names it reads that are not its own (nor its parameters), and theirs
        name = todo.pop()
        if name in defs and name not in read:
            node = defs[name]
            todo += names(node, ast.Load) - names(node, ast.Store) - {
                a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
        read.add(name)
    return sorted((built - known) & read)


def counted_source(source: str) -> str | None:
    """The module's functions and classes with their work counted, as source the worker compiles beside
    the student's module (its other statements, imports and constants, are the module's own, already
    run); None when the source does not parse."""
    tree = parsed(source)
    if tree is None:
        return None
    # 'my_pow = Solution().myPow', 'my_pow = power_loop': a function that looks it up when called, so that
    # it is the counted copy's (and an object it needs is made inside the counted call)
    bound = {id(node): ast.parse(f"def {name}(*args, **kwargs):\n return ({ast.unparse(node.value)})(*args, "
                                 "**kwargs)").body[0] for name, node in _bound_practice(tree).items()}
    module = ast.Module([bound.get(id(n), n) for n in tree.body
                         if isinstance(n, _DEFINITIONS) or id(n) in bound], [])  # body, type_ignores
    # another name for a function: 'from math import prod as product', 'multiply_all = math.prod'
    aliases = {a.asname: a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names
               if a.asname}
    # and 'product = partial(reduce, mul)': the function it binds arguments to
    aliases |= {n.targets[0].id: name for n in ast.walk(tree) if isinstance(n, ast.Assign)
                and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and (name := _named(_unbound(n.value)))}
    return ast.unparse(_Counter(aliases).visit(module))


def _bound_practice(tree: ast.Module) -> dict[str, ast.Assign]:
    """The practice functions the module binds to its own code by assignment, by name: 'my_pow =
    Solution().myPow' (LeetCode's class kept), 'my_pow = power_loop', 'my_pow = partial(power_loop, ...)',
    'my_pow = lambda x, n: ...'."""
    defs, found = {n.name for n in tree.body if isinstance(n, _DEFINITIONS)}, {}
    for top in tree.body:
        if isinstance(top, ast.Assign) and len(top.targets) == 1 and isinstance(top.targets[0], ast.Name) \
                and top.targets[0].id in PRACTICE_FUNCTIONS:
            root = _unbound(top.value)
            while isinstance(root, (ast.Attribute, ast.Call)):  # Solution().myPow: to Solution
                root = root.value if isinstance(root, ast.Attribute) else root.func
            if isinstance(root, ast.Lambda) or (isinstance(root, ast.Name) and root.id in defs):
                found[top.targets[0].id] = top
    return found


def _unbound(value: ast.expr) -> ast.expr:
    """``f`` of ``partial(f, ...)``, else ``value``."""
    if isinstance(value, ast.Call) and _named(value.func) == "partial" and value.args:
        return value.args[0]
    return value


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
    why: Words | None = None
    hidden: Words | None = None  # why some of its work is hidden from the counter (``hidden``)

    @property
    def ok(self) -> list[Run]:
        return [r for r in self.runs if r.status == "ok"]

    def spans(self, factor: int) -> bool:
        """At least three sizes ran, the largest ``factor`` times the smallest or more."""
        ok = self.ok
        return len(ok) >= 3 and ok[-1].n >= factor * ok[0].n

    @property
    def usable(self) -> bool:
        return self.why is None and self.spans(SPAN)

    def points(self, series: str) -> list[Point]:
        """(n, count) of each call that ran, the count of ``series`` ('steps', 'depth' or 'bytes')."""
        return [(r.n, getattr(r, _RUN_FIELD[series])) for r in self.ok]

    def to_dict(self) -> dict[str, Any]:
        return {"function": self.function, "runs": [vars(r) for r in self.runs],
                "why": list(self.why) if self.why else None}


def measure(student: Any, module: str, function: str, source: str | None,
            timeout: float = 60.0) -> Measurement:
    """Run ``function`` of the student's ``module`` in the worker at growing sizes, counted (probes.py);
    never here. A function that cannot be measured says why, and its claims go by the log's words."""
    if function not in MEASURED:  # why (vocab.toml): a practice function's own reason, else not one
        why = f"meter_unmeasured_{function}" if function in PRACTICE_FUNCTIONS else "meter_not_practice"
        return Measurement(function, why=message(why))
    counted = counted_source(source or "")
    if counted is None:
        return Measurement(function, why=message("meter_unparsed"))
    calls = [MEASURED[function](n) for n in SIZES]
    try:
        raw = student.probe("practice_cost", f"{module}.{function}", counted, function, calls, STOP_AFTER,
                            BUDGET, timeout=timeout)
    except Exception as exc:  # the module does not import, the worker timed out: the log's words decide
        return Measurement(function, why=message("meter_not_run", kind=type(exc).__name__))
    try:  # the worker's answer, read as numbers
        runs = [Run(int(c[-1]), int(r["steps"]), int(r["depth"]), int(r["peak"]), str(r["status"]))
                for c, r in zip(calls, raw, strict=False)]
    except (TypeError, KeyError, ValueError):
        return Measurement(function, why=message("meter_unread"))
    found = Measurement(function, runs, hidden=hidden(source or "", function))
    if not found.usable:
        found.why = message("meter_too_few", last=runs[-1].status if runs else "none")
    return found


# --------------------------------------------------------------------------- the claim against the counts

OVER, FITS, UNDER, BETWEEN = "over", "fits", "under", "between"
Point = tuple[int, int]  # (n, count)


def log_growth(claim: Complexity, n: int) -> float:
    """log of the claim's value at ``n`` (its one variable set to n): what its growth is compared by."""
    ln, lg = math.log(n), math.log2(n)
    # a Fraction times a float is that float product
    logs = [sum(g.poly * ln + g.exp * n * math.log(2) + g.log * math.log(lg) + (
        g.loglog * math.log(max(math.log2(lg), 1e-9)) + g.fact * math.lgamma(n + 1))
        for _, g in term.factors) for term in claim.terms]
    top = max(logs, default=0.0)
    return top + math.log(sum(math.exp(v - top) for v in logs)) if logs else 0.0


@dataclass(frozen=True)
class Judgement:
    """The claim against one series: OVER (the counts outgrow it), FITS, UNDER or BETWEEN; the series'
    name and the points it read."""

    verdict: str
    series: str  # 'steps', 'depth' or 'bytes'
    points: tuple[Point, ...]
    grows_like: str | None = None  # the plain growth the counts show ('n', 'log n'), when one is close


def _top(points: list[Point]) -> tuple[Point, Point]:
    """The two points the growth is read over at the top of the range: the largest size, and the largest at
    most an eighth of it."""
    return next((p for p in reversed(points) if p[0] * SPAN <= points[-1][0]), points[0]), points[-1]


def _slope(low: Point, high: Point, claim: Complexity | None = None) -> float:
    """The log-log slope from point ``low`` to ``high``: the counts', or ``claim``'s at those sizes."""
    (lo_n, lo), (hi_n, hi) = low, high
    rise = log_growth(claim, hi_n) - log_growth(claim, lo_n) if claim else math.log((hi + 1) / (lo + 1))
    return rise / math.log(hi_n / lo_n)


def _gap(claim: Complexity, low: Point, high: Point) -> float:
    """How much faster than the claim the counts grow (log-log slope) from point ``low`` to ``high``."""
    return _slope(low, high) - _slope(low, high, claim)


_PLAIN = (("1", 0.0), ("log n", None), ("√n", 0.5), ("n", 1.0), ("n log n", None), ("n√n", 1.5), ("n^2", 2.0))


# What a constant may still vary by: a few steps or frames; for bytes, the allocator's own granularity.
_SLACK = {"steps": 2, "depth": 2, "bytes": 1024}
# At most what a recursion's frames take in traced bytes: a KiB a frame, and the interpreter's frame stack
# grows in 16 KiB chunks (two of them, wherever the call starts in one).
_FRAME_BYTES, _CHUNKS = 1024, 2 * 16_384


def judge_series(claim: Complexity, series: str, points: list[Point],
                 margin: float = 0.25, strict: bool = False) -> Judgement:
    """The claim (its one variable, the size) against ``points`` (n, count); counts that outgrow it by more
    than ``margin`` (in slope) refute it. ``strict``: bytes read over the top of the range only."""
    (_, first), (_, last), slack = points[0], points[-1], _SLACK[series]
    flat = last <= 1.25 * first + slack
    # deterministic counts that rise at every size (each of the last four, or the three of a series cut
    # short: a recursion n deep past Python's limit at n = 800)
    counts = [c for _, c in points]
    rising = len(counts) > 2 and all(b > a for a, b in pairwise(counts[-4:]))
    if not claim.variables:  # O(1): bounded. Counts that rise at every size and keep rising refute it
        grows = all(b >= a for a, b in pairwise(counts))
        verdict = OVER if grows and rising and last >= first + 3 * slack else FITS if flat else BETWEEN
    elif flat:  # counts that do not grow refute no growing bound: whether it is loose is claims.py's to say,
        # except in bytes for a bound of logs, which stays inside the slack (log n numbers: a few hundred):
        # bytes that still rise at every doubling of n (bin(n)'s digits, a stack of n's halves) fit it
        logs = all(not (g.poly or g.exp or g.fact) for t in claim.terms for _, g in t.factors)
        verdict = (FITS if rising else BETWEEN) if series == "bytes" and logs else UNDER
    else:
        gap = _gap(claim, *_top(points))
        if series == "bytes" and not strict:
            # a set's or dict's table grows 4-fold at once, and the top eighth of the range may hold such a
            # jump whole or miss it: of that reading and the whole range's, the one closer to the claim
            gap = min(gap, _gap(claim, points[0], points[-1]), key=abs)
        # a claim is an upper bound: counts that outgrow it by n^0.25 over an 8-fold range (1.7 times) refute
        # it; a log factor or two grows less (n log² n over n: n^0.2 at these sizes)
        verdict = OVER if gap > margin else FITS if abs(gap) <= 0.2 else UNDER if gap < -0.3 else BETWEEN
    return Judgement(verdict, series, tuple(points), "1" if flat else _grows_like(points))


def _grows_like(points: list[Point]) -> str | None:
    """The plain growth closest to the counts' (within 0.15 in slope), for the student's message."""
    from ..bigo import parse

    low, high = _top(points)
    # log n and n log n: their slope over this range
    off = {name: abs(_slope(low, high) - (_slope(low, high, parse(f"O({name})")) if slope is None
                                          else slope)) for name, slope in _PLAIN}
    return min((name for name in off if off[name] <= 0.15), key=off.__getitem__, default=None)


def judge(claim: Complexity, part: str, found: Measurement, strict: bool = False) -> Judgement | None:
    """The claim on ``part`` ('time' or 'space') against the measurement; None when nothing usable was
    measured or the claim is in more than one variable. Time is the steps (and the bytes, which it writes);
    space the recursion depth where the function recurses deeper as n grows, else the peak bytes it
    allocates. Sizes too few to read a growth from (a recursion past Python's limit at n = 800, counts past
    the budget at n = 400) still refute a claim they outgrow by twice the margin over a 4-fold range: only
    that is said of them. ``strict``: see ``judge_series``."""
    ok, short = found.ok, not found.usable
    if len(claim.variables) > 1 or (short and not found.spans(4)):
        return None
    margin = 0.5 if short else 0.25
    # a recursion's memory is its frames, which the depth counts exactly (the interpreter's frame stack
    # grows in chunks, so its bytes jump); without one, the bytes the call allocates
    deeper = ok[-1].depth > ok[0].depth + _SLACK["depth"]
    series = "steps" if part == "time" else "depth" if deeper else "bytes"
    judged = judge_series(claim, series, found.points(series), margin, strict)
    if series != "bytes" and ok[-1].peak > _FRAME_BYTES * ok[-1].depth + _CHUNKS:
        # bytes beyond what the frames could take are the data's (a memo list of n beside a halving
        # recursion): they refute a claim too; and every byte allocated is written, so bytes that outgrow a
        # time claim refute it (a string of n characters made and scanned by re.sub, an int of n bits)
        data = judge_series(claim, "bytes", found.points("bytes"), margin)
        judged = data if data.verdict == OVER and judged.verdict != OVER else judged
    return judged if not short or judged.verdict == OVER else None


_RUN_FIELD = {"steps": "steps", "depth": "depth", "bytes": "peak"}  # each series' count in a Run


# --------------------------------------------------------------------------- the numbers, as said


def shown(j: Judgement, found: Measurement, part: str = "") -> Words:
    """The numbers the student is shown (en, ko): n = 1,000 and 2,000 where both ran, and the largest;
    a call that stopped past Python's recursion limit is said too, and why bytes hold a ``part`` 'time'."""
    points = dict(j.points)
    sizes = [n for n, _ in j.points]
    picks = [n for n in (1_000, 2_000) if n in points] or sizes[:1]
    picks += [n for n in sizes[-2:] if n not in picks][-1:]
    # '1,001 steps', 'recursion depth 801'; '1,001단계', '2,175바이트', '재귀 깊이 801' (vocab.toml: a count
    # before its unit, as Korean writes it; a depth is named first in both)
    said = [message(f"meter_{j.series}", n=f"{n:,}", count=f"{points[n]:,}") for n in sorted(picks)]
    stopped = next((r for r in found.runs if r.status == "recursion"), None)
    if stopped is not None and j.series in ("depth", "steps"):
        said.append(message("meter_recursion", n=f"{stopped.n:,}"))
    if part == "time" and j.series == "bytes":  # a time claim refuted by the bytes: why they are its
        said.append(message("meter_bytes_time"))
    return "; ".join(s.en for s in said), "; ".join(s.ko for s in said)
