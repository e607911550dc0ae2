"""The trusted side of the worker connection: start, call, time out, restart."""

from __future__ import annotations

import selectors
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.core.errors import (
    ImportFailed,
    MissingName,
    NotAttempted,
    StudentRaised,
    WorkerCrashed,
    WorkerTimeout,
)
from grader.runtime import protocol
from grader.sandbox.launch import Launch, SandboxPolicy, launch_worker

# Told what student code reached in the worker during each request (the modules it loaded or looked for,
# the submission's files it opened: grader/runtime/guard.py), where a warm re-grade records what each test
# depended on (grader/engine/reuse.py sets it); called on the thread that made the request.
TOUCHED: Callable[[list[str]], None] | None = None
START_TIMEOUT = 120.0  # starting the worker, sandbox and `import torch` included (not student code)
START_ATTEMPTS = 3  # starts of a worker that ended before it ran anything (exit 122), before one counts


@dataclass
class Remote:
    """An object that lives in the worker: what ``student.call("SomeClass", ...)`` gives back (the student's
    ``nn.Module``, a trained model...). Its data never crosses to the grader unless asked for, and what
    comes back is a copy (tensors, plain values) or another ``Remote``::

        layer = student.call("CausalSelfAttention", 16, 4)   # constructs it in the worker
        y = student.call(layer, x)                            # layer(x), as layer.call("__call__", x)
        w = layer.attr("q_proj.weight")                       # a dotted attribute, copied back
        layer.call("eval")                                    # any method by name

    A student's exception in any of them is raised as ``StudentRaised`` (``student.attempt(layer, x)``
    and ``student.attempt_method(layer, "name", ...)`` return it in an ``Outcome`` instead). The object is
    lost when the worker restarts (a crash, a timeout): using it then raises ``WorkerCrashed``."""

    client: WorkerClient
    id: int
    type_name: str
    generation: int

    def call(self, method: str, *args: Any, timeout: float | None = None, **kwargs: Any) -> Any:
        """Call the object's ``method`` (``"__call__"``: the object itself, an ``nn.Module``'s forward)."""
        return self.client.request({"op": "method", "handle": self._id(), "name": method}, args, kwargs,
                                   timeout)

    def attr(self, path: str, timeout: float | None = None) -> Any:
        """The attribute at the dotted ``path`` (``"out_proj.weight"``, ``"n_heads"``), copied back."""
        return self.client.request({"op": "getattr", "handle": self._id(), "path": path}, (), {}, timeout)

    def as_handle(self) -> protocol.Handle:
        return protocol.Handle(self._id(), self.type_name)

    def _id(self) -> int:
        if self.generation != self.client.generation:
            raise WorkerCrashed("this object was lost when the worker restarted", "")
        return self.id

    def __repr__(self) -> str:
        return f"<student {self.type_name}>"


@dataclass
class OutputTap:
    """Drains a pipe so the worker never blocks on it; keeps only the head."""

    limit: int
    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def drain(self, pipe: Any) -> None:
        while True:
            chunk = pipe.read(65536)
            if not chunk:
                return
            room = self.limit - len(self.data)
            if room > 0:
                self.data += chunk[:room]
            self.dropped += max(0, len(chunk) - max(room, 0))

    def text(self) -> str:
        note = f"\n[... {self.dropped} more bytes of output dropped]" if self.dropped else ""
        return self.data.decode("utf-8", "replace") + note


