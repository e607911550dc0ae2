"""A PEP 578 audit hook that closes the introspection routes from student code to the runtime.

Copied into the worker as ``gk_guard.py`` and installed once the runtime has loaded
everything it needs and before the first student import.  The runtime's serve loop
runs on its own thread and student code on the main thread (grader/runtime/server.py),
so the serve loop's frames are never below a student frame.  From then on:

- on every thread: other threads' frames (``sys._current_frames``), tracing and
  profiling, the garbage collector's object graph, ctypes, unpickling by name,
  hand-built code objects (``code.__new__``, ``marshal.loads`` of anything but a
  genuine import of a .pyc from a read-only tree), ``/proc/<pid>/mem``, and further
  audit hooks (a student hook would see the arguments of the runtime's own events);
- on the serve thread: any frame at all (``sys._getframe``, ``tb_frame``,
  ``gi_frame``...), since student code can run there too (a ``__str__``, a
  ``__class__`` property) while the runtime's frames are below it.

The runtime opts back in only for ``trusted`` regions that run no student code
(reading a traceback's frames for an error report), only on the serve thread.
Hooks cannot be removed once added, and nothing lists them, so the hook and its
state are out of reach.

A denied call raises ``AuditDenied``, a RuntimeError (so ``sys.addaudithook`` drops
a new hook silently) and a ValueError.  Audit hooks are not a sandbox by themselves: the process
isolation stays the boundary; this layer keeps the grader's own code out of reach
inside the worker.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

# Denied on every thread: they reach other threads' frames, the object graph, raw memory or
# hand-made code.
DENIED = frozenset({
    "sys._current_frames", "sys._current_exceptions", "sys.settrace", "sys.setprofile",
    "sys.addaudithook", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "pickle.find_class", "code.__new__",
})
DENIED_PREFIXES = ("ctypes.",)
# Denied on the serve thread only: a frame there leads to the runtime.  Student code runs on
# the main thread, below which lie only the bootstrap's frames (nothing of the runtime), so
# torch's own frame lookups (typing, torch.library, traceback.format_stack) keep working.
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_code"})
_TRACEBACK = types.TracebackType  # bound at load, before any student code can swap `types`


class AuditDenied(RuntimeError, ValueError):
    """What student code gets when it reaches for the grader's runtime."""


