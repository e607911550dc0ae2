"""Where a folder's daemon listens, and the stamp of what it was started from.

One daemon per (user, folder, interpreter, grading flags): its socket lies in a private 0700
folder of the user's (``$XDG_RUNTIME_DIR`` where the system gives one, else /tmp/gk-daemon-UID),
named by a hash of that key, so another folder or another lesson never reaches it.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import tempfile
from pathlib import Path

from grader.core.trees import tree_files

IDLE_SECONDS = 15 * 60.0


def idle_seconds() -> float:
    """How long the daemon waits for the next request before it exits (GK_DAEMON_IDLE, seconds)."""
    try:
        return float(os.environ.get("GK_DAEMON_IDLE", IDLE_SECONDS))
    except ValueError:
        return IDLE_SECONDS


def private_dir() -> Path:
    """The user's 0700 folder for daemons' sockets; OSError if it exists but is not the user's own."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime and Path(runtime).is_dir() else Path(tempfile.gettempdir())
    if len(str(base)) > 48:  # a Unix socket's path has at most 107 bytes: the folder, then a hash name
        base = Path("/tmp")
    folder = base / f"gk-daemon-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise OSError(f"{folder} is not a folder of this user's")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(folder, 0o700)
    return folder


def socket_path(folder: str, key: list[str]) -> Path:
    """The socket of the daemon for ``folder`` and ``key`` (the lesson and grading flags)."""
    # The environment and the interpreter it runs, whichever link named it (a `grade` script's python3, a
    # notebook kernel's python): the same daemon serves both.
    python = f"{sys.prefix}\0{os.path.realpath(sys.executable)}"
    digest = hashlib.sha256("\0".join([python, folder, *key]).encode()).hexdigest()[:20]
    return private_dir() / f"{digest}.sock"


def stamp(trees: list[str]) -> str:
    """A hash of every file's path, size and mtime under ``trees`` (the kit, the lesson, its suites):
    a daemon started from other code than is installed now must not grade."""
    h = hashlib.sha256()
    for tree in sorted(set(trees)):
        for path, info in tree_files(tree):
            h.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return h.hexdigest()