class WorkerClient:
    """One student submission's worker: lazily started, restarted after a crash."""

    def __init__(self, sub_dir: Path, *, policy: SandboxPolicy | None = None) -> None:
        self.sub_dir = sub_dir
        self.policy = policy or SandboxPolicy()
        self.generation = 0
        self.launch: Launch | None = None
        self.sock: socket.socket | None = None
        self.stream: Any = None
        self.output = OutputTap(self.policy.output_limit)
        self.failed_imports: dict[str, Exception] = {}
        self.imported: set[str] = set()
        self.restarts = 0
        self.ready = False
        self.isolation = self.policy.describe()
        self.started_at = time.monotonic()
        self._siblings: dict[int, WorkerClient] = {}

    # -- life cycle ----------------------------------------------------------
    def start(self) -> None:
        self.prestart()
        self._await_ready()

    def prestart(self) -> None:
        """Launch the worker without waiting: its `import torch` overlaps the grader's own start."""
        parent, child = socket.socketpair()
        self.launch = launch_worker(self.sub_dir, child, self.policy)
        child.close()
        self.isolation = self.launch.isolation
        self.sock = parent
        self.stream = parent.makefile("rwb", buffering=0)
        self.generation += 1
        self.imported = set()
        for pipe in (self.launch.process.stdout, self.launch.process.stderr):
            threading.Thread(target=self.output.drain, args=(pipe,), daemon=True).start()
        self.ready = False

    def _await_ready(self) -> None:
        # Wait for the worker to be up (torch imported) on its own clock, so that a slow
        # machine does not eat the student's import and call budgets. A worker that could not be
        # started (a busy machine: a fork or a namespace refused for a moment) has run nothing of the
        # student's, so it is started again rather than costing the test that asked for it a point.
        for attempt in range(1, START_ATTEMPTS + 1):
            try:
                self._roundtrip({"op": "ping"}, (), {}, START_TIMEOUT)
                break
            except WorkerCrashed as exc:
                if not exc.never_started or attempt == START_ATTEMPTS:
                    raise
                time.sleep(0.5 * attempt)
                self.prestart()
        self.ready = True

    def _ensure_running(self) -> None:
        if self.launch is None:
            self.start()
        elif not self.ready:
            self._await_ready()

    def sibling(self, index: int = 0) -> WorkerClient:
        """Another worker on the same submission (same policy, output into the same tap), for
        independent work that can run beside this one; stopped with it, not restarted with it."""
        if index not in self._siblings:
            sibling = WorkerClient(self.sub_dir, policy=self.policy)
            sibling.output = self.output
            sibling.prestart()
            self._siblings[index] = sibling
        return self._siblings[index]

    def stop(self) -> None:
        for sibling in self._siblings.values():
            sibling.stop()
        self._siblings.clear()
        self._stop_own()

    def _stop_own(self) -> None:
        if self.launch is None:
            return
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.launch.terminate()
        self.launch = None
        self.sock = None
        self.stream = None

    def _restart(self) -> None:
        self._stop_own()  # siblings (the experiment's, maybe mid-run) keep going
        self.restarts += 1

    def __enter__(self) -> WorkerClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- requests --------------------------------------------------------------
    def ensure_module(self, module: str) -> None:
        """Import a student module once, remembering a failure so later tests fail fast."""
        if module in self.failed_imports:
            raise self.failed_imports[module]
        self._ensure_running()
        if module in self.imported:
            return
        try:
            self._roundtrip({"op": "import", "module": module}, (), {},
                            self._budget(self.policy.import_seconds))
        except StudentRaised as exc:
            if exc.type_name == "ModuleNotFoundError" and f"'{module}'" in exc.message:
                err: Exception = ImportFailed(module, "missing", exc.message, exc.where,
                                              near=near_file(self.sub_dir, module))
            else:
                err = ImportFailed(module, exc.type_name, exc.message, exc.where)
            self.failed_imports[module] = err
            raise err from None
        except WorkerTimeout:
            err = ImportFailed(module, "timeout", f"importing {module}.py did not finish in "
                               f"{self.policy.import_seconds:.0f} s", None)
            self.failed_imports[module] = err
            raise err from None
        except WorkerCrashed as exc:
            err = ImportFailed(module, "crash", f"importing {module}.py ended the worker process "
                               f"({exc.message})", None)
            self.failed_imports[module] = err
            raise err from None
        self.imported.add(module)

    def request(self, header: dict, args: tuple, kwargs: dict, timeout: float | None = None) -> Any:
        budget = self._budget(timeout or self.policy.call_seconds)
        self._ensure_running()
        return self._roundtrip(header, args, kwargs, budget)

    def _budget(self, timeout: float) -> float:
        """A call's wall time, cut to what is left of the whole submission's (policy.submission_seconds)."""
        left = self.policy.submission_seconds - (time.monotonic() - self.started_at)
        if left <= 0:
            raise WorkerTimeout(self.policy.submission_seconds, whole=True)
        return min(timeout, left)

    def _roundtrip(self, header: dict, args: tuple, kwargs: dict, timeout: float) -> Any:
        assert self.stream is not None and self.sock is not None
        blobs: list[bytes] = []
        header = dict(header, args=protocol.encode(list(args), blobs, fallback=_as_handle),
                      kwargs=protocol.encode(dict(kwargs), blobs, fallback=_as_handle))
        try:
            protocol.write_message(self.stream, header, blobs)
            reply, out = self._read_reply(timeout)
        except TimeoutError:
            self._restart()
            raise WorkerTimeout(timeout, _what(header, args)) from None
        except (EOFError, OSError, protocol.ProtocolError) as exc:
            status = self._exit_status()
            self._restart()
            raise WorkerCrashed(str(exc), status) from None
        notes = reply.get("touched")
        if TOUCHED is not None and isinstance(notes, list):
            TOUCHED([str(n) for n in notes])
        if reply.get("ok") is True:
            try:
                return protocol.decode(reply.get("value"), out, self._make_remote)
            except (protocol.ProtocolError, IndexError, ValueError, TypeError) as exc:
                self._restart()
                raise WorkerCrashed(f"the worker answered nonsense: {exc}", "") from None
        error = reply.get("error")
        if not isinstance(error, dict):
            self._restart()
            raise WorkerCrashed("the worker answered nonsense", "")
        raise _error_from(error)

    def _read_reply(self, timeout: float) -> tuple[dict, list[bytes]]:
        assert self.sock is not None
        deadline = time.monotonic() + timeout
        sel = selectors.DefaultSelector()
        sel.register(self.sock, selectors.EVENT_READ)
        try:
            # Wait for the first byte with the deadline, then read the whole message
            # with a socket timeout for what is left of it.
            if not sel.select(max(0.0, deadline - time.monotonic())):
                raise TimeoutError
            self.sock.settimeout(max(0.5, deadline - time.monotonic()))
            try:
                return protocol.read_message(self.stream)
            except TimeoutError:
                raise TimeoutError from None
            finally:
                if self.sock is not None:
                    self.sock.settimeout(None)
        finally:
            sel.close()

    def _exit_status(self) -> str:
        if self.launch is None:
            return ""
        proc = self.launch.process
        try:
            code = proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return ""
        return self.launch.describe_exit(code)

    def _make_remote(self, hid: int, type_name: str) -> Remote:
        return Remote(self, hid, type_name, self.generation)

    def pid(self) -> int | None:
        return self.launch.process.pid if self.launch else None


