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


def make_server(runtime: dict, sub_dir: str) -> Any:
    """Build the serve loop; returns ``(begin, take)``: begin(sock), then run what ``take`` hands out
    on the main thread until it hands out None (worker.py does, in C)."""
    import _queue
    import _thread
    import functools
    import gc
    import importlib
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

        def run() -> None:
            box.append(_thread.get_ident())
            ready.release()
            serve(sock, partial(tasks.put, None))

        _thread.start_new_thread(run, ())
        ready.acquire()
        set_trusted = guard["install"](box[0], runtime["trusted_roots"], touched, sub_dir)
        runtime.clear()
        gc.collect()  # earlier namespaces' classes, if any, are gone before any student code

    return begin, tasks.get
