"""The daemon: holds the user's zygote (torch imported, warmed up by its first grade: every grade through
it keeps the warm-up, launch.SandboxPolicy.torch_warm_up) and has it fork the grader of each
`grade` run, on that run's own stdin, stdout and stderr (passed over the socket).

Started by client.start as ``python -P -m grader.daemon.server`` from /, so that no folder's code is on
its path (a graded folder's own ``grader/`` package never shadows the kit).  One per user and
interpreter, shared by every folder and lesson.  Serves one request at a time, only to its own user
(SO_PEERCRED), never a hidden suite; tells the waiting `grade` it is alive every HEARTBEAT seconds (a
stopped daemon is thus seen, client.py); exits after its idle time, when the kit, a lesson, the
interpreter or torch change (the stamp, checked at each request), on `grade --stop-daemon` or SIGTERM,
and leaves nothing behind: socket, pid file, store and zygote go with it.

The store of reused results (grader/engine/reuse.py) is this daemon's: its graders get its name and a
secret made here (never in the environment, never on disk) and keep it signed with that secret.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any

from grader.daemon.place import RuntimeDir, idle_seconds, stamp
from grader.sandbox import host, launch
from grader.sandbox import zygote as zygote_mod

# Flags a daemon never serves (the client runs them cold, and so does a daemon asked anyway).
COLD_FLAGS = ("--hidden", "--hidden-from", "--ci", "--no-daemon", "--stop-daemon", "--watch")
SPARE_READY = 120.0  # how long a request waits for the spare grader's imports (a fresh fork would do them)
SPARE_IDLE = 180.0  # seconds a spare grader waits for the next grade before it goes (GK_DAEMON_SPARE_IDLE)
HEARTBEAT = 1.0  # seconds between the "alive" lines a waiting `grade` gets (client.py DEADLINE)
TERMINATING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def spare_idle() -> float:
    try:
        return float(os.environ.get("GK_DAEMON_SPARE_IDLE", SPARE_IDLE))
    except ValueError:
        return SPARE_IDLE


def peer_uid(conn: socket.socket) -> int:
    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                          struct.calcsize("3i")))
    return uid


def read_line(conn: socket.socket, limit: int = 1 << 24) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(1 << 16)
        if not chunk or len(data) > limit:
            raise OSError("request cut short")
        data += chunk
    return data


def refuses(payload: dict[str, Any]) -> str | None:
    """Why this daemon must not serve ``payload``, or None."""
    if not os.path.isabs(str(payload.get("cwd", ""))):
        return "no folder"
    argv = [str(a).split("=", 1)[0] for a in payload.get("argv", [])]
    # argparse takes an unambiguous prefix (`--hid` for --hidden): any prefix of a cold-only flag is one
    if any(len(a) >= 4 and f.startswith(a) for a in argv if a.startswith("--") for f in COLD_FLAGS):
        return "a cold-only flag"
    return None


def safe_sys_path(payload: dict[str, Any]) -> list[str]:
    """The request's import path less its implicit first entry where that is the graded folder or lies
    in it (a `python -m` or a kernel started there): nothing of the folder is imported by the grader
    before the worker runs it."""
    path = [str(p) for p in payload.get("sys_path", [])]
    cwd = os.path.realpath(str(payload.get("cwd", "/")))
    if path and not payload.get("safe_path"):
        first = os.path.realpath(path[0])
        if first == cwd or first.startswith(cwd.rstrip("/") + "/"):
            path = path[1:]
    return path


def stopped(pid: int) -> bool:
    """Whether ``pid`` is stopped (SIGSTOP, a debugger): it will not answer."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] in ("T", "t")
    except (OSError, IndexError):
        return False


