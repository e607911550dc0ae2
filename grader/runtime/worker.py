"""The untrusted side: imports the student's modules and answers requests.

Run as ``python -I gk_worker.py --fd N --sub DIR`` from a runtime folder that
holds copies of this file, ``gk_protocol.py``, ``gk_probes.py``, ``gk_server.py`` and
``gk_guard.py`` (see ``grader.runtime``), and the graded lesson's probes where it has
some (``gk_probes_lesson.py``); this file is only the bootstrap, the serve
loop is gk_server.py.  It talks only over the inherited socket ``N``; the
student's prints go to stdout/stderr, which the grader drains and never parses.

Requests (JSON header, tensors as blobs):
  {"op": "call", "target": "embedding.sinusoidal_pe", "args": [...], "kwargs": {...}}
  {"op": "method", "handle": 3, "name": "forward", "args": [...], "kwargs": {...}}
  {"op": "getattr", "handle": 3, "path": "tok.weight"}
  {"op": "probe", "name": "module_summary", "args": [...], "kwargs": {...}}
  {"op": "release", "handle": 3}
Replies: {"ok": true, "value": ...} or {"ok": false, "error": {"type", "message", "where"}}.

Out of the student's reach (server.py and guard.py hold the rest): the runtime's
files are loaded into private namespaces, never modules, so nothing of it is in
``sys.modules`` or importable (``__main__`` is replaced by an empty module, the
runtime folder is never on ``sys.path``); its state lives in closures, not classes
(``__subclasses__`` would list a class, and its methods' ``__globals__`` lead
home); each namespace has its own copy of the builtins as they were at start, so
patching ``builtins`` changes nothing there.  This bootstrap's own globals lie
below every student frame on the main thread: they hold functions and nothing else.
"""

from __future__ import annotations

import os
import sys
from typing import Any

# Modules the probes import, bound as they are at start: a student's sys.modules entry
# or module attribute swapped later does not reach a probe.
PROBE_MODULES = ("torch", "torch.nn", "copy", "typing", "__future__", "torch._subclasses.fake_tensor",
                 "tracemalloc")
# The graded lesson's probes (grader/engine/lesson_api.py ``Lesson.probes``), copied beside gk_probes.py under
# a gk_ name: no student module can take it, and the tamper scan flags a submission that spells it.
LESSON_PROBES = "gk_probes_lesson.py"


def _load(path: str, name: str, builtins_copy: dict) -> dict:
    """Run one runtime file in a fresh namespace with private builtins; no module is left behind."""
    import types

    ns: dict[str, Any] = {"__name__": name, "__builtins__": dict(builtins_copy)}
    with open(path, encoding="utf-8") as fh:
        code = compile(fh.read(), path, "exec", dont_inherit=True)
    # dataclasses look their class's module up while the class is made: an empty stand-in,
    # so their generated methods get its (empty) globals, not this namespace.
    sys.modules[name] = types.ModuleType(name)
    try:
        exec(code, ns)
    finally:
        sys.modules.pop(name, None)
    return ns


def import_torch() -> Any:
    """torch with the worker's thread count, or None where it cannot be imported."""
    try:
        import torch

        torch.set_num_threads(int(os.environ.get("GK_THREADS", "1")))
    except BaseException:
        return None
    return torch


def prepare(here: str, warm: bool = False) -> dict:
    """Load the runtime (torch first, warmed up with ``warm``: ``warm_up``) without serving: what a zygote
    holds before it forks."""
    import builtins
    import importlib

    # `python -I` ignores PYTHONDONTWRITEBYTECODE: no __pycache__ in the student's folder (a
    # later worker would refuse to load it, see guard.py).
    sys.dont_write_bytecode = True
    torch = import_torch()
    if torch is not None and warm:
        _warm_up(torch)
    try:  # the state watch reads numpy's global generator (server.py), whose module numpy imports lazily:
        import numpy.random  # noqa: F401  (imported here, before the view and any student code)
    except ImportError:
        pass
    clean = dict(vars(builtins))
    runtime: dict[str, Any] = {"builtins": clean, "modules": {}, "probes_code": None,
                               "lesson_probes_code": None}
    for name in ("protocol", "guard", "server"):
        runtime[name] = _load(os.path.join(here, f"gk_{name}.py"), f"gk_{name}", clean)
    if torch is not None:
        runtime["protocol"]["_torch"] = (lambda t: lambda: t)(torch)
        for name in PROBE_MODULES:
            try:
                runtime["modules"][name] = importlib.import_module(name)
            except ImportError:
                pass
        runtime["probes_code"] = _compile(os.path.join(here, "gk_probes.py"))
        load_lesson_probes(runtime, here)
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.update(os.path.dirname(os.path.dirname(getattr(m, "__file__", None) or "/nonexistent/x"))
                 for m in runtime["modules"].values())
    runtime["trusted_roots"] = sorted(r for r in roots if r and r != "/" and os.path.isdir(r))
    return runtime


