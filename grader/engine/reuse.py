"""Only what changed runs again: a warm re-grade reuses the results of the tests whose
inputs are provably unchanged and runs the rest.

Each test's pytest-json-report entry is kept with the content hashes of what it read: the staged
student modules its Student resolved (each with the modules it imports, engine/student.py), the
submission's data files, what it read of the source through ``student.sources`` (the definitions of
each name it looked up, a file, every class: core/source.py's SourceView), every staged file where it
read the submission or the staging itself, and the artifacts it wrote.  A run reuses nothing unless
the whole run's key is the same: the kit's, the lesson's, the suites' and the reference's files, the
interpreter, the lesson, ``-k``, the sandbox flags, the tamper scan and the seed (every input a test
draws comes from it, core/seeds.py: a public run's is the lesson's, the same after any edit).  The
language is not in it: results.json is rendered from both languages' words.

Conservative on purpose:
* a test that met a timeout, a crash or an error, or that was skipped, runs again;
* a test that called into a module whose code may reach beyond its imports (importlib, exec, open,
  os, json, numpy, getattr by a computed name ...: a file anywhere, another module by name) always
  runs again, and so do the tests that share that module;
* tests that share a student module (its state in the worker), an artifact (a key of the dict the
  suites keep results and caches in, ``Artifacts``: one test wrote it, another read or wrote it; a
  test that read the whole dict shares every key) or a fixture wider than one test (its value made
  once, in whichever test came first) run again together: if one must, all of them do, in their
  usual order;
* student code that leaves the worker's process changed, at import or inside a function a test calls
  (torch's default device or dtype, grad mode, a name of torch or builtins replaced, the environment,
  Python's random generator ...: runtime/server.py ``state_watch``, checked after every request), reaches
  every later test of that worker whatever it read: a run where it happened reuses nothing, nor does the
  next one (``state``), and a warm run that sees it happen grades again reusing nothing.

Used only by a grade the warm daemon serves (grader/daemon/server.py): it hands its grader the store's
name and a secret in the request (grader/sandbox/host.py ``reuse_store``), never through the environment,
so a cold grade (`--no-daemon`, `--ci`, `--hidden`, a batch, Gradescope) never reads one whatever the
environment holds.  The store lies in the user's checked runtime folder (reached through its descriptor,
no link followed, grader/daemon/place.py) and is signed (HMAC-SHA256 with the daemon's secret): one
edited or planted by anyone else is ignored.  Never for the hidden suite.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import json
import sys
import threading
from pathlib import Path
from typing import Any

from grader.core.source import read_digest, sources_of
from grader.core.trees import tree_files

SCHEMA = 4  # 4: a run keeps the process state its student code changed (``state``)
REUSABLE = ("passed", "failed")  # pytest outcomes kept; a verdict of the clock or a crash runs again
# What lets a module read beyond the student modules it imports (a file anywhere, another module by name,
# the worker's other modules): a test calling into a module that imports, names or calls any of these is
# never reused.  Bare names (a call to eval, not a model's .eval()), attributes, and modules imported.
REACH_NAMES = frozenset(
    {
        "__import__",
        "exec",
        "eval",
        "compile",
        "open",
        "globals",
        "vars",
        "locals",
        "__builtins__",
        "__file__",
        "__loader__",
        "__spec__",
        "breakpoint",
        "input",
    }
)
REACH_ATTRS = frozenset(
    {
        "import_module",
        "read_text",
        "read_bytes",
        "open",
        "load",
        "loads",
        "fromfile",
        "loadtxt",
        "genfromtxt",
        "memmap",
        "from_file",
        "environ",
        "getenv",
        "system",
        "popen",
        "listdir",
        "scandir",
        "walk",
        "glob",
        "rglob",
        "iglob",
        "__globals__",
        "__builtins__",
        "__subclasses__",
        "__import__",
        "__code__",
        "f_globals",
        "f_back",
        "modules",
    }
)
REACH_MODULES = frozenset(
    {
        "importlib",
        "runpy",
        "sys",
        "os",
        "io",
        "pathlib",
        "pickle",
        "shelve",
        "marshal",
        "subprocess",
        "shutil",
        "glob",
        "json",
        "csv",
        "numpy",
        "pandas",
        "builtins",
        "ctypes",
        "inspect",
        "gc",
        "types",
        "tempfile",
        "fileinput",
        "zipfile",
        "tarfile",
        "urllib",
        "socket",
        "pkgutil",
        "linecache",
        "codecs",
        "mmap",
    }
)
KEEP = 8  # runs kept, each under its own key (the full grade, a check() of one task ...)
WHOLE = "*"  # a test's module set holding this read every staged file
UNHASHED = "!"  # ... holding this called into code that may read what nothing here hashes: it always runs
SOURCE = "src:"  # ... a key with this prefix: a read of the source's syntax trees (core/source.py SourceView)
ACTIVE: Recorder | None = None  # the session's recorder, set by the plugin while a reusing grade runs


class Store:
    """The warm daemon's store: a file in its runtime folder, signed with its secret."""

    def __init__(self, folder: str, name: str, secret: str) -> None:
        self.folder, self.name, self.secret = folder, name, secret.encode()

    def _mac(self, body: bytes) -> str:
        return hmac.new(self.secret, body, hashlib.sha256).hexdigest()

    def read(self) -> dict[str, Any]:
        """The store's content where its signature holds, else nothing."""
        from grader.daemon.place import RuntimeDir

        try:
            with RuntimeDir(self.folder) as folder:
                data = folder.read(self.name)
        except OSError:
            return {}
        if not data or b"\n" not in data:
            return {}
        mac, _, body = data.partition(b"\n")
        if not hmac.compare_digest(mac.decode(errors="replace"), self._mac(body)):
            return {}
        try:
            content = json.loads(body)
        except ValueError:
            return {}
        return content if isinstance(content, dict) else {}

    def write(self, content: dict[str, Any]) -> None:
        from grader.daemon.place import RuntimeDir

        body = json.dumps(content, default=repr).encode()
        try:
            with RuntimeDir(self.folder) as folder:
                folder.write(self.name, self._mac(body).encode() + b"\n" + body)
        except OSError:
            pass


