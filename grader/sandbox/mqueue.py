"""POSIX message queues a uid left, at the ``uid`` level (at ``namespaces``, its IPC namespace takes them).

A queue is a file of the ``mqueue`` file system, owned by the uid that made it: listed where that file
system is mounted (Docker mounts it at /dev/mqueue), by a mount of this process's IPC namespace (a mount
made in another one lists that one's queues: ``shows_own_queues``). Where no such mount is there, the
teardown mounts it in a mount namespace of a child's own (nothing changes in the machine's mount table) if
it may; where it may not (root under Docker's defaults has no CAP_SYS_ADMIN), queues cannot be listed and
so cannot be removed: the worker then gets ``RLIMIT_MSGQUEUE`` 0 (``limit``), and ``mq_open(O_CREAT)``
fails for it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import secrets
import stat
import tempfile

CLONE_NEWNS = 0x00020000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 0x40000


def mounted() -> list[str]:
    """Where the mqueue file system is mounted in this process's view (/proc/self/mountinfo)."""
    try:
        lines = open("/proc/self/mountinfo", encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return []
    points = []
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, after = left.split(), right.split()
        if len(fields) >= 5 and after and after[0] == "mqueue":
            points.append(fields[4].encode().decode("unicode_escape"))
    return points


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


class _MqAttr(ctypes.Structure):
    _fields_ = [("mq_flags", ctypes.c_long), ("mq_maxmsg", ctypes.c_long), ("mq_msgsize", ctypes.c_long),
                ("mq_curmsgs", ctypes.c_long), ("pad", ctypes.c_long * 4)]


def _mq_calls() -> ctypes.CDLL | None:
    """The library with mq_open (libc since glibc 2.34, librt before), or None."""
    for name in (ctypes.util.find_library("c"), ctypes.util.find_library("rt")):
        try:
            lib = ctypes.CDLL(name, use_errno=True)
        except OSError:
            continue
        if hasattr(lib, "mq_open") and hasattr(lib, "mq_unlink"):
            return lib
    return None


def shows_own_queues(point: str) -> bool:
    """Whether the mqueue mount at ``point`` lists this process's IPC namespace's queues. A mount made in
    another IPC namespace (inherited from the machine by a container that has its own, or bound in) lists
    that namespace's queues, never the worker's: a queue of ours made now must appear there. Where no probe
    queue can be made, the mount is taken as it is."""
    lib = _mq_calls()
    if lib is None:
        return True
    name = f"/gk-probe-{secrets.token_hex(8)}".encode()
    attr = _MqAttr(0, 1, 1, 0)
    fd = lib.mq_open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600, ctypes.byref(attr))
    if fd < 0:
        return True
    try:
        return os.path.lexists(os.path.join(point, name[1:].decode()))
    finally:
        os.close(fd)  # on Linux a queue descriptor is a file descriptor
        lib.mq_unlink(name)


def own_mounts() -> list[str]:
    """The mqueue mounts that list this IPC namespace's queues (``mounted``, checked)."""
    return [point for point in mounted() if shows_own_queues(point)]


def unlink_owned(folder: str, uid: int) -> list[str]:
    """Unlink every queue of ``uid`` in the mqueue mount ``folder`` (flat: a queue's name has no '/')."""
    problems = []
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        return [f"{folder}: {exc.strerror}"]
    try:
        with os.scandir(fd) as entries:
            names = [e.name for e in entries]
        for name in names:
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                if st.st_uid == uid and not stat.S_ISDIR(st.st_mode):
                    os.unlink(name, dir_fd=fd)
            except FileNotFoundError:
                pass
            except OSError as exc:
                problems.append(f"POSIX message queue /{name}: {exc.strerror}")
    finally:
        os.close(fd)
    return problems


def _in_private_mount(uid: int | None) -> list[str] | None:
    """Mount mqueue in a child's own mount namespace and unlink ``uid``'s queues there (None: only see
    whether that works). None where it cannot be mounted; else what could not be removed."""
    where = tempfile.mkdtemp(prefix="gk-mqueue-")
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        code = 1
        try:
            os.close(read)
            libc = _libc()
            if (libc.unshare(CLONE_NEWNS) == 0
                    and libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) == 0
                    and libc.mount(b"mqueue", where.encode(), b"mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                                   None) == 0):
                said = "\n".join(unlink_owned(where, uid)) if uid is not None else ""
                os.write(write, said.encode()[:60_000])
                code = 0
        finally:
            os._exit(code)  # the namespace, and the mount in it, go with the child
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        said = fh.read().decode(errors="replace")
    _, status = os.waitpid(child, 0)
    try:
        os.rmdir(where)
    except OSError:
        pass
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return None
    return [x for x in said.splitlines() if x]


@functools.lru_cache(maxsize=1)
def listable() -> bool:
    """Whether the teardown can list the queues: mounted somewhere, or mountable in a private namespace."""
    return bool(own_mounts()) or _in_private_mount(None) is not None


def limit() -> dict[str, int]:
    """The rlimit a uid-level worker gets: none where its queues can be listed (and so removed), else
    ``RLIMIT_MSGQUEUE`` 0 so it can make none."""
    return {} if listable() else {"RLIMIT_MSGQUEUE": 0}


def remove(uid: int) -> list[str]:
    """Remove every POSIX message queue of ``uid``; what could not be removed, in words."""
    points = own_mounts()
    if points:
        return unlink_owned(points[0], uid)  # every mount of this IPC namespace shows the same queues
    return _in_private_mount(uid) or []  # None: not listable, and the worker could make none (``limit``)
