"""The `student` fixture: the only way a test reaches student code."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.core import tamper, testkit
from grader.core.errors import ImportFailed, NotAttempted, StudentProblem, StudentRaised
from grader.core.feedback import Evidence, fail
from grader.core.source import SourceView, sources_of, student_imports
from grader.engine import reuse, withheld
from grader.sandbox.client import Remote, WorkerClient


@dataclass
class Outcome:
    """What a call did: a value, or the exception the student's code raised."""

    value: Any = None
    error: StudentRaised | None = None

    @property
    def raised(self) -> str | None:
        return self.error.type_name if self.error else None


def _stub_raise(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.Raise | None:
    """The ``raise NotImplementedError`` of a body that is only that (a docstring, ``pass``, ``...``
    aside); None for a body with code of its own."""
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    raised = None
    for stmt in body:
        filler = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)  # '...', a string
        if isinstance(stmt, ast.Pass) or filler:
            continue
        target = stmt.exc.func if isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call) else (
            stmt.exc if isinstance(stmt, ast.Raise) else None)
        if isinstance(target, ast.Name) and target.id == "NotImplementedError" and raised is None:
            raised = stmt
            continue
        return None
    return raised if isinstance(raised, ast.Raise) else None


class Student:
    """The suites' ``student`` fixture: the only way a test reaches the submission's code, which runs in a
    sandboxed worker. ``call`` runs a graded name (or calls a ``Remote`` the worker gave back) and returns
    its value; ``attempt`` returns an ``Outcome`` instead of raising the student's exception; ``probe`` runs
    one of the kit's or the lesson's probes beside the student's code; ``sources`` reads the source as
    syntax trees, never run."""

    def __init__(self, client: WorkerClient, review: dict | None = None,
                 probe_modules: tuple[str, ...] = (), home: dict[str, str] | None = None,
                 probe_imports: Mapping[str, tuple[str, ...]] | None = None) -> None:
        self.client = client
        self.probe_modules = probe_modules  # the lesson's modules a probe resolves (lesson_api.Layout)
        self.probe_imports = dict(probe_imports or {})  # a probe's own modules instead (Layout.probe_imports)
        self.home = dict(home or {})  # the lesson's contract: graded name -> its module (Lesson.home_modules)
        self._review = review  # the plugin's scan, made once per submission; else made on first use
        self._seeded: tuple[int, str] | None = None  # (worker generation, draw owner) last seeded
        self._imports: dict[str, list[str]] = {}  # module -> the student modules it imports (from the source)

    def on(self, client: WorkerClient) -> Student:
        """This submission's Student on another worker (a sibling): the same scan, probes and contract."""
        return Student(client, self.review(), probe_modules=self.probe_modules, home=self.home,
                       probe_imports=self.probe_imports)

    @property
    def staging(self) -> Path:
        """The staged files the worker imports: the trusted side reads them with ``ast``, never runs them.
        A test that reads them reads the whole submission (engine/reuse.py)."""
        if reuse.ACTIVE is not None:
            reuse.ACTIVE.whole()
        return self.client.sub_dir

    @property
    def sources(self) -> SourceView:
        """The staged source as syntax trees (read with ``ast`` here, never run), each read recorded: a
        test that reads the source through it reads only the definitions and files it asked for, not
        the whole submission (engine/reuse.py).  Structure checks take it in place of ``staging``."""
        recorder = reuse.ACTIVE
        return SourceView(sources_of(self.client.sub_dir), recorder.source if recorder is not None else None)

    def review(self) -> dict:
        """The tamper scan of the staged source (grader/core/tamper.py), once per submission."""
        if self._review is None:
            self._review = tamper.review(self.client.sub_dir)
        return self._review

    def rests_on_grader(self) -> None:
        """The running test's answer rests on grader code running beside the student's in the worker
        (a probe, or a result the grader's harness made there): for a flagged submission the test
        still runs its check, and its verdict is recorded but withheld for review (engine/withheld.py)."""
        reasons = self.review()["reasons"]
        if reasons:
            withheld.marks().mark(reasons[0])

    def source_shows(self, evidence: Evidence, what: str) -> None:
        """A structural point needs the source itself to show the construct, besides the behaviour.

        The evidence is read from the staged files with ``ast`` (nothing of the student's runs), so it
        withholds nothing by itself: each structural half follows a probe in its test, which does."""
        if not evidence.ok:
            fail(f"{what}: {evidence.en}.", f"{what}: {evidence.ko}.")
        if evidence.en:  # ok, with the grader's own trouble to tell (lesson/structure.py)
            testkit.note(f"{what}: {evidence.en}.", f"{what}: {evidence.ko}.")

    def call(self, name: str | Remote, *args: Any, timeout: float | None = None, **kwargs: Any) -> Any:
        """Call a contract function or class by name; a plain value or a ``Remote`` comes back.

        A class gives back a ``Remote``, the instance living in the worker; call it again through this
        method (``student.call(layer, x)`` is ``layer.call("__call__", x)``, its ``forward``), or use its
        own ``call(method, ...)`` and ``attr(path)``::

            layer = student.call("CausalSelfAttention", 16, 4)   # the student's nn.Module, in the worker
            y = student.call(layer, x)                            # layer(x): a tensor comes back
            w = layer.attr("q_proj.weight")                       # a parameter, copied back
            n = layer.call("extra_repr")                          # any method by name

        Student exceptions are raised here as StudentRaised/NotAttempted/...:
        a test that does not expect one fails with a message naming it.
        """
        if isinstance(name, Remote):  # an object of the student's: calling it is calling its __call__
            self._seed_worker()
            return name.call("__call__", *args, timeout=timeout, **kwargs)
        if not isinstance(name, str):
            raise TypeError(f"student.call takes a graded name (a str such as 'my_function') or a Remote the "
                            f"worker gave back, not a {type(name).__name__}")
        module = self.home.get(name)
        try:
            self.ensure_module(module or name.split(".")[0])
        except ImportFailed as exc:
            # a file that does not import (a loop at module level, a syntax error elsewhere) leaves an
            # untouched stub what it was: not attempted, not a failure of code never written
            stub = None if exc.kind in ("missing", "NotATextFile") else self._stub(module, name)
            if stub is not None:
                raise NotAttempted(f"{name} still raises NotImplementedError", stub) from None
            raise
        self._seed_worker()
        target = f"{module}.{name}" if module else name  # the worker knows no lesson: it is told where
        return self.client.request({"op": "call", "target": target}, args, kwargs, timeout)

    def _stub(self, module: str | None, name: str) -> dict | None:
        """Where ``name``'s definition in ``module``.py still is the stub (read with ``ast``): its body (or
        every method's) only a docstring, ``pass``/``...`` and ``raise NotImplementedError``; None
        otherwise."""
        mod, _, attr = name.rpartition(".") if module is None else (module, "", name)
        found = self.sources.file(f"{mod}.py") if mod else None
        tree = found.tree if found is not None else None
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        node = next((n for n in (tree.body if tree is not None else [])
                     if isinstance(n, kinds) and n.name == attr), None)
        if node is None:
            return None
        bodies = ([m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
                  if isinstance(node, ast.ClassDef) else [node])
        raises = [r for b in bodies if (r := _stub_raise(b)) is not None]
        if not bodies or len(raises) != len(bodies):
            return None
        return {"file": f"{mod}.py", "line": raises[0].lineno, "code": ast.unparse(raises[0])[:120]}

    def ensure_module(self, module: str) -> None:
        """Import ``module``, the student modules it imports first (read from the source, not run).

        An import that hangs or kills the worker then costs its timeout once: the
        modules that import it fail with the same verdict at once instead of
        waiting out the same hang one by one.
        """
        failed = self.client.failed_imports
        self.plan_imports(module)
        if reuse.ACTIVE is not None:  # what this test resolved, and what that imports (engine/reuse.py)
            for name in (module, *self._imports[module]):
                reuse.ACTIVE.module(name)
        for dep in self._imports[module]:
            try:
                self.client.ensure_module(dep)
            except ImportFailed as exc:
                if exc.kind in ("timeout", "crash"):
                    failed[module] = exc
                    raise
                break  # e.g. a SyntaxError: importing `module` reports it in its own words
        self.client.ensure_module(module)

    def plan_imports(self, *modules: str) -> None:
        """Read (ast) which student modules each of ``modules`` imports, once.  A Student used from
        another thread has them read first, in the test thread: CPython 3.11's parser is not
        thread-safe (two threads parsing at once: SystemError "AST constructor recursion depth")."""
        for module in modules:
            if module not in self._imports:
                self._imports[module] = student_imports(self.client.sub_dir, module)

    def _seed_worker(self) -> None:
        """Seed the worker's torch once per test (or fixture): its inits then replay with the inputs."""
        owner = testkit.draw_owner()
        if self._seeded == (self.client.generation, owner):
            return
        try:
            self.client.request({"op": "probe", "name": "seed"}, (testkit.derived(f"{owner}|worker"),), {})
        except StudentProblem:
            return  # the call that follows meets (and reports) whatever is wrong with the worker
        self._seeded = (self.client.generation, owner)

    def attempt(self, name: str | Remote, *args: Any, timeout: float | None = None, **kwargs: Any) -> Outcome:
        """Like call, but a StudentRaised comes back as a value (for error tests)."""
        try:
            return Outcome(value=self.call(name, *args, timeout=timeout, **kwargs))
        except StudentRaised as exc:
            return Outcome(error=exc)

    def attempt_method(self, obj: Remote, method: str, *args: Any, timeout: float | None = None,
                       **kwargs: Any) -> Outcome:
        try:
            return Outcome(value=obj.call(method, *args, timeout=timeout, **kwargs))
        except StudentRaised as exc:
            return Outcome(error=exc)

    def probe(self, name: str, *args: Any, timeout: float | None = None, **kwargs: Any) -> Any:
        """Run a grader-written probe (see grader/runtime/probes.py) inside the worker.

        Its answer comes from grader code running next to student code: for a submission the
        tamper scan flags, the test still runs and its verdict is withheld (``rests_on_grader``).
        """
        if name != "seed":
            self.rests_on_grader()
            for module in self.probe_imports.get(name, self.probe_modules):  # what the probe resolves or runs
                self.ensure_module(module)
            self._seed_worker()
        return self.client.request({"op": "probe", "name": name}, args, kwargs, timeout)