def install(serve_thread: int, trusted_roots: list[str], touched: set[str] | None = None,
            sub_dir: str = "") -> Callable[[bool], None]:
    """Add the hook; return ``set_trusted(flag)``, which only the runtime holds.

    ``trusted_roots``: read-only trees whose compiled files (.pyc) importlib may load.
    ``touched``: where the hook notes what student code reached while it ran (the serve loop sends and
    empties it with each reply, for a warm re-grade's reuse, grader/engine/reuse.py): ``m:NAME`` for
    each module loaded or looked for (an import inside a function, one of a module that does not exist
    yet), ``f:NAME`` for each file of the submission (``sub_dir``) opened.
    """
    import _thread
    import importlib._bootstrap_external as external
    import io
    import os
    import re

    get_ident = _thread.get_ident
    proc_mem = re.compile(r"^/proc/(self|thread-self|\d+)(/task/\d+)?/mem$").match
    normpath = os.path.normpath
    roots = tuple({f(r).rstrip("/") + "/"
                   for r in trusted_roots for f in (os.path.realpath, os.path.normpath)})
    # What a genuine import of a .pyc goes through, as it is now (student code can patch it later).
    # private to importlib, absent from typeshed: the very function a .pyc import runs
    compile_bytecode = external._compile_bytecode.__code__  # type: ignore[attr-defined]
    get_code = external.SourceLoader.get_code.__code__
    source_loader, file_get_data = external.SourceFileLoader, external.FileLoader.get_data
    external_globals, real_io = vars(external), external._io if hasattr(external, "_io") else io
    getframe = sys._getframe
    state = [False]
    busy = [0]  # the thread inside the hook's own frame lookups (which raise events too)
    denied, prefixes, frame_attrs = DENIED, DENIED_PREFIXES, FRAME_ATTRIBUTES
    error = AuditDenied
    note = touched.add if touched is not None else None
    sub_prefix = sub_dir.rstrip("/") + "/" if sub_dir else None

    def genuine_pyc() -> bool:
        """marshal.loads called by importlib loading a .pyc that lives in a trusted tree."""
        busy[0] = get_ident()
        try:
            caller = getframe(2)  # 0: here, 1: the hook, 2: who called marshal.loads
            if caller.f_code is not compile_bytecode:
                return False
            loading = caller.f_back
            if loading is None or loading.f_code is not get_code:
                return False
            names = loading.f_locals
            path = names.get("bytecode_path")
            if (type(names.get("self")) is not source_loader or source_loader.get_data is not file_get_data
                    or external_globals.get("_io") is not real_io or type(path) is not str):
                return False
            # normpath, not realpath: lexical, no system calls; the roots are read-only trees,
            # so no link inside them can have been planted by student code.
            return normpath(path).startswith(roots)
        finally:
            busy[0] = 0

    def hook(event: str, args: tuple) -> None:
        me = get_ident()
        if busy[0] == me:
            return
        serving = me == serve_thread
        if state[0] and serving:
            return
        if note is not None and event == "import" and type(args[0]) is str:
            note("m:" + args[0].partition(".")[0])
        if event == "open":
            path = args[0]
            if note is not None and sub_prefix is not None and isinstance(path, str) \
                    and path.startswith(sub_prefix) and "/" not in path[len(sub_prefix):]:
                note("f:" + path[len(sub_prefix):])
            if isinstance(path, str) and path.startswith("/proc/") and proc_mem(path):
                raise error("the grader's sandbox does not allow reading process memory")
            return
        if event == "object.__getattr__":
            if serving and len(args) > 1 and args[1] in frame_attrs:
                raise error(f"the grader's sandbox does not allow reading `{args[1]}`")
            return
        if event == "sys._getframe":
            if serving:
                raise error("the grader's sandbox does not allow `sys._getframe`")
            return
        if event in ("marshal.loads", "marshal.load"):
            if not genuine_pyc():
                raise error(f"the grader's sandbox does not allow `{event}`")
            return
        if event in denied or event.startswith(prefixes):
            raise error(f"the grader's sandbox does not allow `{event}`")

    def set_trusted(flag: bool) -> None:
        state[0] = bool(flag)

    disarm_ctypes()
    sys.addaudithook(hook)
    return set_trusted


# ctypes' own calls (cast, memmove, pointer indexing) raise no audit event, and torch has
# loaded ctypes before any student code: its ready-made raw-memory entry points are replaced
# by ones that refuse.  A stub is made in a namespace of its own, so it leads nowhere.
CTYPES_ENTRY_POINTS = {
    "ctypes": ("cast", "memmove", "memset", "string_at", "wstring_at", "_cast", "_memmove_addr",
               "_memset_addr", "_string_at_addr", "_wstring_at_addr", "_cast_addr", "pythonapi"),
    "_ctypes": ("_cast_addr", "_memmove_addr", "_memset_addr", "_string_at_addr", "_wstring_at_addr",
                "call_function", "call_cdeclfunction", "PyObj_FromPtr", "Py_INCREF", "Py_DECREF"),
}


def disarm_ctypes() -> None:
    space: dict[str, Any] = {"__builtins__": {}, "error": AuditDenied}
    exec("def refuse(*args, **kwargs):\n"
         "    raise error(\"the grader's sandbox does not allow raw memory access\")",
         space)
    for module_name, names in CTYPES_ENTRY_POINTS.items():
        module = sys.modules.get(module_name)
        for name in names if module is not None else ():
            if hasattr(module, name):
                setattr(module, name, space["refuse"])


def frames_of(tb: Any, set_trusted: Callable[[bool], None]) -> list[tuple[str, int]]:
    """(filename, line) of each frame of a traceback, read inside a trusted region.

    Nothing here runs student code: tracebacks, frames and code objects are C types
    whose attributes cannot be overridden.
    """
    out: list[tuple[str, int]] = []
    set_trusted(True)
    try:
        # Only a real traceback: an object standing in for one could run code in here.
        while type(tb) is _TRACEBACK and len(out) < 200:
            out.append((str.__str__(tb.tb_frame.f_code.co_filename), int.__int__(tb.tb_lineno)))
            tb = tb.tb_next
    finally:
        set_trusted(False)
    return out
