"""The worker's serve loop, out of the student's reach (copied into the worker as ``gk_server.py``).

Loaded by gk_worker.py into a private namespace, never a module.  The loop runs on
its own thread; every request that can run student code is handed to the main
thread as a task built from C-level ``functools.partial`` objects and functions
defined in a namespace that holds only what they use.  So the frames student code
can walk (its own and those below it on the main thread) lead to nothing of the
runtime, and no object it is given carries ``__globals__`` or a closure that does.

Probes run in a fresh namespace per call (the probes source executed anew, with
its own copy of the builtins as they were at start and the modules as they were
at start), so whatever student code does to one probe's namespace is gone by the
next.  The kit's probes are looked up first, then the graded lesson's (its own
file, its own namespace).
"""

from __future__ import annotations

import os
from typing import Any

MAX_MESSAGE = 2000

# The code that runs on the main thread, around student code.  The serve thread makes every
# function of it afresh for each task, in a fresh namespace that holds only what it uses: a
# student frame that walks up finds the current task's objects and nothing that outlives it.
# The main thread's loop itself is C (see worker.py): the task queue is on no Python frame.
MAIN_THREAD_CODE = '''
def task(target, box, done):
    def run():
        try:
            box.append((True, target()))
        except BaseException as exc:
            box.append((False, exc))
        finally:
            done.release()
    return run


def call(resolve, target, args, kwargs):
    return resolve(target)(*args, **kwargs)


def method(obj, name, args, kwargs):
    return getattr(obj, name)(*args, **kwargs)


def getpath(obj, path):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def resolve(target):
    # The trusted side names the module of a graded name (engine/student.py, from the lesson's contract);
    # a bare name is looked for in the module of that name.
    if "." in target:
        module_name, attr = target.split(".", 1)
    else:
        module_name, attr = target, target
    module = import_module(module_name)
    if not hasattr(module, attr):
        raise missing(f"{module_name}.py does not define `{attr}`")
    return getattr(module, attr)


def probe(name, view, args, kwargs):
    modules = dict(start_modules)

    def bound_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name in modules and (fromlist or "." not in name):
            return modules[name]
        return real_import(name, globals, locals, fromlist, level)

    # The kit's probes first, then the lesson's, each in a namespace of its own: a kit name is always
    # the kit's, and neither file's helpers stand in for the other's.
    fn = None
    for code in (probes_code, lesson_probes_code):
        if code is not None and fn is None:
            ns = {"__builtins__": dict(clean_builtins, __import__=bound_import), "__name__": "gk_probe"}
            exec(code, ns)
            fn = ns.get("probe_" + name)
    if fn is None:
        raise unknown(f"unknown probe {name!r}")
    return fn(view, *args, **kwargs)
'''


# torch's process-wide settings a call can leave changed, read through torch._C's own functions (C: nothing
# a student replaced runs on the serve thread): its global context's flags (the ones `torch.backends` and
# `torch.set_*` write), its per-thread modes and grad mode.  A getter this build lacks, or one that answers
# with something other than a plain value (a pybind enum made anew on each call), is left out (state_watch).
# The random generator is not among them: the grader seeds it before each test's first call (probe_seed).
TORCH_SETTINGS = (
    "get_default_dtype", "_get_default_device", "_len_torch_function_stack", "_len_torch_dispatch_stack",
    "is_grad_enabled", "_is_fwd_grad_enabled", "is_inference_mode_enabled", "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled", "_is_torch_function_enabled", "_is_torch_function_all_disabled",
    "_is_multithreading_enabled", "_is_view_replay_enabled", "_is_any_autocast_enabled",
    "is_autocast_cache_enabled", "_get_deterministic_algorithms", "_get_deterministic_algorithms_warn_only",
    "_get_deterministic_fill_uninitialized_memory", "get_num_threads", "get_num_interop_threads",
    "_get_float32_matmul_precision", "_get_cudnn_enabled", "_get_mkldnn_enabled", "_get_cudnn_deterministic",
    "_get_cudnn_benchmark", "_get_cudnn_allow_tf32", "_get_cublas_allow_tf32",
    "_get_cublas_allow_fp16_reduced_precision_reduction",
    "_get_cublas_allow_bf16_reduced_precision_reduction", "_get_cublas_allow_fp16_accumulation",
    "_get_cpu_allow_fp16_reduced_precision_reduction",
    "_get_onednn_allow_tf32", "_get_mkldnn_deterministic", "_get_nnpack_enabled", "_get_flash_sdp_enabled",
    "_get_mem_efficient_sdp_enabled", "_get_math_sdp_enabled", "_get_cudnn_sdp_enabled",
    "_get_math_sdp_allow_fp16_bf16_reduction", "_get_warnAlways", "_get_backcompat_broadcast_warn",
    "_get_backcompat_keepdim_warn", "_get_autograd_fallback_mode", "_get_qengine",
)


