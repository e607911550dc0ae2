"""`grade`'s side of the warm daemon: hand it this run (argv, environment, stdin/stdout/stderr), or
start one for the next run.

When it is used (``wanted``): an interactive `grade` (stdout a terminal) or GK_DAEMON=1, never under
GK_NO_DAEMON=1 (set by the kit's tests), CI (CI, GITHUB_ACTIONS) or Gradescope, and never for the
hidden suite (--hidden, --hidden-from), --ci or a `grade <command>` (batch): those run cold.  A test
run or a script thus leaves no daemon behind unless it asks for one.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from grader.core.lang import lang_of
from grader.daemon.place import socket_path
from grader.sandbox import host

IF_UP = "if-up"  # GK_DAEMON=if-up: served by the folder's daemon where one runs, never starting one
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
FALLBACK = ("grade: the warm grader did not answer; grading cold",  # (English, Korean): by --lang
            "grade: 상주 채점기가 응답하지 않아 새로 채점합니다")


def wanted(environ: dict[str, str] | None = None, interactive: bool | None = None) -> bool:
    env = os.environ if environ is None else environ
    if any(env.get(name) for name in ("GK_NO_DAEMON", "CI", "GITHUB_ACTIONS", "GRADESCOPE")):
        return False
    if Path("/autograder").is_dir():  # Gradescope's container
        return False
    if env.get("GK_DAEMON"):
        return True
    return sys.stdout.isatty() if interactive is None else interactive


def _connect(path: Path) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        return None
    return sock


def _line(sock: socket.socket) -> str:
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(1 << 10)
        if not chunk:
            raise OSError("the daemon hung up")
        data += chunk
    return data.decode().strip()


def serve(argv: list[str], key: list[str], entry: str) -> int | None:
    """`grade argv` graded by this folder's daemon: its exit status, or None where there is no daemon
    or it refused (then grade cold).  A daemon that accepted and then failed prints one line."""
    try:
        path = socket_path(os.getcwd(), key)
    except OSError:
        return None
    sock = _connect(path)
    if sock is None:
        if path.exists():  # a daemon that died without its teardown (killed): say so, once
            print(FALLBACK[lang_of(argv) == "ko"], file=sys.stderr)
            path.unlink(missing_ok=True)
            path.with_suffix(".pid").unlink(missing_ok=True)
            path.with_suffix(".reuse").unlink(missing_ok=True)
        return None
    accepted = False
    try:
        socket.send_fds(sock, [b"G"], [0, 1, 2])
        sock.sendall(json.dumps(host.request(argv, entry)).encode() + b"\n")
        answer = _line(sock)
        if answer != "ok":
            return None
        accepted = True

        def forward(signum: int, _frame: Any) -> None:
            try:
                sock.sendall(f"sig {signum}\n".encode())
            except OSError:
                pass

        previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
        try:
            answer = _line(sock)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        code = int(answer.split()[1])
    except (OSError, ValueError, IndexError):
        if accepted:  # output may have begun: say so, then grade cold
            print(FALLBACK[lang_of(argv) == "ko"], file=sys.stderr)
        return None
    finally:
        sock.close()
    if code < 0:  # the grader died of a signal: so does this `grade`, as a cold one would
        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        return 128 - code
    return code


def start(key: list[str], trees: list[str]) -> None:
    """Start this folder's daemon in the background (for the next `grade`); nothing if it cannot."""
    try:
        path = socket_path(os.getcwd(), key)
    except OSError:
        return
    if _connect(path) is not None:
        return
    env = {k: v for k, v in os.environ.items() if k not in ("GK_HIDDEN_KEY",)}
    try:
        subprocess.Popen(
            [sys.executable, "-m", "grader.daemon.server", "--folder", os.getcwd(), "--socket", str(path),
             *[arg for tree in trees for arg in ("--tree", tree)]],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, env=env, cwd=os.getcwd(),
        )
    except OSError:
        pass


def stop(key: list[str], wait: float = 10.0) -> bool:
    """End this folder's daemon; whether there was one."""
    try:
        path = socket_path(os.getcwd(), key)
    except OSError:
        return False
    sock = _connect(path)
    if sock is None:
        return False
    try:
        socket.send_fds(sock, [b"S"], [])
        _line(sock)
    except OSError:
        pass
    finally:
        sock.close()
    deadline = time.monotonic() + wait
    while path.exists() and time.monotonic() < deadline:  # gone once its zygote is
        time.sleep(0.05)
    return True
