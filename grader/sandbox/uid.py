"""The ``uid`` level: root without namespaces (Docker's defaults, Gradescope, many CI containers).

Docker's default seccomp profile refuses ``unshare``/``setns``/``clone(CLONE_NEW*)``, so no
filesystem view can be built; but ``CAP_SETUID``/``CAP_SETGID``/``CAP_KILL``/``CAP_CHOWN``
are in Docker's default set.  The worker therefore runs as a fresh unprivileged uid and
gid (no groups, no capabilities, ``no_new_privs``; grader/runtime/init.py drops them), and
what it must not touch is kept from it by permission bits alone:

* ``seal``: the kit, its hidden suite and solutions, ``--out`` lose their "other" bits, so
  a uid that is neither owner nor in the group can neither list nor read nor write them
  (the Python installation is left alone where it lies inside one of them);
* ``stage``: the worker reads a copy of the staging folder owned by root and its own group
  (0750/0640), under a 0711 scratch folder it can cross but not list;
* ``private_tmp``: its only writable folder, 0700 and owned by its uid;
* ``kill_uid``: teardown signals every process of the uid from a process of that uid
  (``kill(-1)`` is atomic: a fork bomb cannot outrun it), until none is left;
* ``remove_leftovers``: what the uid wrote to the world-writable folders is deleted.

What it cannot close: the network is open, and the worker sees other processes in
``/proc`` (not their environment or memory: they belong to another uid).
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import stat
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from grader.sandbox import reap

# Folders any uid can write to: what the worker left there is removed at teardown.
SHARED_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm")


def seal(paths: Iterable[str], keep: Iterable[str]) -> list[str]:
    """Take the "other" permission bits off ``paths``; a path holding one of ``keep`` (the Python
    trees the worker must run) is entered instead, and its other entries are sealed. The sealed list."""
    keep = [os.path.realpath(k) for k in keep]
    sealed: list[str] = []
    for path in sorted({os.path.realpath(p) for p in paths}):
        _seal_one(path, keep, sealed)
    return sealed


def _seal_one(path: str, keep: list[str], sealed: list[str]) -> None:
    if not os.path.lexists(path) or os.path.islink(path) or path == "/":
        return
    holds = [k for k in keep if k == path or k.startswith(path.rstrip("/") + "/")]
    inside = any(path.startswith(k.rstrip("/") + "/") for k in keep)
    if holds and not inside:  # a kit folder holding .venv: seal its siblings, cross it
        _chmod(path, lambda m: m | stat.S_IXOTH)
        if any(k == path for k in holds):
            return
        try:
            names = os.listdir(path)
        except OSError:
            return
        for name in names:
            _seal_one(os.path.join(path, name), keep, sealed)
        return
    _chmod(path, lambda m: m & ~stat.S_IRWXO)
    sealed.append(path)


def _chmod(path: str, change: object) -> None:
    try:
        mode = stat.S_IMODE(os.lstat(path).st_mode)
        new = change(mode)  # type: ignore[operator]
        if new != mode:
            os.chmod(path, new)
    except OSError:
        pass


def reachable(path: str, uid: int) -> bool:
    """Whether a uid that is neither owner nor in the group can reach and read ``path``: every
    folder above it crossable by others, the path itself readable by others."""
    real = Path(os.path.realpath(path))
    for folder in [*reversed(real.parents)]:
        st = os.stat(folder)
        if st.st_uid != uid and not st.st_mode & stat.S_IXOTH:
            return False
    st = os.stat(real)
    return st.st_uid == uid or bool(st.st_mode & stat.S_IROTH)


def stage(sub_dir: Path, into: Path, gid: int) -> Path:
    """A copy of the staging folder owned by root and the worker's own group, which may read it and
    nothing more (0750/0640): the worker cannot change it, other workers (other gids) cannot read it,
    even knowing its path from the worker's command line. Links stay links (the reader refuses them)."""
    shutil.copytree(sub_dir, into, symlinks=True)
    for folder, _dirs, files in os.walk(into):
        os.chown(folder, 0, gid)
        os.chmod(folder, 0o750)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chown(path, 0, gid)
                os.chmod(path, 0o640)
    return into


def private_tmp(uid: int) -> Path:
    """The worker's own writable folder: 0700, owned by its uid and gid."""
    path = Path(tempfile.mkdtemp(prefix="gk-uidtmp-"))
    os.chown(path, uid, uid)
    os.chmod(path, 0o700)
    return path


def kill_uid(uid: int, timeout: float = 5.0) -> None:
    """SIGKILL every process of ``uid``, from a child that has become ``uid`` (so ``kill(-1)`` reaches
    exactly them, atomically), until no process of the uid is left."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and reap.matching(uid=uid):
        child = os.fork()
        if child == 0:
            code = 1
            try:
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
                for _ in range(1000):
                    try:
                        os.kill(-1, signal.SIGKILL)
                    except OSError as exc:
                        code = 0 if exc.errno == errno.ESRCH else 1
                        break
            finally:
                os._exit(code)
        os.waitpid(child, 0)
        time.sleep(0.01)
    reap.kill_until_gone(lambda: reap.matching(uid=uid), timeout=1.0)


def remove_leftovers(uid: int, folders: Iterable[str] = SHARED_WRITABLE) -> None:
    """Delete what ``uid`` created at the top of the world-writable folders."""
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
            except OSError:
                pass
