"""Which top-level statements grading needs: an `ast` pass on the trusted side.

Nothing of the student's runs here: each cell (or .py file) is parsed as text and
its top-level statements are sorted into what the worker runs (imports,
definitions, and the assignments and calls definitions depend on) and what it
does not (output, plots, demos, training runs, Colab-only imports), each with a
reason the report can put in the student's terms.

"Needed" is a fixpoint: the names every function and class body refers to, the
contract's names, ALL_CAPS constants and what sibling modules import start the
live set; a statement that binds or mutates a live name is needed, and what it
reads becomes live in turn.
"""

from __future__ import annotations

import ast
import builtins
import symtable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

# Imports that exist only in Colab or Jupyter, and plotting: never needed to grade.
NOTEBOOK_ONLY = ("google.colab", "google", "IPython", "ipywidgets", "ipykernel", "jupyter", "tqdm.notebook")
PLOTTING = ("matplotlib", "seaborn", "plotly", "pylab")
KIT = ("grader",)  # `from grader import check` inside the notebook
# Calls whose only effect is output.
OUTPUT_CALLS = {"print", "display", "pprint", "clear_output", "get_ipython", "HTML", "Markdown", "input",
                "help"}
OUTPUT_METHODS = {"show", "plot", "imshow", "savefig", "hist", "scatter", "legend", "title", "xlabel",
                  "ylabel", "figure", "subplots", "bar", "tight_layout", "set_title", "set_xlabel",
                  "set_ylabel"}
# Library calls that configure the process: cheap and possibly relied upon.
CONFIG_CALLS = {"manual_seed", "seed", "set_default_dtype", "filterwarnings", "simplefilter",
                "set_num_threads", "use_deterministic_algorithms", "set_printoptions", "set_grad_enabled",
                "setattr", "delattr", "setrecursionlimit", "set_default_device"}
BUILTINS = set(dir(builtins))
SIMPLE = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Delete)


@dataclass(frozen=True)
class NotebookRules:
    """What the graded lesson tells the plan (``Lesson.contract``, ``Lesson.notebook_top_level_calls``):
    the names it grades, kept wherever a statement binds one (``causal_mask = my_mask``), and the calls
    that train at top level, skipped because the suites run that work themselves, on their own budget."""

    graded: frozenset[str] = frozenset()
    top_level_calls: frozenset[str] = frozenset()


@dataclass
class Note:
    """A statement the grader did not run (or, filled in by the worker, one that failed)."""

    cell: int | None  # None for a .py file
    line: int
    code: str  # the statement's first line
    action: str  # skipped | failed | stopped
    reason: str  # a key of grader.notebook.messages.REASONS
    detail: str = ""  # a name, a module or an error message
    defines: list[str] = field(default_factory=list)  # what a cell that does not parse would have defined

    def as_dict(self) -> dict:
        out = {"cell": self.cell, "line": self.line, "code": self.code, "action": self.action,
               "reason": self.reason, "detail": self.detail}
        return out | ({"defines": self.defines} if self.defines else {})


@dataclass
class Stmt:
    """One top-level statement (or several sharing a line) and what it reads and writes."""

    nodes: list[ast.stmt]
    cell: int | None
    first: int
    last: int
    text: str  # its whole lines
    binds: set[str] = field(default_factory=set)
    roots: set[str] = field(default_factory=set)  # names whose objects it mutates
    stores: set[str] = field(default_factory=set)  # roots it assigns attributes or items of (`torch.x = ...`)
    loads: set[str] = field(default_factory=set)  # names read when it runs (not inside function bodies)
    refs: set[str] = field(default_factory=set)  # globals its functions and classes refer to
    imports: dict[str, str] = field(default_factory=dict)  # bound name -> module
    verdict: str = ""  # "" (decide by liveness) | run | a skip reason
    speculative: bool = False  # run although nothing needs it (a call of the notebook's own function)
    detail: str = ""

    @property
    def code(self) -> str:
        first = self.text.strip().splitlines()[0] if self.text.strip() else ""
        return first if len(first) <= 80 else first[:77] + "..."

    @property
    def is_definition(self) -> bool:
        return all(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Import
                              | ast.ImportFrom | ast.Global | ast.Pass) for n in self.nodes)