class Daemon:
    def __init__(self, sock_name: str, trees: list[str]) -> None:
        self.dir = RuntimeDir()  # opened once and checked: every file below is reached through it
        self.sock_name, self.trees = sock_name, trees
        self.stamp = stamp(trees)
        stem = sock_name.rsplit(".", 1)[0]
        self.pid_name = f"{stem}.pid"
        self.reuse_name = f"{stem}.reuse"  # the last grades' results by what they read
        self.secret = os.urandom(32).hex()  # signs that store: only this daemon's graders know it
        self.served = 0
        self.send_lock = threading.Lock()
        # A grader forked after each grade for the next one, its imports done while the student edits
        # (grader/sandbox/host.py ``_spare``): (the process, its socket, the requests it fits).
        self.spare: tuple[zygote_mod.ForkedProcess, socket.socket, str] | None = None
        self.spare_since = 0.0

    def serve(self) -> int:
        conn = launch.warm(launch.SandboxPolicy())
        zygote = zygote_mod.started()
        if conn is None or zygote is None:
            return 1
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_mask = os.umask(0o177)
        try:
            self.dir.unlink(self.sock_name)
            listener.bind(self.dir.address(self.sock_name))
        finally:
            os.umask(old_mask)
        listener.listen(8)
        self.dir.write(self.pid_name, f"{os.getpid()}\n0\n".encode())
        try:
            idle_until = time.monotonic() + idle_seconds()
            while True:
                now = time.monotonic()
                if now >= idle_until:
                    return 0  # idle
                # The spare grader (its own copy of the grader's imports) is kept while the student is
                # at work; after SPARE_IDLE seconds without a grade it goes, leaving the zygote alone.
                spare_until = self.spare_since + spare_idle() if self.spare is not None else idle_until
                listener.settimeout(max(0.01, min(idle_until, spare_until) - now))
                try:
                    client, _ = listener.accept()
                except TimeoutError:
                    if self.spare is not None and time.monotonic() >= spare_until:
                        self.drop_spare()
                    continue
                idle_until = time.monotonic() + idle_seconds()
                with client:
                    client.settimeout(None)
                    if not self.one(client, conn, zygote):
                        return 0
        finally:
            listener.close()
            self.drop_spare()
            for leftover in self.dir.names(self.reuse_name):  # with a grade's .tmp
                self.dir.unlink(leftover)
            self.dir.unlink(self.sock_name)
            self.dir.unlink(self.pid_name)
            zygote_mod.close_started()

    def send(self, client: socket.socket, data: bytes) -> None:
        with self.send_lock:
            client.sendall(data)

    def one(self, client: socket.socket, conn: zygote_mod.Connection, zygote: zygote_mod.Zygote) -> bool:
        """Serve one request; False when the daemon should exit afterwards."""
        fds: list[int] = []
        done = threading.Event()
        try:
            if peer_uid(client) != os.getuid():
                return True
            kind, fds, _flags, _addr = socket.recv_fds(client, 1, 3)
            if kind == b"S":
                client.sendall(b"bye\n")
                return False
            payload = json.loads(read_line(client))

            def beat() -> None:  # "alive": a `grade` waiting on a stopped daemon gets none and grades cold
                while not done.wait(HEARTBEAT):
                    try:
                        self.send(client, b".\n")
                    except OSError:
                        return

            threading.Thread(target=beat, daemon=True).start()
            reason = refuses(payload)
            stale = stamp(self.trees) != self.stamp
            if stale or not zygote.running():
                self.send(client, b"no stale\n")
                return False
            if reason or len(fds) != 3:
                self.send(client, f"no {reason or 'no streams'}\n".encode())
                return True
            self.run(client, conn, zygote, payload, fds)
            self.served += 1
            self.dir.write(self.pid_name, f"{os.getpid()}\n{self.served}\n".encode())  # 2nd: served
            return True
        except (OSError, ValueError):
            return True
        finally:
            done.set()
            for fd in fds:
                os.close(fd)

    def run(self, client: socket.socket, conn: zygote_mod.Connection, zygote: zygote_mod.Zygote,
            payload: dict[str, Any], fds: list[int]) -> None:
        # Only what changed runs again (grader/engine/reuse.py): the served grade keeps its results in
        # this daemon's store, signed with its secret; the request's own fields never name one.
        store = {"dir": str(self.dir.path), "name": self.reuse_name, "secret": self.secret}
        request = {**payload, "sys_path": safe_sys_path(payload), **host.zygote_fields(zygote),
                   host.REUSE: store}
        spare = self.take_spare(request)
        if spare is not None:  # forked and its imports done already: it takes the streams over its socket
            child, ours = spare
            try:
                socket.send_fds(ours, [b"R"], fds)
            except OSError:
                child.kill()
                ours.close()
                spare = None
        if spare is None:
            ours, theirs = socket.socketpair()
            try:
                found = conn.host([*fds, theirs.fileno()])
            finally:
                theirs.close()
            if found is None:
                ours.close()
                self.send(client, b"no zygote\n")
                return
            child = found
        self.send(client, b"ok\n")
        ours.sendall(json.dumps(request).encode() + b"\n")

        def relay() -> None:  # the client's signals; its going away kills the grade, as a cold one dies
            buffer = b""
            while True:
                try:
                    chunk = client.recv(1 << 10)
                except OSError:
                    chunk = b""
                if not chunk:
                    child.kill()
                    return
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.startswith(b"sig "):
                        signum = int(line[4:])
                        child.send_signal(signum)
                        if signum in TERMINATING:  # a stopped grader acts on it once it runs again
                            child.send_signal(signal.SIGCONT)

        threading.Thread(target=relay, daemon=True).start()
        code = child.wait(timeout=None)
        ours.close()
        try:
            self.send(client, f"exit {code}\n".encode())
        except OSError:
            pass
        self.fork_spare(conn, request)

    def fork_spare(self, conn: zygote_mod.Connection, request: dict[str, Any]) -> None:
        """Fork the grader of the next request now, on /dev/null until it comes: it imports what grading
        ``request``'s command line imports meanwhile (host.py ``_spare``)."""
        self.drop_spare()
        ours, theirs = socket.socketpair()
        null_in, null_out = os.open(os.devnull, os.O_RDONLY), os.open(os.devnull, os.O_WRONLY)
        try:
            child = conn.host([null_in, null_out, null_out, theirs.fileno()])
        finally:
            theirs.close()
            os.close(null_in)
            os.close(null_out)
        if child is None:
            ours.close()
            return
        try:
            ours.sendall(json.dumps({**request, host.SPARE: True}).encode() + b"\n")
        except OSError:
            child.kill()
            ours.close()
            return
        self.spare = (child, ours, host.spare_signature(request))
        self.spare_since = time.monotonic()

    def take_spare(self, request: dict[str, Any]) -> tuple[zygote_mod.ForkedProcess, socket.socket] | None:
        """The spare grader, where it was made for a request like this one and is ready (its imports
        done: waited for, as a fresh fork would import the same); else None, the spare gone."""
        if self.spare is None:
            return None
        child, ours, signature = self.spare
        self.spare = None
        if (signature == host.spare_signature(request) and child.poll() is None and _ready(ours, child)
                and not stopped(child.pid)):  # a spare stopped after it said "ready" would never take it
            return child, ours
        child.kill()
        ours.close()
        return None

    def drop_spare(self) -> None:
        if self.spare is not None:
            child, ours, _ = self.spare
            self.spare = None
            child.kill()
            ours.close()


def _ready(sock: socket.socket, child: zygote_mod.ForkedProcess, timeout: float = SPARE_READY) -> bool:
    """Whether the spare said "ready" (within ``timeout``; at once False where it is stopped)."""
    line = b""
    sock.settimeout(0.2)
    deadline = timeout / 0.2
    try:
        while not line.endswith(b"\n") and deadline > 0:
            try:
                chunk = sock.recv(64)
            except TimeoutError:
                deadline -= 1
                if stopped(child.pid) or child.poll() is not None:
                    return False
                continue
            if not chunk:
                return False
            line += chunk
    except OSError:
        return False
    finally:
        sock.settimeout(None)
    return line == b"ready\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -P -m grader.daemon.server")
    p.add_argument("--socket", required=True, help="its name in the user's runtime folder (place.py)")
    p.add_argument("--tree", action="append", default=[])
    args = p.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    os.chdir("/")  # no graded folder: each grade goes to its own (grader/sandbox/host.py)
    return Daemon(args.socket, args.tree).serve()


if __name__ == "__main__":
    sys.exit(main())