def state_watch(torch: Any) -> Any:
    """What student code may leave in the worker's process for every later test, whatever that test
    reads (issue 49: `torch.set_default_device("meta")` inside a function a test calls): returns
    ``(settings, reset, changed)``.  ``settings`` are C functions to call on the main thread, where
    student code runs (torch keeps its modes and grad mode per thread); ``reset(values)`` takes the state
    as it is (before any student code), ``changed(values)`` names what differs from it since.  A warm
    re-grade reuses nothing from a run where something did (grader/engine/reuse.py).

    Watched, by kind rather than case by case:
    * settings read through their own getters: torch's global context flags, main-thread modes and grad
      mode (TORCH_SETTINGS), every signal's handler, the working folder, the recursion limit, the switch
      interval, the integer string limit, the threads left running, the garbage collector, the trace and
      profile functions, faulthandler, the number of atexit callbacks, the file mode mask;
    * the names of the modules student code is likely to patch (a name replaced or removed): torch, its
      nn, functional, init, optim, autograd, linalg, fft, special, random, backends, backends.mha and
      backends.opt_einsum modules and torch.utils._device, Tensor, Parameter and every class of torch.nn
      and torch.optim (a method patched), builtins, math, os, sys, random, warnings, threading,
      functools, operator, copy, itertools, collections, time and numpy;
    * lists changed in place: the import path, sys.meta_path, sys.path_hooks, the warning filters;
    * sys.modules: a name replaced or removed, or one added that holds no module (a lazily imported
      submodule adds a module: not a change);
    * the environment, Python's and numpy's global random generators.
    Only C functions and identity are used on what student code can reach, so none of its code runs on
    the serve thread."""
    import _random
    import _thread
    import atexit
    import builtins
    import collections
    import copy
    import faulthandler
    import functools
    import gc
    import itertools
    import math
    import operator
    import os
    import random
    import signal
    import sys
    import threading
    import time
    import types
    import warnings

    names = ["the working folder", "the recursion limit", "the switch interval", "the threads running",
             "the garbage collector", "the trace function", "the profile function", "faulthandler",
             "the atexit callbacks"]
    settings: list[Any] = [os.getcwd, sys.getrecursionlimit, sys.getswitchinterval, _thread._count,
                           gc.isenabled, sys.gettrace, sys.getprofile, faulthandler.is_enabled,
                           atexit._ncallbacks]
    if hasattr(sys, "get_int_max_str_digits"):
        names.append("the integer string limit")
        settings.append(sys.get_int_max_str_digits)
    for sig in sorted(signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP}):
        try:
            signal.getsignal(sig)
        except (OSError, ValueError):  # a real-time signal the libc keeps for itself
            continue
        try:
            label = signal.Signals(sig).name
        except ValueError:
            label = f"signal {int(sig)}"
        names.append(f"the {label} handler")
        settings.append(functools.partial(signal.getsignal, sig))
    watched = [builtins, math, os, sys, random, warnings, threading, functools, operator, copy, itertools,
               collections, time]
    numpy = sys.modules.get("numpy")
    if isinstance(numpy, types.ModuleType):
        watched.append(numpy)
    spaces: list[tuple[str, Any]] = [(m.__name__, vars(m)) for m in watched]
    spaces.append(("sys.modules", sys.modules))  # a module stood in for (not one imported since)
    plain = (int, bool, float, str, type(None), *([torch.dtype] if torch is not None else []))
    if torch is not None:
        for name in TORCH_SETTINGS:
            getter = getattr(torch._C, name, None)
            try:  # a getter of this build that answers with a plain value (compared by value)
                usable = callable(getter) and _plain(getter(), plain)
            except Exception:  # noqa: BLE001 - not in this build's form
                usable = False
            if usable:
                names.append(f"torch {name.strip('_')}")
                settings.append(getter)
        # torch.backends' settings kept in Python (the rest are the context's flags above); not cudnn's or
        # cusparselt's modules, which cache the library's version on first use.
        for name in ("nn", "nn.functional", "nn.init", "optim", "autograd", "linalg", "fft", "special",
                     "random", "backends", "backends.mha", "backends.opt_einsum", "utils._device"):
            module = torch
            for part in name.split("."):
                module = getattr(module, part, None)
            if module is not None:
                spaces.append((f"torch.{name}", vars(module)))
        spaces.append(("torch", vars(torch)))
        classes = [torch.Tensor, torch.nn.Parameter, *vars(torch.nn).values(), *vars(torch.optim).values()]
        for cls in dict.fromkeys(c for c in classes if isinstance(c, type)):  # a method patched (forward)
            spaces.append((cls.__name__, cls.__dict__))
    environ = os.environ._data  # type: ignore[attr-defined]  # what os.environ writes through to
    # Lists a call changes in place (an import hook appended, warnings.simplefilter): their items, in order.
    lists: list[tuple[str, Any]] = [("the import path", sys.path), ("sys.meta_path", sys.meta_path),
             ("sys.path_hooks", sys.path_hooks), ("the warning filters", warnings.filters)]
    modules = sys.modules
    module_type = types.ModuleType
    generator, getstate = random._inst, _random.Random.getstate
    legacy = getattr(getattr(getattr(numpy, "random", None), "mtrand", None), "_rand", None)
    is_not = operator.is_not
    base: dict[str, Any] = {}

    def reset(values: tuple) -> None:
        base["settings"] = values
        # What each name is now, in the namespace's order (held: identity is compared).  A name added
        # since comes after them; one replaced keeps its place, one removed shifts the rest.
        base["spaces"] = [tuple(ns.values()) for _, ns in spaces]
        base["environ"] = tuple(environ.values())  # by identity, in order, as the namespaces
        base["lists"] = [tuple(items) for _, items in lists]
        base["modules"] = len(modules)
        base["random"] = getstate(generator)
        base["numpy"] = _numpy_state(legacy)
        base["umask"] = _umask()

    def differs(now: Any, was: Any) -> bool:
        """By value for plain values (and tuples of them) only, else by identity: no student __eq__ or
        __hash__ runs here."""
        if now is was:
            return False
        if not (_plain(now, plain) and _plain(was, plain)):
            return True
        return type(now) is not type(was) or now != was

    def changed(values: tuple) -> list[str]:
        out = [name for name, now, was in zip(names, values, base["settings"], strict=True)
               if differs(now, was)]
        for (name, ns), held in zip(spaces, base["spaces"], strict=True):
            if len(ns) < len(held) or any(map(is_not, ns.values(), held)):
                out.append(f"the names of {name}")
        if len(environ) != len(base["environ"]) or any(map(is_not, environ.values(), base["environ"])):
            out.append("the environment")
        for (name, items), held in zip(lists, base["lists"], strict=True):
            if len(items) != len(held) or any(map(is_not, items, held)):
                out.append(name)
        added = itertools.islice(modules.values(), base["modules"], None)  # a stand-in added, no module
        if not all(issubclass(type(value), module_type) for value in added):
            out.append("the names of sys.modules")
        if getstate(generator) != base["random"]:
            out.append("Python's random generator")
        if _numpy_state(legacy) != base["numpy"]:
            out.append("numpy's random generator")
        if _umask() != base["umask"]:
            out.append("the file mode mask")
        return out

    return tuple(settings), reset, changed