# --------------------------------------------------------------------------- reading statements


def statements(tree: ast.Module, source: str, cell: int | None, *, split: bool = False) -> list[Stmt]:
    """Top-level statements, each as whole lines; those that share a line are merged, or with ``split``
    (`import sys; sys.path.insert(0, "kit")` in a cell) kept apart as their own source segments."""
    lines = source.splitlines()
    out: list[Stmt] = []
    segments: dict[int, str] = {}
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        last = node.end_lineno or node.lineno
        shares = bool(out) and first <= out[-1].last
        if shares and split and _simple(node) and all(_simple(n) for n in out[-1].nodes):
            for prev in out[-1].nodes[:1]:
                segments.setdefault(id(out[-1]), ast.get_source_segment(source, prev) or "")
            out.append(Stmt([node], cell, node.lineno, last, ast.get_source_segment(source, node) or ""))
            segments[id(out[-1])] = out[-1].text
        elif shares:
            out[-1].nodes.append(node)
            out[-1].last = max(out[-1].last, last)
            segments.pop(id(out[-1]), None)
        else:
            out.append(Stmt([node], cell, first, last, ""))
    for s in out:
        s.text = segments.get(id(s)) or "\n".join(lines[s.first - 1:s.last])
        for node in s.nodes:
            _describe(s, node)
    return out


def _simple(node: ast.stmt) -> bool:
    return not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.For | ast.AsyncFor
                          | ast.While | ast.If | ast.With | ast.AsyncWith | ast.Try | ast.Match)


def _describe(s: Stmt, node: ast.stmt) -> None:
    if isinstance(node, ast.Import | ast.ImportFrom):
        for alias in node.names:
            if isinstance(node, ast.Import):
                name = alias.asname or alias.name.split(".")[0]
                s.imports[name] = alias.name
            else:
                name = alias.asname or alias.name
                s.imports[name] = ("." * node.level) + (node.module or "")
            s.binds.add(name)
        return
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        s.binds.add(node.name)
    s.loads |= _loads(node)
    for sub in _walk_scope(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store | ast.Del):
            s.binds.add(sub.id)
        elif isinstance(sub, ast.Attribute | ast.Subscript) and isinstance(sub.ctx, ast.Store | ast.Del):
            root = _root(sub)
            if root:
                s.roots.add(root)
                s.stores.add(root)
        elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and sub is not node:
            s.binds.add(sub.name)
        elif isinstance(sub, ast.Import | ast.ImportFrom):
            s.binds |= {a.asname or a.name.split(".")[0] for a in sub.names}
        elif isinstance(sub, ast.Call):
            if isinstance(sub.func, ast.Attribute):
                root = _root(sub.func.value)
                if root:
                    s.roots.add(root)  # `CONFIG.update(...)`, `attn.eval()`
            elif isinstance(sub.func, ast.Name) and sub.func.id in ("setattr", "delattr") and sub.args:
                root = _root(sub.args[0])
                if root:
                    s.roots.add(root)
    s.refs |= _global_refs(node)