def store_path(hidden: bool) -> Store | None:
    """The store of the warm daemon that forked this grader, or None (a cold grade, the hidden suite)."""
    from grader.sandbox import host

    given = host.reuse_store
    if hidden or not given:
        return None
    return Store(given["dir"], given["name"], given["secret"])


def _tree_stamp(h: Any, tree: Path) -> None:
    from grader.daemon.place import file_hash

    for path, info in tree_files(tree):
        h.update(f"{path}\0".encode())  # by content: an edit keeping size and mtime is seen
        h.update(file_hash(path, info))


def run_key(parts: dict[str, Any], trees: list[Path]) -> str:
    """The key every reused result must share with this run."""
    h = hashlib.sha256(
        json.dumps(
            {"schema": SCHEMA, "python": sys.executable, "version": sys.version, **parts},
            sort_keys=True,
            default=str,
        ).encode()
    )
    for tree in sorted({str(t) for t in trees if t is not None and Path(t).exists()}):
        _tree_stamp(h, Path(tree))
    return h.hexdigest()


def submission_text(sub: Any) -> str:
    """What a Submission holds beyond its staged files, as text (its staging folder left out)."""
    fields = {k: v for k, v in vars(sub).items() if k not in ("staging", "layout", "rules")}
    return hashlib.sha256(json.dumps(fields, sort_keys=True, default=repr).encode()).hexdigest()


