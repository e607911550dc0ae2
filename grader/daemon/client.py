"""`grade`'s side of the warm daemon: hand it this run (argv, environment, stdin/stdout/stderr), or
start one for the next run.

When it is used (``wanted``): an interactive `grade` (stdout a terminal) or GK_DAEMON=1, never under
GK_NO_DAEMON=1 (set by the kit's tests), CI (CI, GITHUB_ACTIONS) or Gradescope, and never for the
hidden suite (--hidden, --hidden-from), --ci or a `grade <command>` (batch): those run cold.  A test
run or a script thus leaves no daemon behind unless it asks for one.

One daemon per user and interpreter serves every folder and lesson.  Every answer has a deadline
(DEADLINE seconds without a line, the daemon says "." every second while it works): a daemon that does
not answer (stopped, wedged) is ended, and the grade runs cold with one sentence saying so.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from grader.core.lang import lang_of
from grader.daemon.place import RuntimeDir, idle_seconds, python_module, socket_name
from grader.sandbox import host

IF_UP = "if-up"  # GK_DAEMON=if-up: served by the user's daemon where one runs, never starting one
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
DEADLINE = 30.0  # seconds without a word from the daemon (it says "." each second): it is stuck
AFTER_SIGNAL = 5.0  # seconds a forwarded signal may take to end the grade before `grade` dies of it
FALLBACK = ("grade: the warm grader did not answer; grading cold",  # (English, Korean): by --lang
            "grade: 상주 채점기가 응답하지 않아 새로 채점합니다")
STUCK = ("grade: the warm grader gave no sign of life for {s:.0f} s (stopped?); it was ended, grading cold",
         "grade: 상주 채점기가 {s:.0f}초 동안 응답이 없어(멈춤?) 끄고 새로 채점합니다")


class Stuck(OSError):
    """The daemon said nothing for DEADLINE seconds."""


def deadline() -> float:
    try:
        return float(os.environ.get("GK_DAEMON_DEADLINE", DEADLINE))
    except ValueError:
        return DEADLINE


def wanted(environ: dict[str, str] | None = None, interactive: bool | None = None) -> bool:
    env = os.environ if environ is None else environ
    if any(env.get(name) for name in ("GK_NO_DAEMON", "CI", "GITHUB_ACTIONS", "GRADESCOPE")):
        return False
    if env.get("GK_DAEMON", "").lower() in ("0", "no", "false", "off"):
        return False
    if Path("/autograder").is_dir():  # Gradescope's container
        return False
    if env.get("GK_DAEMON"):
        return True
    return sys.stdout.isatty() if interactive is None else interactive


def _peer(sock: socket.socket) -> tuple[int, int]:
    pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                         struct.calcsize("3i")))
    return pid, uid


def _connect(folder: RuntimeDir, name: str) -> socket.socket | None:
    """A connection to the user's daemon: through the checked folder, to a process of this user's."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(folder.address(name))
        if _peer(sock)[1] != os.getuid():
            raise OSError("not this user's daemon")
    except OSError:
        sock.close()
        return None
    return sock