def _walk_scope(node: ast.AST):
    """ast.walk that does not enter function or lambda bodies (their code runs only when called)."""
    todo = [node]
    while todo:
        cur = todo.pop()
        yield cur
        if isinstance(cur, ast.FunctionDef | ast.AsyncFunctionDef):
            todo.extend([*cur.decorator_list, *cur.args.defaults, *(d for d in cur.args.kw_defaults if d)])
        elif isinstance(cur, ast.Lambda):
            todo.extend([*cur.args.defaults, *(d for d in cur.args.kw_defaults if d)])
        else:
            todo.extend(ast.iter_child_nodes(cur))


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in _walk_scope(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _root(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _global_refs(node: ast.stmt) -> set[str]:
    """Module-level names the functions and classes inside ``node`` refer to (symtable: exact scoping)."""
    try:
        table = symtable.symtable(ast.unparse(node), "<cell>", "exec")
    except (SyntaxError, ValueError, RecursionError):
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}  # over-approximate: keeps more
    refs: set[str] = set()
    todo = list(table.get_children())
    while todo:
        t = todo.pop()
        todo.extend(t.get_children())
        for sym in t.get_symbols():
            if not sym.is_referenced():
                continue
            if sym.is_global() or (t.get_type() == "class" and not sym.is_assigned()):
                refs.add(sym.get_name())
    return refs


# --------------------------------------------------------------------------- deciding


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _call_of(node: ast.stmt) -> ast.Call | None:
    value = getattr(node, "value", None)
    return value if isinstance(value, ast.Call) else None


def _call_name(call: ast.Call) -> tuple[str | None, str | None]:
    """(root name, last attribute or function name) of a call: plt.show() -> ('plt', 'show')."""
    func = call.func
    if isinstance(func, ast.Name):
        return None, func.id
    if isinstance(func, ast.Attribute):
        return _root(func.value), func.attr
    return None, None


def _is_main_guard(node: ast.stmt) -> bool:
    return (isinstance(node, ast.If) and "__name__" in ast.unparse(node.test)
            and "__main__" in ast.unparse(node.test))


def _static_verdict(s: Stmt, defined: set[str], imported: dict[str, str], unavailable: dict[str, str],
                    notebook: bool, rules: NotebookRules) -> None:
    """What a statement is, before liveness: a definition, something never run, or undecided."""
    if s.is_definition:
        mods = list(s.imports.values())
        if mods and all(_under(m, NOTEBOOK_ONLY) for m in mods):
            s.verdict, s.detail = "notebook_only", mods[0]
        elif mods and all(_under(m, PLOTTING) for m in mods):
            s.verdict, s.detail = "plotting", mods[0]
        elif mods and all(_under(m, KIT) for m in mods):
            s.verdict, s.detail = "kit", mods[0]
        else:
            s.verdict = "run"
        return
    node = s.nodes[0]
    if len(s.nodes) == 1 and _is_main_guard(node):
        s.verdict = "main_guard"
        return
    call = _call_of(node) if len(s.nodes) == 1 and isinstance(node, SIMPLE) else None
    if call is not None:
        root, name = _call_name(call)
        module = imported.get(root or "", "")
        if name in rules.top_level_calls and (root is None or root in imported):
            s.verdict, s.detail = "experiment", name or ""
        elif isinstance(node, ast.Expr) and root is None and name in OUTPUT_CALLS:
            s.verdict, s.detail = "output", name or ""
        elif isinstance(node, ast.Expr) and (name in OUTPUT_METHODS or _under(module, PLOTTING)):
            s.verdict, s.detail = "output", name or ""
        elif isinstance(node, ast.Expr) and name in CONFIG_CALLS and (root is None or root in imported):
            s.verdict = "run"
        elif isinstance(node, ast.Expr) and root is None and name in defined and not notebook:
            s.verdict = "run"  # a module's own top-level call: kept as written in a .py
    elif isinstance(node, ast.Expr) and len(s.nodes) == 1:
        s.verdict = "output"  # a bare value: Jupyter displays it, nothing else happens
    missing = sorted(n for n in s.loads if n in unavailable and n not in defined)
    if missing and notebook and s.verdict not in ("output", "experiment", "main_guard"):
        s.verdict, s.detail = "needs", f"{missing[0]}:{unavailable[missing[0]]}"


def decide(stmts: list[Stmt], *, notebook: bool, rules: NotebookRules,
           extra_live: AbstractSet[str] = frozenset()) -> None:
    """Set every statement's verdict: run, or the reason it is not run (``rules``: the graded lesson's)."""
    defined = {n for s in stmts for n in s.binds}
    imported = {n: m for s in stmts for n, m in s.imports.items()}
    unavailable: dict[str, str] = {}
    for s in stmts:
        _static_verdict(s, defined - set(unavailable), imported, unavailable, notebook, rules)
        if s.verdict in ("notebook_only", "plotting", "kit"):
            unavailable.update(dict.fromkeys(sorted(s.binds), s.detail))
    contract = set(rules.graded) | {"__all__"}
    live = set(extra_live) | contract
    for s in stmts:
        live |= s.refs
        live |= {n for n in s.binds if n.isupper() or n in contract}
        if s.verdict == "run":
            live |= s.loads
    changed = True
    while changed:
        changed = False
        for s in stmts:
            # `torch.isclose = ...` patches a library: kept, like every assignment into a live object
            touched = s.binds | (s.roots - set(imported)) | (s.stores & set(imported))
            if s.verdict == "" and (touched & live or s.stores & set(imported) or _defines_inside(s)):
                s.verdict = "run"
                live |= s.loads | s.refs
                changed = True
    for s in stmts:
        if s.verdict == "":
            call = _call_of(s.nodes[0]) if isinstance(s.nodes[0], ast.Expr) else None
            s.verdict = "unused"
            root, name = _call_name(call) if call is not None else ("", None)
            if notebook and name is not None and (root is None or root in BUILTINS) and (
                    name in defined or name in BUILTINS or root in BUILTINS):
                # a call of the notebook's own function, `exec(...)`, `globals().update(...)`: within a budget
                s.verdict, s.speculative = "run", True


def _defines_inside(s: Stmt) -> bool:
    """An if/try that defines a function or class (`try: import x ... except: def f...`)."""
    return any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Import
                          | ast.ImportFrom)
               for node in s.nodes if not isinstance(node, SIMPLE)
               for n in _walk_scope(node) if n is not node)