def _compile(path: str) -> Any:
    with open(path, encoding="utf-8") as fh:
        return compile(fh.read(), path, "exec", dont_inherit=True)


def load_lesson_probes(runtime: dict, here: str) -> None:
    """The graded lesson's own probes, where the grader shipped them into the runtime folder ``here``
    (``LESSON_PROBES``; none for a lesson that declares none). A zygote's runtime has none: its forked
    worker loads them from its own runtime folder before it serves (gk_zygote.py ``serve``)."""
    path = os.path.join(here, LESSON_PROBES)
    if runtime["probes_code"] is not None and os.path.isfile(path):
        runtime["lesson_probes_code"] = _compile(path)


def warm_up() -> None:
    """What a zygote does before it forks the first worker that asks for it (``--warm``): ``_warm_up``."""
    torch = import_torch()
    if torch is not None:
        _warm_up(torch)


def _warm_up(torch: Any) -> None:
    """One tiny training step, a meta move and a simulated GPU: what torch imports lazily on
    first use (about 900 modules, torch._dynamo among them) is imported here, once, before any
    student code (and, in the zygote, once for all its workers).  The default generator is
    reseeded as a fresh process has it, so unseeded student code sees what it would anyway."""
    seed, environ = torch.initial_seed(), dict(os.environ)
    nn = torch.nn
    try:
        torch.manual_seed(0)
        layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True)
        model = nn.Sequential(nn.Embedding(5, 8), nn.TransformerEncoder(layer, 1, enable_nested_tensor=False))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        loss = nn.functional.cross_entropy(model(torch.zeros(2, 3, dtype=torch.int64)).reshape(-1, 8),
                                           torch.zeros(6, dtype=torch.int64))
        opt.zero_grad()
        loss.backward()
        opt.step()
        float(loss.detach())
    except Exception:
        pass
    try:  # a step of its own: some torch builds refuse to move a module under FakeTensorMode
        from torch._subclasses.fake_tensor import FakeTensorMode

        with FakeTensorMode(allow_non_fake_inputs=True):
            nn.Linear(2, 2).to("cuda")(torch.zeros(1, 2).to("cuda"))
    except Exception:
        pass
    try:
        nn.Linear(2, 2).to("meta")(torch.zeros(1, 2, device="meta"))
    except Exception:
        pass
    torch.manual_seed(seed)
    os.environ.clear()  # torch's compiler stack sets variables of its own (TORCHINDUCTOR_CACHE_DIR)
    os.environ.update(environ)


def hide_runtime() -> None:
    """Nothing of the runtime in sys.modules, __main__ included, nor on sys.path."""
    import types

    for name in [n for n in sys.modules if n.startswith("gk_")]:
        del sys.modules[name]
    sys.modules["__main__"] = types.ModuleType("__main__")
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.path_importer_cache.pop(here, None)


def undumpable() -> None:
    """PR_SET_DUMPABLE 0: the worker's own children (the same uid at the uid level) can neither ptrace it
    nor read its /proc/PID/mem, nor take its socket to the grader with pidfd_getfd; root (the grader,
    the init helper) still reads its /proc/PID/status. A child it execs is dumpable again, but holds
    nothing of the grader's."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
    except (OSError, AttributeError):
        pass


def main() -> None:
    import argparse
    import collections
    import operator
    import socket

    parser = argparse.ArgumentParser()
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--sub", required=True)
    parser.add_argument("--warm", action="store_true", help="torch warmed up first (torch_warm_up)")
    opts = parser.parse_args()
    undumpable()
    sock = socket.socket(fileno=opts.fd)
    sub_dir = os.path.realpath(opts.sub)
    # torch (and numpy, math...) first, before the student's folder is on the path: even a
    # `torch.py` that got past the allow-list cannot stand in for the real one.
    runtime = prepare(os.path.dirname(os.path.abspath(__file__)), warm=opts.warm)
    begin, take = runtime["server"]["make_server"](runtime, sub_dir + os.sep)
    hide_runtime()
    # The student's folder first, so `from embedding import ...` finds the sibling.
    sys.path.insert(0, sub_dir)
    os.chdir(sub_dir)
    begin(sock)
    # This frame lies below every student frame on the main thread: nothing of the runtime may
    # stay in its locals.  The loop is C (deque, map, methodcaller, iter; not operator.call, which
    # Python 3.10 lacks: Gradescope's default image has 3.10), so the task queue
    # lives only on the value stack, where no frame walk sees it; each task delivers its own
    # result to the serve thread.
    holder = [take]
    del runtime, begin, take, sock, opts, parser, sub_dir
    collections.deque(map(operator.methodcaller("__call__"), iter(holder.pop(), None)), maxlen=0)
    # The serve loop ended (the grader hung up).  Leave without running the student's
    # atexit handlers or finalizers.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