def _what(header: dict, args: tuple) -> str:
    """The student's call a request made, as the student would write it ("count_primes(997)"): its
    arguments shown where they are short plain values, "..." otherwise."""
    op = header.get("op")
    name = str(header.get("target") if op == "call" else header.get("name") if op == "method" else "")
    if op == "import":
        return f"import {header.get('module')}"
    if not name or op not in ("call", "method"):
        return ""
    name = name.rpartition(".")[2] if op == "call" else name
    if name == "__call__":
        name = "forward"
    shown = [repr(a) for a in args if isinstance(a, (int, float, str, bool)) and len(repr(a)) <= 20]
    inner = ", ".join(shown) if len(shown) == len(args) else "..."
    return f"{name}({inner})"


def near_file(folder: Path, module: str) -> str | None:
    """A .py file in ``folder`` named close to ``module`` (embeddings.py, Embedding.py for embedding), the
    name a student most likely meant; None where there is none."""
    import difflib

    try:
        names = sorted(p.name for p in folder.glob("*.py") if not p.name.startswith("gk_"))
    except OSError:
        return None
    by_case = [n for n in names if n.lower() == f"{module}.py".lower() and n != f"{module}.py"]
    close = by_case or difflib.get_close_matches(f"{module}.py", names, n=1, cutoff=0.8)
    return close[0] if close else None


def _as_handle(value: Any) -> protocol.Handle:
    if isinstance(value, Remote):
        return value.as_handle()
    raise protocol.ProtocolError(f"cannot send a value of type {type(value).__name__}")


def _error_from(error: dict) -> Exception:
    kind = str(error.get("type", "Exception"))
    message = str(error.get("message", ""))
    where = error.get("where") if isinstance(error.get("where"), dict) else None
    if kind == "MissingName":
        return MissingName(message)
    if error.get("not_implemented") is True:
        return NotAttempted(message, where, code_below=error.get("code_below") is True)
    bases = [str(b) for b in error.get("bases", [])][:10] if isinstance(error.get("bases"), list) else None
    return StudentRaised(kind, message, where, [str(f) for f in error.get("frames", [])][:5], bases)