class Lines:
    """The daemon's answer, line by line, each within the deadline; its "." lines only say it is alive."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.buffer = sock, b""
        self.heard = time.monotonic()  # when the daemon last said anything
        self.signalled: float | None = None  # when a signal was forwarded: it must end the grade soon

    def next(self) -> str:
        self.sock.settimeout(0.25)  # short waits: a forwarded signal shortens the deadline meanwhile
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                if line != b".":
                    return line.decode().strip()
            try:
                chunk = self.sock.recv(1 << 10)
            except TimeoutError:
                now = time.monotonic()
                if now - self.heard > deadline() or (
                        self.signalled is not None and now - self.signalled > AFTER_SIGNAL):
                    raise Stuck("no answer") from None
                continue
            if not chunk:
                raise OSError("the daemon hung up")
            self.heard = time.monotonic()
            self.buffer += chunk


def _forget(folder: RuntimeDir, name: str) -> None:
    stem = name.rsplit(".", 1)[0]
    for leftover in (name, f"{stem}.pid", *folder.names(f"{stem}.reuse")):
        folder.unlink(leftover)


def _end(sock: socket.socket, folder: RuntimeDir, name: str) -> None:
    """End a daemon that gave no sign of life (SIGKILL works on a stopped one; its graders follow it,
    their channel to it closed, grader/sandbox/host.py), and forget its files."""
    try:
        pid, uid = _peer(sock)
        if uid == os.getuid() and pid > 0:
            os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    _forget(folder, name)


def serve(argv: list[str], key: list[str], entry: str) -> int | None:
    """`grade argv` graded by the user's daemon: its exit status, or None where there is no daemon
    or it refused (then grade cold).  A daemon that accepted and then failed prints one line."""
    ko = lang_of(argv) == "ko"
    try:
        folder = RuntimeDir()
    except OSError:
        return None
    name = socket_name(key)
    with folder:
        sock = _connect(folder, name)
        if sock is None:
            if folder.exists(name):  # a daemon that died without its teardown (killed): say so, once
                print(FALLBACK[ko], file=sys.stderr)
                _forget(folder, name)
            return None
        accepted = False
        lines = Lines(sock)
        try:
            socket.send_fds(sock, [b"G"], [0, 1, 2])
            sock.sendall(json.dumps(host.request(argv, entry)).encode() + b"\n")
            if lines.next() != "ok":
                return None
            accepted = True
            signalled: list[int] = []

            def forward(signum: int, _frame: Any) -> None:
                signalled.append(signum)
                if lines.signalled is None:
                    lines.signalled = time.monotonic()
                try:
                    sock.sendall(f"sig {signum}\n".encode())
                except OSError:
                    pass

            previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
            try:
                answer = lines.next()
            except Stuck:
                if not signalled:
                    raise
                _end(sock, folder, name)  # the grade did not end on the signal (its daemon stopped)
                answer = f"exit {-signalled[0]}"
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)
            code = int(answer.split()[1])
        except Stuck:
            _end(sock, folder, name)
            print(STUCK[ko].format(s=deadline()), file=sys.stderr)
            return None
        except (OSError, ValueError, IndexError):
            if accepted:  # output may have begun: say so, then grade cold
                print(FALLBACK[ko], file=sys.stderr)
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


def started_note(lang: str) -> str:
    """What the run that starts a warm grader says (in the reader's language)."""
    minutes = max(1, round(idle_seconds() / 60))
    if lang == "ko":
        return (f"grade: 다음 채점을 빠르게 하려고 상주 채점기가 torch를 불러 둔 채 {minutes}분 동안 "
                "기다립니다(모든 폴더가 함께 씀). 끄기: grade --stop-daemon; 쓰지 않기: grade --no-daemon "
                "또는 GK_DAEMON=0")
    return (f"grade: a warm grader now keeps torch loaded for {minutes} min after each grade, to make the "
            "next one fast (one for all your folders); stop it: grade --stop-daemon; never use it: "
            "grade --no-daemon or GK_DAEMON=0")


def start(key: list[str], trees: list[str], lang: str | None = None) -> bool:
    """Start the user's daemon in the background (for the next `grade`); whether one was started.
    ``lang``: say so in that language (stderr)."""
    try:
        with RuntimeDir() as folder:
            name = socket_name(key)
            sock = _connect(folder, name)
    except OSError as exc:
        if lang is not None:  # a planted folder or link turned it off: say why, once per run
            print(f"grade: {exc}; " + ("상주 채점기 없이 채점합니다" if lang == "ko" else
                                      "grading without the warm grader"), file=sys.stderr)
        return False
    if sock is not None:
        sock.close()
        return False
    env = {k: v for k, v in os.environ.items() if k not in ("GK_HIDDEN_KEY",)}
    env["PYTHONSAFEPATH"] = "1"  # and every Python it starts: no folder's code on the path
    try:
        # -P: its working directory (/) is not on sys.path either; nothing of a graded folder is imported.
        subprocess.Popen(
            [*python_module("grader.daemon.server"), "--socket", name,
             *[arg for tree in trees for arg in ("--tree", tree)]],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, env=env, cwd="/",
        )
    except OSError:
        return False
    if lang is not None:
        print(started_note(lang), file=sys.stderr)
    return True


def stop(key: list[str], wait: float = 10.0) -> bool:
    """End the user's daemon; whether there was one."""
    try:
        folder = RuntimeDir()
    except OSError:
        return False
    name = socket_name(key)
    with folder:
        sock = _connect(folder, name)
        if sock is None:
            return False
        try:
            socket.send_fds(sock, [b"S"], [])
            Lines(sock).next()
        except Stuck:
            _end(sock, folder, name)
        except OSError:
            pass
        finally:
            sock.close()
        limit = time.monotonic() + wait
        while folder.exists(name) and time.monotonic() < limit:  # gone once its zygote is
            time.sleep(0.05)
    return True
