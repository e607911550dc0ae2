"""Where the user's warm daemon listens, its files, and the stamp of what it was started from.

One daemon per (user, interpreter, sandbox flags), serving every folder and lesson: its
socket lies in a private 0700 folder of the user's (``$XDG_RUNTIME_DIR`` where the system gives one the
user owns, else /tmp/gk-daemon-UID), named by a hash of that key.

That folder is opened once and checked (a folder, the user's, 0700) and everything in it is reached
relative to that descriptor, never through a link (``O_NOFOLLOW``, ``dir_fd``; a socket by
/proc/self/fd/N/name): a folder swapped after the check for one holding links named like the
daemon's files (another user's ``$XDG_RUNTIME_DIR`` kept by ``su`` without ``-``) is never written through.
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
_FLAGS = os.O_NOFOLLOW | os.O_CLOEXEC


def python_module(module: str) -> list[str]:
    """``python -m module`` with no folder on sys.path: the code of its working directory (a graded
    folder, a student's repository with a ``grader/`` package of its own) is never imported."""
    if sys.version_info >= (3, 11):
        return [sys.executable, "-P", "-m", module]
    # 3.10 has no -P: the implicit first entry removed before any import
    run = f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)"
    return [sys.executable, "-c", f"import runpy, sys; del sys.path[0]; {run}"]


def idle_seconds() -> float:
    """How long the daemon waits for the next request before it exits (GK_DAEMON_IDLE, seconds)."""
    try:
        return float(os.environ.get("GK_DAEMON_IDLE", IDLE_SECONDS))
    except ValueError:
        return IDLE_SECONDS


def _base() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        try:
            info = os.stat(runtime)
        except OSError:
            info = None
        # Only a runtime folder of this user's: root keeping another user's (`su` without `-`) uses /tmp.
        if info is not None and stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() \
                and len(runtime) <= 48:  # a Unix socket's path has at most 107 bytes
            return Path(runtime)
    temp = Path(tempfile.gettempdir())
    return temp if len(str(temp)) <= 48 else Path("/tmp")


class RuntimeDir:
    """The user's private folder for the daemon's files, opened once and checked; every file in it
    reached through that descriptor.  OSError where it is not a 0700 folder of this user's."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else _base() / f"gk-daemon-{os.getuid()}"
        if path is None:
            try:
                os.mkdir(self.path, 0o700)
            except FileExistsError:
                pass
        self.fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | _FLAGS)
        try:
            info = os.fstat(self.fd)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                raise OSError(f"{self.path} is not a folder of this user's")
            if stat.S_IMODE(info.st_mode) != 0o700:
                if path is not None:  # reopened by a grader: the daemon set it up; a change is not ours
                    raise OSError(f"{self.path} is not private (mode {stat.S_IMODE(info.st_mode):o})")
                os.fchmod(self.fd, 0o700)
        except OSError:
            os.close(self.fd)
            raise

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> RuntimeDir:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def address(self, name: str) -> str:
        """A path to ``name`` that goes through the checked descriptor (for bind and connect)."""
        return f"/proc/self/fd/{self.fd}/{name}"

    def read(self, name: str) -> bytes | None:
        """``name``'s bytes where it is a regular file of this user's (never through a link), else None."""
        try:
            fd = os.open(name, os.O_RDONLY | _FLAGS, dir_fd=self.fd)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
                return None
            with os.fdopen(fd, "rb", closefd=False) as fh:
                return fh.read()
        finally:
            os.close(fd)

    def write(self, name: str, data: bytes) -> None:
        """Write ``name`` atomically, 0600: a fresh file (O_EXCL, no link followed) renamed over it."""
        tmp = f"{name}.{os.getpid()}.tmp"
        self.unlink(tmp)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FLAGS, 0o600, dir_fd=self.fd)
        try:
            with os.fdopen(fd, "wb", closefd=False) as fh:
                fh.write(data)
        finally:
            os.close(fd)
        try:
            os.replace(tmp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)  # renames a link, never follows it
        except OSError:
            self.unlink(tmp)
            raise

    def unlink(self, name: str) -> None:
        try:
            os.unlink(name, dir_fd=self.fd)
        except OSError:
            pass

    def exists(self, name: str) -> bool:
        try:
            os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except OSError:
            return False
        return True

    def names(self, prefix: str) -> list[str]:
        return [n for n in os.listdir(self.fd) if n.startswith(prefix)]


def private_dir() -> Path:
    """The user's 0700 folder for daemons' sockets; OSError if it exists but is not the user's own."""
    with RuntimeDir() as folder:
        return folder.path


def socket_name(key: list[str]) -> str:
    """The name (in RuntimeDir) of the user's warm grader for ``key`` (the interpreter and the grading
    flags; not the folder: one warm grader serves every folder and lesson of the user's)."""
    # The environment and the interpreter it runs, whichever link named it (a `grade` script's python3, a
    # notebook kernel's python): the same daemon serves both.
    python = f"{sys.prefix}\0{os.path.realpath(sys.executable)}"
    digest = hashlib.sha256("\0".join([python, *key]).encode()).hexdigest()[:20]
    return f"{digest}.sock"


def socket_path(folder: str, key: list[str]) -> Path:
    """The socket of the daemon for ``key`` (``folder`` kept for callers; it no longer names it)."""
    return private_dir() / socket_name(key)


_HASHES: dict[tuple[str, int, int, int, int], bytes] = {}  # (path, inode, size, mtime, ctime) -> content hash


def file_hash(path: str, info: os.stat_result) -> bytes:
    """``path``'s content hash, read again whenever its inode, size, mtime or ctime changed (ctime: an
    edit that puts size and mtime back still moves it), so a daemon re-checks its trees cheaply."""
    key = (path, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    if key not in _HASHES:
        try:
            with open(path, "rb") as fh:
                _HASHES[key] = hashlib.sha256(fh.read()).digest()
        except OSError:
            return b"?"
    return _HASHES[key]


def stamp(trees: list[str]) -> str:
    """A hash of every file's path and content under ``trees`` (the kit, the lessons, their suites), the
    interpreter's and torch's installed record: a daemon started from other code than is installed
    now must not grade.  By content, not size and mtime: an edit keeping both is seen."""
    h = hashlib.sha256()
    for tree in sorted(set(trees)):
        for path, info in tree_files(tree):
            h.update(f"{path}\0".encode())
            h.update(file_hash(path, info))
    h.update(installed_record().encode())
    return h.hexdigest()


def installed_record() -> str:
    """The interpreter (its binary's hash) and torch's installed record (its dist-info RECORD, which
    lists every file's hash): an upgrade under a running daemon changes it."""
    h = hashlib.sha256(sys.version.encode())
    binary = os.path.realpath(sys.executable)
    try:
        h.update(file_hash(binary, os.stat(binary)))
    except OSError:
        h.update(b"?")
    from importlib import metadata

    for name in ("torch", "numpy"):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            h.update(f"{name}\0-".encode())
            continue
        h.update(f"{name}\0{dist.version}\0".encode())
        record = getattr(dist, "_path", None)  # its dist-info folder: RECORD read through the hash cache
        if record is not None and os.path.exists(os.path.join(record, "RECORD")):
            path = os.path.join(record, "RECORD")
            h.update(file_hash(path, os.stat(path)))
        else:
            h.update((dist.read_text("RECORD") or "").encode())
    return h.hexdigest()