def note_for(s: Stmt) -> Note:
    return Note(s.cell, s.first, s.code, "skipped", s.verdict, s.detail)


# --------------------------------------------------------------------------- .py files


def prune_module(source: str, live_from_siblings: set[str], rules: NotebookRules) -> tuple[str, list[Note]]:
    """A .py file with its top-level demos and experiment calls blanked (line numbers kept).

    Only simple statements are ever dropped (calls, assignments); loops, ``with``
    and ``if`` blocks stay as written, so a module that really hangs still says so.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return source, []  # the import reports it, with its line
    stmts = statements(tree, source, None)
    decide(stmts, notebook=False, rules=rules, extra_live=live_from_siblings)
    imported = {n: m for s in stmts if s.verdict != "notebook_only" for n, m in s.imports.items()}
    lines = source.splitlines(keepends=True)
    notes = []
    for s in stmts:
        droppable = all(isinstance(n, SIMPLE) for n in s.nodes)
        demo = s.verdict in ("output", "experiment", "unused") and droppable and has_call(s)
        if s.verdict == "unused" and _calls_a_module(s, imported):
            demo = False  # `os._exit(0)`, `torch.save(...)`: what a module does at import stays as written
        if demo or s.verdict == "notebook_only":  # google.colab cannot import outside Colab
            for i in range(s.first - 1, s.last):
                lines[i] = "\n"
            notes.append(note_for(s))
    return "".join(lines), notes


def _calls_a_module(s: Stmt, imported: dict[str, str]) -> bool:
    call = _call_of(s.nodes[0]) if len(s.nodes) == 1 and isinstance(s.nodes[0], ast.Expr) else None
    return call is not None and _call_name(call)[0] in imported


def has_call(s: Stmt) -> bool:
    return any(isinstance(n, ast.Call) for node in s.nodes for n in ast.walk(node))


def names_imported_from(module: str, sources: dict[str, str]) -> set[str]:
    """What sibling files take from ``module``: `from embedding import X` and `embedding.X`."""
    names: set[str] = set()
    for other, text in sources.items():
        if other == module:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == module:
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.Import):
                aliases |= {a.asname or a.name for a in node.names if a.name == module}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases):
                names.add(node.attr)
    return names
