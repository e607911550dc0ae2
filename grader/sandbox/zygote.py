"""The grader's side of the zygote (grader/runtime/zygote.py): start it once, have it fork workers.

A worker forked from the zygote skips the fresh interpreter and its ``import torch``
(about a second and a half here) and shares torch's pages with the zygote and its
siblings.  It gets the same sandbox as an executed one (namespaces, filesystem view,
uid, cgroup, rlimits, teardown): the zygote's launcher runs gk_init.py's own code.
Used in namespaces mode; should the zygote fail to start or die, launches fall back
to executing a fresh worker.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

READY_TIMEOUT = 120.0


class ForkedProcess:
    """What Launch needs of a subprocess.Popen, for a launcher the zygote forks (in the background:
    ``pid`` waits for it, the pipes and the worker's connection exist from the start), or for a child
    this process forked itself (``direct``: a batch's graders), which ``poll`` reaps."""

    def __init__(self, stdout: Any, stderr: Any) -> None:
        self.stdout, self.stderr = stdout, stderr
        self.returncode: int | None = None
        self._pid: int | None = None
        self._reaps = False  # our own child: poll() waits for it (the zygote's report their exit)
        self._spawned = threading.Event()
        self._done = threading.Event()

    @classmethod
    def direct(cls, pid: int) -> ForkedProcess:
        """The child ``pid`` that this process forked (os.fork), polled with waitpid."""
        child = cls(None, None)
        child._reaps = True
        child._started(pid)
        return child

    @property
    def pid(self) -> int:
        self._spawned.wait(READY_TIMEOUT)
        return self._pid if self._pid is not None else -1

    def _started(self, pid: int | None) -> None:
        self._pid = pid
        self._spawned.set()
        if pid is None:
            self._exited(122)

    def _exited(self, code: int) -> None:
        self.returncode = code
        self._done.set()

    def poll(self) -> int | None:
        if self._reaps and self.returncode is None and self._pid is not None:
            try:
                pid, status = os.waitpid(self._pid, os.WNOHANG)
            except ChildProcessError:
                self._exited(-1)
            else:
                if pid:
                    self._exited(os.waitstatus_to_exitcode(status))
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self._reaps:
            deadline = time.monotonic() + (timeout if timeout is not None else 1e9)
            while self.poll() is None:
                if time.monotonic() > deadline:
                    raise subprocess.TimeoutExpired(f"pid {self._pid}", timeout or 0)
                time.sleep(0.02)
        elif not self._done.wait(timeout):
            raise subprocess.TimeoutExpired(f"worker {self._pid}", timeout or 0)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        pid = self.pid
        if self.returncode is None and pid > 0:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Connection:
    """One grader process's line to the zygote (a batch's forked graders each open their own)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.owner = os.getpid()
        self.lock = threading.Lock()
        self.cond = threading.Condition()
        self.children: dict[int, ForkedProcess] = {}
        self.replies: list[int] = []
        self.early_exits: dict[int, int] = {}
        self.alive, self.ready = True, False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = self.sock.recv(1 << 16)
            except OSError:
                data = b""
            if not data:
                break
            message = json.loads(data)
            with self.cond:
                if "exit" in message:
                    child = self.children.pop(int(message["exit"]), None)
                    if child is not None:
                        child._exited(int(message["code"]))
                    else:  # gone before its spawner took the pid (a child that fails at once)
                        self.early_exits[int(message["exit"])] = int(message["code"])
                elif "ready" in message:
                    self.ready = True
                elif "spawned" in message:
                    self.replies.append(int(message["spawned"]))
                self.cond.notify_all()
        with self.cond:
            self.alive = False
            orphans = list(self.children.values())
            self.children.clear()
            self.cond.notify_all()
        for child in orphans:  # the zygote died: so did its launchers (PDEATHSIG)
            child._exited(-signal.SIGKILL)

    def _wait(self, what: Any, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.alive and not what() and time.monotonic() < deadline:
                self.cond.wait(max(0.0, deadline - time.monotonic()))
            return bool(what())

    def spawn(self, config: dict, conn: int) -> ForkedProcess:
        """Fork a worker for ``config`` (gk_init's namespaces config), in the background."""
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        conn = os.dup(conn)
        child = ForkedProcess(os.fdopen(out_r, "rb", buffering=0), os.fdopen(err_r, "rb", buffering=0))

        def run() -> None:
            pid = None
            try:
                if self._wait(lambda: self.ready, READY_TIMEOUT):
                    with self.lock:
                        with self.cond:
                            self.replies.clear()
                        socket.send_fds(self.sock, [json.dumps(config).encode()], [conn, out_w, err_w])
                        # as long as a start may take: on a loaded machine (a batch on every core) the
                        # zygote's fork can take well over 30 s, and a worker given up on reads as dead
                        # (exit 122) although it starts a moment later
                        if self._wait(lambda: self.replies, READY_TIMEOUT):
                            with self.cond:
                                pid = self.replies.pop(0)
                                self._register(pid, child)
            except OSError:
                pid = None
            finally:
                for fd in (conn, out_w, err_w):
                    os.close(fd)
                child._started(pid)

        threading.Thread(target=run, daemon=True).start()
        return child

    def _register(self, pid: int, child: ForkedProcess) -> None:
        """(Under ``cond``.) ``child`` gets the exit of ``pid``, even one that came already."""
        if pid in self.early_exits:
            child._exited(self.early_exits.pop(pid))
        else:
            self.children[pid] = child

    def host(self, fds: list[int]) -> ForkedProcess | None:
        """Have the zygote fork a grader on ``fds`` (stdin, stdout, stderr, its socket); None if it
        cannot.  Its ``wait()`` gives the exit status (negative: killed by that signal).

        Sent without waiting for "ready": the zygote forks it as soon as torch is imported."""
        child = ForkedProcess(None, None)
        with self.lock:
            with self.cond:
                self.replies.clear()
            try:
                socket.send_fds(self.sock, [json.dumps({"host": 1}).encode()], fds)
            except OSError:
                return None
            if not self._wait(lambda: self.replies, READY_TIMEOUT):
                return None
            with self.cond:
                pid = self.replies.pop(0)
                self._register(pid, child)
        child._started(pid)
        return child


def _connect(path: str) -> Connection | None:
    """This process's own connection to the zygote listening at ``path`` (made once per process)."""
    mine = _CONNECTIONS.get(os.getpid())
    if mine is not None and mine.alive:
        return mine
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        return None
    _CONNECTIONS[os.getpid()] = mine = Connection(sock)
    return mine


class Adopted:
    """The zygote as a grader it forked sees it (grader/sandbox/host.py): its parent, started by `grade`."""

    def __init__(self, path: str, pid: int) -> None:
        self.path, self.pid = path, pid

    def connect(self) -> Connection | None:
        return _connect(self.path)

    def running(self) -> bool:
        try:
            os.kill(self.pid, 0)
        except OSError:
            return False
        return True


def adopt(path: str, pid: int) -> None:
    """In a grader the zygote forked: workers come from that zygote (never a second one)."""
    with _ZYGOTE_LOCK:
        _ADOPTED[:] = [Adopted(path, pid)]


class Zygote:
    """The zygote process, owned by the grader process that started it."""

    def __init__(self, python: str, runtime: Path, env: dict[str, str], scratch: Path) -> None:
        self.scratch = scratch
        self.path = str(scratch / "zygote.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        listener.bind(self.path)
        os.chmod(self.path, 0o600)
        listener.listen(64)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.process = subprocess.Popen(
            [python, "-I", "-X", "utf8", str(runtime / "gk_zygote.py"), "--fd", str(theirs.fileno()),
             "--listen", str(listener.fileno())],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=[theirs.fileno(), listener.fileno()], env=env, cwd="/", start_new_session=True,
        )
        theirs.close()
        listener.close()
        self.starter = Connection(ours)

    def connect(self) -> Connection | None:
        """The connection of this process: the starter's, or a new one in a forked grader."""
        if self.starter.owner == os.getpid():
            return self.starter if self.starter.alive else None
        return _connect(self.path)

    def running(self) -> bool:
        if self.starter.owner == os.getpid():
            return self.process.poll() is None
        # A forked grader (a batch's): not the zygote's parent, so Popen.poll() cannot tell.
        try:
            os.kill(self.process.pid, 0)
        except OSError:
            return False
        return True

    def close(self) -> None:
        try:
            # shutdown, not only close: the reader thread is blocked in recv on this socket,
            # which would keep it open, and the zygote would not see its starter leave.
            self.starter.sock.shutdown(socket.SHUT_RDWR)
            self.starter.sock.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.scratch, ignore_errors=True)


_ZYGOTE: list[Zygote] = []
_ADOPTED: list[Adopted] = []
_CONNECTIONS: dict[int, Connection] = {}
_ZYGOTE_LOCK = threading.Lock()


def get(make_scratch: Any, make_runtime: Any, env: dict[str, str]) -> Connection | None:
    """This process's connection to the zygote, which is started on first use; None where it cannot run."""
    with _ZYGOTE_LOCK:
        if _ADOPTED:  # forked by the zygote: its parent's, or none (execute workers)
            return _ADOPTED[0].connect() if _ADOPTED[0].running() else None
        if _ZYGOTE and _ZYGOTE[0].running():
            return _ZYGOTE[0].connect()
        if _ZYGOTE and _ZYGOTE[0].starter.owner != os.getpid():
            return None  # a forked grader whose batch's zygote is gone: execute workers instead
        _ZYGOTE.clear()
        try:
            scratch = make_scratch("gk-worker-zygote-")
            zygote = Zygote(sys.executable, make_runtime(scratch / "runtime"), env, scratch)
        except OSError:
            return None
        _ZYGOTE.append(zygote)
        return zygote.connect()


def started() -> Zygote | None:
    """The zygote this process started, if it did."""
    with _ZYGOTE_LOCK:
        return _ZYGOTE[0] if _ZYGOTE and _ZYGOTE[0].starter.owner == os.getpid() else None


def close_started() -> None:
    """Stop the zygote this process started (also done at exit)."""
    zygote = started()
    if zygote is not None:
        zygote.close()


@atexit.register
def _close() -> None:
    for zygote in _ZYGOTE:
        if zygote.starter.owner == os.getpid():
            zygote.close()