def _plain(value: Any, kinds: tuple) -> bool:
    """Whether ``value`` is of one of ``kinds`` exactly, or a tuple of such values (type identity only)."""
    kind = type(value)
    if kind is tuple:
        return all(any(type(v) is k for k in kinds) for v in value)
    return any(kind is k for k in kinds)


def _umask() -> str | None:
    """The process's file mode mask, as /proc says it (reading it through os.umask would set it)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return line.split()[1]
    except OSError:
        pass
    return None


def _numpy_state(legacy: Any) -> Any:
    """numpy's legacy global generator's state as bytes (numpy's own C methods), or None."""
    if legacy is None:
        return None
    try:
        kind, keys, pos, has_gauss, gauss = legacy.get_state(legacy=True)
        return (kind, keys.tobytes(), pos, has_gauss, gauss)
    except Exception:  # noqa: BLE001 - no numpy generator to watch
        return None


def make_server(runtime: dict, sub_dir: str) -> Any:
    """Build the serve loop; returns ``(begin, take)``: begin(sock), then run what ``take`` hands out
    on the main thread until it hands out None (worker.py does, in C)."""
    import _queue
    import _thread
    import functools
    import gc
    import importlib
    import operator
    import types

    protocol, guard = runtime["protocol"], runtime["guard"]
    encode, decode = protocol["encode"], protocol["decode"]
    read_message, write_message = protocol["read_message"], protocol["write_message"]
    make_handle = protocol["Handle"]
    partial = functools.partial
    # Errors of the request itself, not of the student's code: classes with no methods of
    # their own, so nothing on them leads back here.
    missing = type("MissingName", (Exception,), {})
    unknown = type("ProtocolError", (Exception,), {})
    grader_kinds = {missing: "MissingName", unknown: "ProtocolError"}

    clean = runtime["builtins"]
    main_code = compile(MAIN_THREAD_CODE, "<gk-main>", "exec", dont_inherit=True)
    main_builtins = tuple((n, clean[n]) for n in ("BaseException", "getattr", "hasattr", "dict", "exec"))  # noqa: E501
    tasks: _queue.SimpleQueue[Any] = _queue.SimpleQueue()
    allocate = _thread.allocate_lock

    def fresh() -> dict:
        ns: dict[str, Any] = {
            "__builtins__": dict(main_builtins), "import_module": importlib.import_module,
            "missing": missing, "unknown": unknown, "probes_code": probes_code,
            "lesson_probes_code": lesson_probes_code,
            "clean_builtins": clean_items, "start_modules": start_modules, "real_import": clean["__import__"],
        }
        exec(main_code, ns)
        return ns

    clean_items = tuple(clean.items())
    probes_code = runtime.get("probes_code")
    lesson_probes_code = runtime.get("lesson_probes_code")  # the graded lesson's own (worker.py)
    start_modules = tuple(runtime["modules"].items())

    def on_main(make: Any) -> Any:
        """Run ``make(ns)``'s callable on the main thread, in a fresh namespace; its result or raise."""
        ns = fresh()
        box: list = []
        done = allocate()
        done.acquire()
        tasks.put(ns["task"](make(ns), box, done))
        done.acquire()
        ok, value = box[0]
        if ok:
            return value
        raise value

    table: dict[int, Any] = {}
    counter = [1]

    def put(obj: Any) -> Any:
        hid = counter[0]
        counter[0] += 1
        table[hid] = obj
        return make_handle(hid, type(obj).__name__)

    def get(hid: int) -> Any:
        if hid not in table:
            raise LookupError(f"unknown handle {hid}")
        return table[hid]

    def handle(header: dict, blobs: list[bytes]) -> Any:
        def to_obj(hid: int, type_name: str) -> Any:
            return get(hid)

        args = decode(header.get("args", []), blobs, to_obj)
        kwargs = decode(header.get("kwargs", {"__dict__": []}), blobs, to_obj)
        op = header.get("op")
        if op == "ping":
            return "pong"
        if op == "import":
            on_main(lambda ns: partial(ns["import_module"], str(header["module"])))
            return True
        if op == "call":
            target = str(header["target"])
            return on_main(lambda ns: partial(ns["call"], ns["resolve"], target, tuple(args), dict(kwargs)))
        if op == "method":
            obj, name = get(int(header["handle"])), str(header["name"])
            return on_main(lambda ns: partial(ns["method"], obj, name, tuple(args), dict(kwargs)))
        if op == "getattr":
            obj, path = get(int(header["handle"])), str(header["path"])
            return on_main(lambda ns: partial(ns["getpath"], obj, path))
        if op == "release":
            table.pop(int(header["handle"]), None)
            return None
        if op == "probe":
            name = str(header["name"])
            return on_main(lambda ns: partial(ns["probe"], name, types.SimpleNamespace(resolve=ns["resolve"]),
                                              tuple(args), dict(kwargs)))
        raise unknown(f"unknown op {op!r}")

    frames_of = guard["frames_of"]
    lines: dict[str, list[str]] = {}

    def source_line(filename: str, lineno: int) -> str:
        if filename not in lines:
            try:
                with open(filename, encoding="utf-8", errors="replace") as fh:
                    lines[filename] = fh.read().splitlines()
            except OSError:
                lines[filename] = []
        text = lines[filename]
        return text[lineno - 1].strip() if 0 < lineno <= len(text) else ""

    def raised_by_stub(exc: BaseException) -> bool:
        """Whether the student's own ``raise NotImplementedError`` raised ``exc`` (a stub not yet written):
        its innermost frame is a student file's raise statement. torch's own NotImplementedError (an op a
        device does not support, raised inside torch from a student's finished line) is an ordinary
        failure, not "not attempted"."""
        try:
            frames = frames_of(exc.__traceback__, set_trusted)  # the guard's reading: frames are guarded
            if not frames:
                return True
            filename, lineno = frames[-1]
            if filename.startswith(sub_dir):
                line = source_line(filename, lineno)
                # a notebook cell's code is compiled under a name of the submission that is no file:
                # its line cannot be read, so it keeps the old reading, as code with no file does
                return line.startswith("raise NotImplementedError") or not line
            # raised inside a library's file (torch's own Python code): not the student's stub; code with
            # no file (a cell run from a string) keeps the old reading
            return not os.path.isfile(filename)
        except BaseException:
            return True  # unreadable: as before, a NotImplementedError counts as not attempted

    def code_below(exc: BaseException) -> bool:
        """Whether the student's ``raise NotImplementedError`` that raised ``exc`` has code of its own below
        it in the same block: the stub's raise left above a written body, which never runs (told apart from a
        stub not started). Read from the file's lines: the first line after the statement that is neither
        blank, a comment, nor the statement's own continuation, at the raise's indentation."""
        try:
            frames = frames_of(exc.__traceback__, set_trusted)
            filename, lineno = frames[-1]
            source_line(filename, lineno)
            text = lines.get(filename) or []
            raised = text[lineno - 1]
            indent = len(raised) - len(raised.lstrip())
            for line in text[lineno:]:
                body = line.strip()
                if not body or body.startswith("#") or body[0] in ")]}":
                    continue
                at = len(line) - len(line.lstrip())
                if at > indent:  # the raise's arguments, continued
                    continue
                return at == indent
            return False
        except BaseException:
            return False

    def describe(exc: BaseException) -> dict:
        """Type, message and the deepest student-file line of an exception."""
        kind = grader_kinds.get(type(exc)) or type(exc).__name__
        where = None
        frames = []
        try:
            for filename, lineno in frames_of(exc.__traceback__, set_trusted):
                if filename.startswith(sub_dir):
                    code = source_line(filename, lineno)
                    where = {"file": os.path.basename(filename), "line": lineno, "code": code}
                    frames.append(f"{where['file']}:{lineno}: {code}")
            if isinstance(exc, SyntaxError) and exc.filename and str(exc.filename).startswith(sub_dir):
                where = {"file": os.path.basename(exc.filename), "line": exc.lineno or 0,
                         "code": (exc.text or "").strip()}
        except BaseException:
            pass
        try:
            message = str(exc)
        except BaseException:  # a hostile __str__
            message = "<unprintable message>"
        return {
            "type": str(kind)[:100],
            "message": message[:MAX_MESSAGE],
            "where": where,
            "frames": frames[-5:],
            "not_implemented": (stub := isinstance(exc, NotImplementedError) and raised_by_stub(exc)),
            "code_below": bool(stub) and code_below(exc),
            "bases": [c.__name__ for c in type(exc).__mro__][:10],
        }

    set_trusted = None
    touched: set[str] = set()  # the guard's notes of the modules and files student code reached
    # What student code left in the process for every later test (state_watch): noted with each reply.
    settings, reset_state, state_changed = state_watch(runtime["modules"].get("torch"))
    call_each = functools.partial(map, operator.methodcaller("__call__"))  # operator.call: 3.11+

    def serve(sock: Any, done: Any) -> None:
        try:
            stream = sock.makefile("rwb", buffering=0)
            while True:
                try:
                    header, blobs = read_message(stream)
                except EOFError:
                    return
                out: list[bytes] = []
                try:
                    value = handle(header, blobs)
                    reply = {"ok": True, "value": encode(value, out, fallback=put)}
                except BaseException as exc:  # SystemExit and KeyboardInterrupt from student code too
                    out = []
                    reply = {"ok": False, "error": describe(exc)}
                try:  # the settings read where student code runs: torch keeps some per thread
                    now = on_main(lambda ns: partial(tuple, call_each(settings)))
                    touched.update(f"s:{what}" for what in state_changed(now))
                except BaseException:  # noqa: BLE001 - what it could not read counts as changed
                    touched.add("s:the process state")
                if touched:  # what student code reached meanwhile (guard.py): a warm re-grade's reuse
                    notes = []
                    while touched:  # pop, not a copy: a student thread may still be adding
                        notes.append(touched.pop())
                    reply["touched"] = sorted(notes)
                write_message(stream, reply, out)
        finally:
            done()

    def begin(sock: Any) -> None:
        """Serve on a new thread and install the guard for it; the caller then runs ``loop()``.

        The caller's own frame must hold nothing of the runtime by then: it lies below
        every student frame on the main thread.
        """
        nonlocal set_trusted
        ready = _thread.allocate_lock()
        ready.acquire()
        box: list = []

        based = _thread.allocate_lock()
        based.acquire()

        def run() -> None:
            box.append(_thread.get_ident())
            ready.release()
            based.acquire()  # the state as student code finds it is taken (below) before any request
            serve(sock, partial(tasks.put, None))

        _thread.start_new_thread(run, ())
        ready.acquire()
        set_trusted = guard["install"](box[0], runtime["trusted_roots"], touched, sub_dir)
        runtime.clear()
        gc.collect()  # earlier namespaces' classes, if any, are gone before any student code
        reset_state(tuple(call_each(settings)))  # on the main thread, as each request's
        based.release()

    return begin, tasks.get
