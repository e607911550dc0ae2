"""`grade` run by a fork of the zygote: one copy of torch for the grader, the zygote and every worker.

Without it a grade holds two: the grader imports torch, and so does the zygote its
workers are forked from (about 280 MiB of private memory each with the CUDA build,
and a second and a half of CPU).  So where workers come from a zygote (namespaces
mode), the `grade` process stays small: it starts the zygote and has it fork the
process that grades (``host`` in grader/runtime/zygote.py), passing its stdin,
stdout and stderr, then waits and hands on its exit status and the signals it gets.

The zygote itself never sees the command line or the environment (where the hidden
archive's key and the course secret live): the forked grader reads them from its
own socket, after the fork.  Workers are forked from the zygote, never from the
grader, so nothing of the grader is in their memory.

``GK_NO_HOST=1`` grades in the `grade` process itself, as on machines without the zygote.
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import traceback
from typing import Any

from grader.sandbox import launch
from grader.sandbox import zygote as zygote_mod

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def wanted(policy: launch.SandboxPolicy) -> bool:
    if os.environ.get("GK_NO_HOST") or not policy.zygote or not hasattr(os, "fork"):
        return False
    try:
        return launch.resolve_isolation(policy) == "namespaces"
    except launch.SandboxUnavailable:
        return False


def _finder_name(finder: Any) -> str:
    kind = finder if isinstance(finder, type) else type(finder)
    return f"{kind.__module__}.{kind.__qualname__}"


def run_hosted(argv: list[str], policy: launch.SandboxPolicy, entry: str) -> int | None:
    """Run `grade argv` in a grader the zygote forks, as ``entry(argv)`` ("module:function", the front
    end's main, imported by name in the fork); its exit status, or None where that cannot be."""
    if not wanted(policy):
        return None
    conn = launch.warm(policy)
    zygote = zygote_mod.started()
    if conn is None or zygote is None:
        return None
    ours, theirs = socket.socketpair()
    try:
        child = conn.host([0, 1, 2, theirs.fileno()])
    except OSError:
        child = None
    finally:
        theirs.close()
    if child is None:
        ours.close()
        return None
    payload = {**request(argv, entry), **zygote_fields(zygote)}

    def forward(signum: int, _frame: Any) -> None:
        child.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
    try:
        ours.sendall(json.dumps(payload).encode() + b"\n")
        while True:
            try:
                code = child.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:  # signals are handled between waits
                continue
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        ours.close()
    if code < 0:  # killed by a signal: die of the same one, as the grader would have
        zygote_mod.close_started()
        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        return 128 - code
    return code


def request(argv: list[str], entry: str) -> dict[str, Any]:
    """What a forked grader needs to become this `grade argv` (also sent to a warm daemon, grader/daemon/)."""
    return {
        "module": __name__, "entry": entry, "argv": argv, "prog": sys.argv[0],
        "sys_path": [os.path.abspath(p) if p else os.getcwd() for p in sys.path],  # the fork starts in /
        "env": dict(os.environ), "cwd": os.getcwd(), "finders": [_finder_name(f) for f in sys.meta_path],
        "dont_write_bytecode": sys.dont_write_bytecode,
        "safe_path": bool(getattr(sys.flags, "safe_path", False)),  # sys.path[0] is no implicit folder
    }


def zygote_fields(zygote: zygote_mod.Zygote) -> dict[str, Any]:
    """The part of the request only the zygote's owner knows."""
    return {"zygote": {"path": zygote.path, "pid": zygote.process.pid},
            "namespaces": list(launch.namespaces_status())}


REUSE = "reuse"  # a request's field the warm daemon alone sets: its store of reused results (engine/reuse.py)
# That store, as the daemon that forked this grader named it ({"dir", "name", "secret"}), or None: a cold
# grade (a `grade` of its own, --no-daemon, CI, a batch) has none, whatever its environment says.
reuse_store: dict[str, str] | None = None
SPARE = "spare"  # a request's field: fork the grader now, its request comes later (grader/daemon/server.py)
SPARE_KEYS = ("module", "entry", "prog", "sys_path", "env", "cwd", "finders", "dont_write_bytecode")


def spare_signature(payload: dict[str, Any]) -> str:
    """What a spare grader was made for: a request that differs only in its command line may use it."""
    return json.dumps({k: payload.get(k) for k in SPARE_KEYS}, sort_keys=True)


def hosted(payload: dict[str, Any], channel: socket.socket) -> int:
    """In the forked grader: become the `grade` that asked, run its command, return its exit status."""
    import locale
    import tempfile

    global reuse_store
    if payload.get(SPARE):
        request = _spare(payload, channel)
        if request is None:
            return 0
        payload = request
    store = payload.get(REUSE)
    reuse_store = {k: str(store[k]) for k in ("dir", "name", "secret")} if isinstance(store, dict) else None
    os.environ.clear()
    os.environ.update(payload["env"])
    os.chdir(payload["cwd"])
    sys.argv = [payload["prog"], *payload["argv"]]
    sys.dont_write_bytecode = bool(payload["dont_write_bytecode"])
    tempfile.tempdir = None
    try:
        locale.setlocale(locale.LC_CTYPE, "")
    except locale.Error:
        pass
    # The zygote runs `python -I`: drop finders its site hooks installed that `grade` lacks (a release
    # beside an editable install of the instructor copy must not see that copy).
    keep = set(payload["finders"])
    sys.meta_path[:] = [f for f in sys.meta_path if _finder_name(f) in keep]
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(line_buffering=stream.isatty())  # type: ignore[union-attr]  # TextIO to typeshed; a TextIOWrapper here
        except (AttributeError, OSError, ValueError):
            pass
    launch.assume_namespaces_status((payload["namespaces"][0], payload["namespaces"][1]))
    zygote_mod.adopt(payload["zygote"]["path"], int(payload["zygote"]["pid"]))

    def watch() -> None:  # `grade` is gone (killed): so is this grade, as if it had run in-process
        try:
            while channel.recv(1 << 12):
                pass
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()
    try:
        module, _, function = str(payload["entry"]).partition(":")
        code = getattr(importlib.import_module(module), function)(list(payload["argv"]))
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except KeyboardInterrupt:
        traceback.print_exc()
        code = 128 + signal.SIGINT
    except BaseException:  # noqa: BLE001 - printed as the interpreter would, then exit 1
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return code


def _spare(payload: dict[str, Any], channel: socket.socket) -> dict[str, Any] | None:
    """A grader forked before its request (a warm daemon's spare): as the last request's `grade` (its
    environment, folder and finders), import what grading its command line imports (the entry module's
    ``preload``), say "ready", then take the request and its stdin, stdout and stderr.  None: the daemon
    went away instead.  It serves one request, as any forked grader: nothing of one grade is another's."""
    os.environ.clear()
    os.environ.update(payload["env"])
    os.chdir(payload["cwd"])
    sys.argv = [payload["prog"], *payload["argv"]]
    keep = set(payload["finders"])
    sys.meta_path[:] = [f for f in sys.meta_path if _finder_name(f) in keep]
    try:
        module, _, _function = str(payload["entry"]).partition(":")
        preload = getattr(importlib.import_module(module), "preload", None)
        if preload is not None:
            preload(list(payload["argv"]))
    except BaseException:  # noqa: BLE001 - the request then imports (and reports) it itself
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    try:
        channel.sendall(b"ready\n")
        marker, fds, _, _ = socket.recv_fds(channel, 1, 3)
        line = b""
        while marker == b"R" and len(fds) == 3 and not line.endswith(b"\n"):
            chunk = channel.recv(1 << 16)
            if not chunk:
                break
            line += chunk
    except OSError:
        return None
    if not line.endswith(b"\n"):
        for fd in fds:
            os.close(fd)
        return None
    for fd, target in zip(fds, (0, 1, 2), strict=True):
        os.dup2(fd, target)
        os.close(fd)
    return dict(json.loads(line))


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1
