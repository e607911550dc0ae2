"""The daemon: holds one folder's zygote (torch imported and warmed) and has it fork the grader of
each `grade` run there, on that run's own stdin, stdout and stderr (passed over the socket).

Started by client.start as ``python -m grader.daemon.server``.  Serves one request at a time, only
to its own user (SO_PEERCRED), only for its folder, never a hidden suite; exits after its idle time,
when the kit, the lesson or the suites change (the stamp, checked at each request), on
`grade --stop-daemon` or SIGTERM, and leaves nothing behind: socket, pid file and zygote go with it.
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
from pathlib import Path
from typing import Any

from grader.daemon.place import idle_seconds, stamp
from grader.sandbox import host, launch
from grader.sandbox import zygote as zygote_mod

# Flags a daemon never serves (the client runs them cold, and so does a daemon asked anyway).
COLD_FLAGS = ("--hidden", "--hidden-from", "--ci", "--no-daemon", "--stop-daemon", "--watch")
SPARE_READY = 120.0  # how long a request waits for the spare grader's imports (a fresh fork would do them)


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


def refuses(payload: dict[str, Any], folder: str) -> str | None:
    """Why this daemon must not serve ``payload``, or None."""
    if payload.get("cwd") != folder:
        return "another folder"
    argv = [str(a) for a in payload.get("argv", [])]
    if any(a == f or a.startswith(f + "=") for a in argv for f in COLD_FLAGS):
        return "a cold-only flag"
    return None


class Daemon:
    def __init__(self, folder: str, sock_path: Path, trees: list[str]) -> None:
        self.folder, self.sock_path, self.trees = folder, sock_path, trees
        self.stamp = stamp(trees)
        self.pid_file = sock_path.with_suffix(".pid")
        self.reuse_file = sock_path.with_suffix(".reuse")  # the last grade's results by what they read
        self.served = 0
        # A grader forked after each grade for the next one, its imports done while the student edits
        # (grader/sandbox/host.py ``_spare``): (the process, its socket, the requests it fits).
        self.spare: tuple[zygote_mod.ForkedProcess, socket.socket, str] | None = None

    def serve(self) -> int:
        conn = launch.warm(launch.SandboxPolicy())
        zygote = zygote_mod.started()
        if conn is None or zygote is None:
            return 1
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_mask = os.umask(0o177)
        try:
            self.sock_path.unlink(missing_ok=True)
            listener.bind(str(self.sock_path))
        finally:
            os.umask(old_mask)
        os.chmod(self.sock_path, 0o600)
        listener.listen(8)
        self.pid_file.write_text(f"{os.getpid()}\n0\n")
        try:
            listener.settimeout(idle_seconds())
            while True:
                try:
                    client, _ = listener.accept()
                except TimeoutError:
                    return 0  # idle
                with client:
                    client.settimeout(None)
                    if not self.one(client, conn, zygote):
                        return 0
        finally:
            listener.close()
            self.drop_spare()
            for leftover in self.reuse_file.parent.glob(self.reuse_file.name + "*"):  # with a grade's .tmp
                leftover.unlink(missing_ok=True)
            self.sock_path.unlink(missing_ok=True)
            self.pid_file.unlink(missing_ok=True)
            zygote_mod.close_started()

    def one(self, client: socket.socket, conn: zygote_mod.Connection, zygote: zygote_mod.Zygote) -> bool:
        """Serve one request; False when the daemon should exit afterwards."""
        fds: list[int] = []
        try:
            if peer_uid(client) != os.getuid():
                return True
            kind, fds, _flags, _addr = socket.recv_fds(client, 1, 3)
            if kind == b"S":
                client.sendall(b"bye\n")
                return False
            payload = json.loads(read_line(client))
            reason = refuses(payload, self.folder)
            stale = stamp(self.trees) != self.stamp
            if stale or not zygote.running():
                client.sendall(b"no stale\n")
                return False
            if reason or len(fds) != 3:
                client.sendall(f"no {reason or 'no streams'}\n".encode())
                return True
            self.run(client, conn, zygote, payload, fds)
            self.served += 1
            self.pid_file.write_text(f"{os.getpid()}\n{self.served}\n")  # the second line: grades served
            return True
        except (OSError, ValueError):
            return True
        finally:
            for fd in fds:
                os.close(fd)

    def run(self, client: socket.socket, conn: zygote_mod.Connection, zygote: zygote_mod.Zygote,
            payload: dict[str, Any], fds: list[int]) -> None:
        # Only what changed runs again (grader/engine/reuse.py): the served grade keeps its results here.
        env = {**payload.get("env", {}), "GK_REUSE_FILE": str(self.reuse_file)}
        request = {**payload, "env": env, **host.zygote_fields(zygote)}
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
                client.sendall(b"no zygote\n")
                return
            child = found
        client.sendall(b"ok\n")
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
                        child.send_signal(int(line[4:]))

        threading.Thread(target=relay, daemon=True).start()
        code = child.wait(timeout=None)
        ours.close()
        try:
            client.sendall(f"exit {code}\n".encode())
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

    def take_spare(self, request: dict[str, Any]) -> tuple[zygote_mod.ForkedProcess, socket.socket] | None:
        """The spare grader, where it was made for a request like this one and is ready (its imports
        done: waited for, as a fresh fork would import the same); else None, the spare gone."""
        if self.spare is None:
            return None
        child, ours, signature = self.spare
        self.spare = None
        if signature == host.spare_signature(request) and child.poll() is None and _ready(ours):
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


def _ready(sock: socket.socket, timeout: float = SPARE_READY) -> bool:
    """Whether the spare said "ready" (within ``timeout``)."""
    line = b""
    sock.settimeout(timeout)
    try:
        while not line.endswith(b"\n"):
            chunk = sock.recv(64)
            if not chunk:
                return False
            line += chunk
    except OSError:
        return False
    finally:
        sock.settimeout(None)
    return line == b"ready\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m grader.daemon.server")
    p.add_argument("--folder", required=True)
    p.add_argument("--socket", required=True)
    p.add_argument("--tree", action="append", default=[])
    args = p.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    os.chdir(args.folder)
    return Daemon(args.folder, Path(args.socket), args.tree).serve()


if __name__ == "__main__":
    sys.exit(main())