def file_hashes(staging: Path) -> dict[str, str]:
    out = {}
    for path in sorted(p for p in Path(staging).iterdir() if p.is_file()):
        out[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


class Recorder:
    """What each test read and wrote, while the session runs (the plugin feeds it)."""

    def __init__(self, staging: Path, submission: str = "") -> None:
        """``submission``: what the grader read of it beside the staged files (a test reading the
        ``submission`` fixture reads that too): its hash joins the whole submission's."""
        self.staging = Path(staging)
        self.files = file_hashes(self.staging)
        self.whole_hash = _combined({**self.files, "<submission>": submission})
        self.current: str | None = None
        self.reads: dict[str, set[str]] = {}  # nodeid -> modules (or WHOLE)
        self.background: set[str] = set()  # modules resolved beside the tests (a lesson's prefetch)
        self.wrote: dict[str, set[str]] = {}  # nodeid -> artifact keys it changed
        self.took: dict[str, set[str]] = {}  # nodeid -> artifact keys it read (ALL_KEYS: the whole dict)
        self.took_beside: set[str] = set()  # artifact keys read beside the tests (a lesson's prefetch)
        self.fixtures: dict[str, list[str]] = {}  # nodeid -> the fixtures wider than a test it used
        self._background: set[int] = set()  # idents of the threads a lesson's prefetch started
        self._before: dict[str, str] = {}
        self._reach: dict[str, bool] = {}
        self._digests: dict[str, str] = {}  # source read -> its hash (the staging does not change in a run)
        self._installed: dict[str, bool] = {}  # module name -> whether the grader's environment has it
        self._effects: dict[str, bool] = {}  # staged .py -> whether importing it does more than define
        # What student code left changed in a worker's process during this run, seen there after each
        # request (torch's default device set inside a function a test calls): it reaches every later
        # test of that worker, whatever the test read.
        self.state: set[str] = set()

    def begin(self, nodeid: str, whole: bool, artifacts: dict, fixtures: list[str] | tuple = ()) -> None:
        """``fixtures``: the fixtures wider than one test it uses (their value may hold what another
        test read): it runs again with every other test that uses one of them."""
        self.current = nodeid
        self.reads[nodeid] = {WHOLE} if whole else set()
        self.took[nodeid] = set()
        self.fixtures[nodeid] = sorted(fixtures)
        self._before = _dumps(artifacts)

    def end(self, nodeid: str, artifacts: dict) -> None:
        after = _dumps(artifacts)
        keys = set(after) | set(self._before)
        self.wrote[nodeid] = {k for k in keys if after.get(k) != self._before.get(k)}
        self.current = None

    def artifact(self, key: str) -> None:
        """The running test (or a thread beside the tests) read ``key`` of the artifacts (ALL_KEYS:
        all of them); a read outside any test (the report's) is no test's."""
        if threading.get_ident() in self._background:
            self.took_beside.add(key)
        elif self.current is not None:
            self.took[self.current].add(key)

    def module(self, name: str) -> None:
        """A student module resolved (imported or called into) by the running test."""
        top = name.split(".")[0]
        keys = {top, UNHASHED} if self.reaches(top) else {top}
        if threading.get_ident() in self._background or self.current is None:  # beside the tests
            self.background |= keys
        else:
            self.reads[self.current] |= keys

    def touched(self, notes: list[str]) -> None:
        """What student code reached in the worker during a request, observed there while it ran
        (grader/runtime/guard.py's audit hook): each module loaded or looked for (an import inside a
        function, in a cycle, of a module that does not exist yet) and each staged file opened.  Counted
        for the running test as a read of that module, by its content (None while it does not exist)."""
        for note in notes:
            kind, _, name = note.partition(":")
            if kind == "s":  # student code left this changed in the process (runtime/server.py state_watch)
                self.state.add(name)
                continue
            if kind == "f" and name.endswith(".py"):
                kind, name = "m", name[: -len(".py")]
            if kind == "m" and name and self._maybe_student(name):
                self.module(name)

    def _maybe_student(self, name: str) -> bool:
        """Whether ``name`` is, or could become, one of the submission's modules: staged, or nothing
        installed answers to it (a module an exercise imports where it exists)."""
        if f"{name}.py" in self.files or (self.staging / name).is_dir():
            return True
        if name not in self._installed:
            import importlib.util

            try:
                self._installed[name] = name in sys.builtin_module_names or \
                    importlib.util.find_spec(name) is not None
            except (ImportError, ValueError):
                self._installed[name] = False
        return not self._installed[name]

    def effects(self, name: str) -> bool:
        """Whether the staged file ``name`` runs code at import beyond defining names (state it may
        leave in the worker for every later test, torch.set_default_device(...) at its top)."""
        if name not in self._effects:
            self._effects[name] = import_effects(self.staging / name)
        return self._effects[name]

    def whole(self) -> None:
        """The running test read the staging itself (a path that can reach any file)."""
        self._read(WHOLE)

    def source(self, key: str) -> None:
        """The running test read the source through a SourceView (core/source.py): ``key`` names what."""
        self._read(SOURCE + key)

    def _read(self, key: str) -> None:
        if threading.get_ident() in self._background or self.current is None:
            self.background.add(key)
        else:
            self.reads[self.current].add(key)

    def beside(self, threads: set[int]) -> None:
        """Threads that work beside the tests (a lesson's prefetch): what they resolve goes to the
        tests that read their work."""
        self._background |= threads

    def reaches(self, module: str) -> bool:
        if module not in self._reach:
            self._reach[module] = _reaches(self.staging / f"{module}.py")
        return self._reach[module]

    def hashes(self, modules: set[str]) -> dict[str, str | None]:
        """The content hashes a test's reads stand for: its modules', the data files', or all files."""
        out: dict[str, str | None] = {
            m: self.digest(m) if m.startswith(SOURCE) else self.files.get(f"{m}.py")
            for m in sorted(modules - {WHOLE, UNHASHED})
        }
        if UNHASHED in modules:
            out[UNHASHED] = None
        if WHOLE in modules:
            out[WHOLE] = self.whole_hash
        out["<data>"] = _combined({k: v for k, v in self.files.items() if not k.endswith(".py")})
        return out

    def digest(self, key: str) -> str:
        if key not in self._digests:
            self._digests[key] = read_digest(sources_of(self.staging), key[len(SOURCE) :])
        return self._digests[key]


def _reaches(path: Path) -> bool:
    """Whether the module's code names anything in REACHES (True where it cannot be read or parsed)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return path.exists()  # no such module: nothing of it is read
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in REACH_NAMES:
            return True
        if isinstance(node, ast.Attribute) and node.attr in REACH_ATTRS:
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and not (len(node.args) >= 2 and isinstance(node.args[1], ast.Constant))
        ):  # a name not spelled out
            return True
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(name.split(".")[0] in REACH_MODULES for name in names):
            return True
    return False


# Decorators that only wrap or mark what they decorate (a bare name, an attribute, or called with constants).
PURE_DECORATORS = frozenset({
    "staticmethod", "classmethod", "property", "setter", "getter", "deleter", "abstractmethod", "dataclass",
    "cache", "lru_cache", "cached_property", "wraps", "total_ordering", "no_grad", "inference_mode",
    "enable_grad", "overload", "final", "override",
})


MAIN_GUARDS = ("__name__ == '__main__'", "'__main__' == __name__")


def _pure_decorator(node: ast.expr) -> bool:
    if isinstance(node, ast.Call):
        args = [*node.args, *(k.value for k in node.keywords)]
        return _pure_decorator(node.func) and all(isinstance(a, ast.Constant) for a in args)
    if isinstance(node, ast.Name):
        return node.id in PURE_DECORATORS
    return isinstance(node, ast.Attribute) and node.attr in PURE_DECORATORS


def _statement_effects(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass)):
        return False
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):  # its body runs when called, not now
        a = stmt.args
        defaults = [*a.defaults, *(d for d in a.kw_defaults if d is not None)]
        return not all(map(_pure_decorator, stmt.decorator_list)) or any(
            isinstance(n, ast.Call) for d in defaults for n in ast.walk(d))
    if isinstance(stmt, ast.ClassDef):
        heads = [*stmt.bases, *(k.value for k in stmt.keywords)]
        return (not all(map(_pure_decorator, stmt.decorator_list))
                or any(isinstance(n, ast.Call) for h in heads for n in ast.walk(h))
                or any(_statement_effects(s) for s in stmt.body))
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        value = stmt.value
        plain = all(isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Starred, ast.Store))
                    for t in targets for n in ast.walk(t))
        return not plain or (value is not None and any(
            isinstance(n, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr))
            for n in ast.walk(value)))
    if isinstance(stmt, ast.Expr):  # a docstring, a bare name: nothing runs
        return not isinstance(stmt.value, (ast.Constant, ast.Name))
    if isinstance(stmt, ast.If) and ast.unparse(stmt.test) in MAIN_GUARDS:
        return any(_statement_effects(s) for s in stmt.orelse)  # its body runs as a script, never at import
    if isinstance(stmt, (ast.If, ast.Try)):  # `if TYPE_CHECKING:`, `try: import x except ImportError:`
        parts: list[ast.stmt] = [*stmt.body, *stmt.orelse]
        if isinstance(stmt, ast.Try):
            parts += [*stmt.finalbody, *(s for h in stmt.handlers for s in h.body)]
        test = stmt.test if isinstance(stmt, ast.If) else None
        return (test is not None and any(isinstance(n, ast.Call) for n in ast.walk(test))) or any(
            _statement_effects(s) for s in parts)
    return True  # a loop, a with, a del, a global, an assert ...: code that runs at import


def import_effects(path: Path) -> bool:
    """Whether importing the module at ``path`` runs code beyond defining its names (True where it
    cannot be parsed; False where it does not exist: nothing of it runs)."""
    try:
        tree = ast.parse(path.read_bytes())
    except OSError:
        return False
    except (SyntaxError, ValueError):
        return True
    return any(_statement_effects(stmt) for stmt in tree.body)


def _combined(files: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()


ALL_KEYS = "*"  # an artifacts read of the whole dict (its keys, its length, a copy)


class Artifacts(dict):
    """The artifacts the suites share (the plugin's ``artifacts`` fixture): a dict that tells the
    session's recorder which keys the running test read, so that only the tests that read or wrote the
    same key run again together.  Reads of the whole dict count as reads of every key."""

    def _took(self, key: Any) -> None:
        if ACTIVE is not None:
            ACTIVE.artifact(key if isinstance(key, str) else ALL_KEYS)

    def __getitem__(self, key: Any) -> Any:
        self._took(key)
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._took(key)
        return super().get(key, default)

    def __contains__(self, key: Any) -> bool:
        self._took(key)
        return super().__contains__(key)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self._took(key)
        return super().setdefault(key, default)

    def pop(self, key: Any, *default: Any) -> Any:
        self._took(key)
        return super().pop(key, *default)

    def popitem(self) -> tuple[Any, Any]:
        self._took(ALL_KEYS)
        return super().popitem()

    def __iter__(self) -> Any:
        self._took(ALL_KEYS)
        return super().__iter__()

    def __reversed__(self) -> Any:
        self._took(ALL_KEYS)
        return super().__reversed__()

    def __len__(self) -> int:
        self._took(ALL_KEYS)
        return super().__len__()

    def keys(self) -> Any:
        self._took(ALL_KEYS)
        return super().keys()

    def values(self) -> Any:
        self._took(ALL_KEYS)
        return super().values()

    def items(self) -> Any:
        self._took(ALL_KEYS)
        return super().items()

    def copy(self) -> dict:
        self._took(ALL_KEYS)
        return dict(super().items())

    def __eq__(self, other: object) -> bool:
        self._took(ALL_KEYS)
        return super().__eq__(other)

    def __ne__(self, other: object) -> bool:
        self._took(ALL_KEYS)
        return super().__ne__(other)

    def __or__(self, other: Any) -> Any:
        self._took(ALL_KEYS)
        return dict(super().items()) | other

    def __ror__(self, other: Any) -> Any:
        self._took(ALL_KEYS)
        return other | dict(super().items())

    def __repr__(self) -> str:
        self._took(ALL_KEYS)
        return super().__repr__()

    __hash__ = None  # as a dict's


def _dumps(artifacts: dict) -> dict[str, str]:
    out = {}
    for key, value in dict.items(artifacts):  # not a read of the running test's
        try:
            out[key] = json.dumps(value, sort_keys=True, default=repr)
        except (TypeError, ValueError):
            out[key] = repr(value)
    return out


class Reuse:
    """The store of one folder's last warm grade, and what this run takes from it."""

    def __init__(self, store: Store, key: str, recorder: Recorder, reuse_none: bool = False) -> None:
        """``reuse_none``: take nothing from the store (a run graded again after a change of the process
        state, engine/runner.py), only keep this run's results in it."""
        self.store, self.key, self.recorder = store, key, recorder
        self.previous: dict[str, Any] = {}
        self.others: list[dict[str, Any]] = []  # the runs kept under other keys (a check() of one task)
        runs = store.read().get("runs", [])
        if isinstance(runs, list):
            self.others = [r for r in runs if isinstance(r, dict) and r.get("key") != key]
            found = next((r for r in runs if isinstance(r, dict) and r.get("key") == key), {})
            self.previous = {} if reuse_none else found
        self.reused: list[str] = []  # nodeids taken from the store, not run

    def choose(self, nodeids: list[str]) -> set[str]:
        """Which of the collected tests (in order) are reused; the rest run."""
        tests = self.previous.get("tests", {})
        if not nodeids or any(n not in tests for n in nodeids):
            return set()
        if self._state_changed():
            return set()
        fresh = {n: self._unchanged(tests[n]) for n in nodeids}
        # Tests that share a module or an artifact run again together (union-find over what they share).
        parent = {n: n for n in nodeids}

        def find(n: str) -> str:
            while parent[n] != n:
                parent[n] = parent[parent[n]]
                n = parent[n]
            return n

        owner: dict[str, str] = {}
        everything: list[str] = []  # tests that read the whole artifacts dict: they share every key
        for n in nodeids:
            shared = [  # a module looked for and not there holds no state to share
                f"m:{m}"
                for m, digest in tests[n]["reads"].items()
                if m not in ("<data>", WHOLE, UNHASHED) and not m.startswith(SOURCE) and digest is not None
            ]
            keys = {*tests[n]["wrote"], *tests[n].get("took", ())}
            if ALL_KEYS in keys:
                everything.append(n)
            shared += [f"a:{a}" for a in keys - {ALL_KEYS}]
            shared += [f"f:{f}" for f in tests[n].get("fixtures", ())]
            for token in shared:
                if token in owner:
                    parent[find(n)] = find(owner[token])
                else:
                    owner[token] = n
        if everything:
            users = everything + [n for token, n in owner.items() if token.startswith("a:")]
            for n in users[1:]:
                parent[find(n)] = find(users[0])
        stale = {find(n) for n in nodeids if not fresh[n]}
        return {n for n in nodeids if find(n) not in stale}

    def _state_changed(self) -> bool:
        """Whether a student module runs code at import beyond defining names, now or in the last run
        (`torch.set_default_device("meta")` at the top of leetcode.py), or the last run saw student code
        leave the worker's process changed (the same inside a function a test calls: Recorder.state):
        what it leaves in the worker reaches every test that runs after it, whatever that test read, and
        which tests those are depends on which run (a reused test does not call it).  Then nothing is
        reused.  A change this run makes first is seen while it runs: the runner then grades again,
        reusing nothing (engine/runner.py)."""
        if not isinstance(self.previous.get("files"), dict) or self.previous.get("state"):
            return True  # the last run saw student code change the process (Recorder.state): the same
        had = self.previous.get("effects", {})
        now = [n for n in self.recorder.files if n.endswith(".py")]
        return any(had.values()) or any(self.recorder.effects(n) for n in now)

    def _unchanged(self, record: dict) -> bool:
        if record.get("outcome") not in REUSABLE or record.get("status") not in (None, *REUSABLE):
            return False
        if UNHASHED in record["reads"]:
            return False
        reads = set(record["reads"]) - {"<data>"}
        return self.recorder.hashes(reads) == record["reads"]

    def merge(self, report: dict, artifacts: dict, reused: set[str]) -> None:
        """Put the reused tests' entries into pytest's report and their artifacts back."""
        tests = self.previous.get("tests", {})
        self.reused = sorted(reused)
        report.setdefault("tests", []).extend({**tests[n]["entry"], "reused": True} for n in self.reused)
        ran_wrote = {k for n, keys in self.recorder.wrote.items() for k in keys}
        for key, value in self.previous.get("artifacts", {}).items():
            if key not in ran_wrote and any(key in tests[n]["wrote"] for n in self.reused):
                dict.__setitem__(artifacts, key, value)

    def save(self, report: dict, artifacts: dict, prefetch_reads: set[str]) -> None:
        """Keep this run's whole set for the next one (signed, atomically, 0600)."""
        old = self.previous.get("tests", {})
        tests: dict[str, Any] = {}
        for entry in report.get("tests", []):
            n = entry.get("nodeid", "")
            if entry.get("reused"):
                tests[n] = old[n]
                continue
            reads = set(self.recorder.reads.get(n, {WHOLE}))
            took = set(self.recorder.took.get(n, {ALL_KEYS}))
            if n in prefetch_reads:
                reads |= self.recorder.background
                took |= self.recorder.took_beside
            meta = entry.get("metadata") or {}
            tests[n] = {
                "entry": entry,
                "outcome": entry.get("outcome"),
                "status": meta.get("status"),
                "reads": self.recorder.hashes(reads),
                "wrote": sorted(self.recorder.wrote.get(n, ())),
                "took": sorted(took),
                "fixtures": self.recorder.fixtures.get(n, []),
            }
        kept = {k: v for k, v in dict.items(artifacts) if any(k in t["wrote"] for t in tests.values())}
        try:
            files = self.recorder.files
            effects = {n: self.recorder.effects(n) for n in files if n.endswith(".py")}
            run = {"key": self.key, "tests": tests, "artifacts": kept, "files": files, "effects": effects,
                   "state": sorted(self.recorder.state)}
            json.dumps(run, default=repr)
        except (TypeError, ValueError):
            return
        self.store.write({"runs": [*self.others[-(KEEP - 1) :], run]})
