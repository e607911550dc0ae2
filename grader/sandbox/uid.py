"""The ``uid`` level: root without namespaces (Docker's defaults, Gradescope, many CI containers).

Docker's default seccomp profile refuses ``unshare``/``setns``/``clone(CLONE_NEW*)``, so no
filesystem view can be built; but ``CAP_SETUID``/``CAP_SETGID``/``CAP_KILL``/``CAP_CHOWN``
are in Docker's default set.  The worker therefore runs as a fresh unprivileged uid and
gid (no groups, no capabilities, ``no_new_privs``; grader/runtime/init.py drops them), and
what it must not touch is kept from it by permission bits alone:

* ``seal``: the kit, its hidden suite and solutions, ``--out`` lose their "other" bits, so
  a uid that is neither owner nor in the group can neither list nor read nor write them
  (the Python installation is left alone where it lies inside one of them); the modes it changed
  are given back by the last grade on the machine to leave (``hold_seal``/``release_seal``);
* ``stage``: the worker reads a copy of the staging folder owned by root and its own group
  (0750/0640), under a 0711 scratch folder it can cross but not list;
* ``private_tmp``: its only writable folder, 0700 and owned by its uid;
* ``kill_uid``: teardown signals every process of the uid from a process of that uid
  (``kill(-1)`` is atomic: a fork bomb cannot outrun it), until none is left;
* ``sweep``: after ``kill_uid``, what the uid left anywhere it could write is deleted: every
  world-writable folder found from the mount table and a bounded scan (``writable_folders``:
  /tmp, /var/tmp, /dev/shm, /run/lock ...: POSIX shared memory and named semaphores live in /dev/shm),
  its POSIX message queues (grader/sandbox/mqueue.py), its System V IPC objects (by creator, from
  /proc/sysvipc) and its kernel keys (grader/sandbox/keyring.py), each removed by a child that has
  become the uid where root would need CAP_SYS_ADMIN, which Docker's defaults lack.  No recursion
  (a 3,000-level tree is walked with one open folder at a time), no symlink followed, and no error
  escapes: what it could not remove is returned in words.

What it cannot close: the network is open, and the worker sees other processes in
``/proc`` (not their environment or memory: they belong to another uid).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import shutil
import signal
import stat
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from grader.sandbox import keyring, mqueue, reap
from grader.sandbox.as_uid import run_as_uid

# Folders any uid can write to on most systems, swept even where the scan would miss them (a link:
# /var/lock -> /run/lock is swept once); writable_folders() finds the rest.
SHARED_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock", "/dev/mqueue")


def seal(paths: Iterable[str], keep: Iterable[str], changed: dict[str, int] | None = None) -> list[str]:
    """Take the "other" permission bits off ``paths``; a path holding one of ``keep`` (the Python
    trees the worker must run) is entered instead, and its other entries are sealed. The sealed list;
    ``changed`` gets each path whose mode changed, with its mode before (for ``unseal``)."""
    keep = [os.path.realpath(k) for k in keep]
    sealed: list[str] = []
    for path in sorted({os.path.realpath(p) for p in paths}):
        _seal_one(path, keep, sealed, changed)
    return sealed


def unseal(changed: dict[str, int]) -> list[str]:
    """Give the paths ``seal`` changed their modes back; what could not be restored, in words."""
    failed = []
    for path, mode in changed.items():
        try:
            if not os.path.islink(path):
                os.chmod(path, mode)
        except OSError as exc:
            failed.append(f"{path}: mode {mode:o} not restored ({exc.strerror})")
    return failed


# The seal is shared: grades of a batch run side by side, each sealing the same kit. Who holds it and the
# modes it changed live in a root-only folder; the last holder to leave restores the modes.
SEAL_DIR_NAME = "gk-seal-root"


def _seal_dir() -> str | None:
    path = os.path.join(tempfile.gettempdir(), SEAL_DIR_NAME)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        return None  # not ours (planted): no shared record; this process restores at its own exit
    return path


def _holder(pid: int) -> str:
    return f"{pid} {reap.start_time(pid)}"


def _with_record(change: Callable[[dict], object]) -> bool:
    """Apply ``change(record)`` to the shared seal record under its lock; False where there is none."""
    import fcntl
    import json

    folder = _seal_dir()
    if folder is None:
        return False
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        path = os.path.join(folder, "record.json")
        try:
            record = json.loads(open(path, encoding="utf-8").read())
        except (OSError, ValueError):
            record = {"modes": {}, "holders": []}
        change(record)
        if record["holders"]:
            with open(path + ".tmp", "w", encoding="utf-8") as fh:
                json.dump(record, fh)
            os.replace(path + ".tmp", path)
        else:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
        return True
    finally:
        os.close(fd)


def hold_seal(changed: dict[str, int]) -> None:
    """Record that this process holds the seal, and the modes before it (the first seal's)."""
    me = _holder(os.getpid())

    def add(record: dict) -> None:
        for path, mode in changed.items():
            record["modes"].setdefault(path, mode)
        if me not in record["holders"]:
            record["holders"].append(me)

    if not _with_record(add):
        _LOCAL_MODES.update({p: m for p, m in changed.items() if p not in _LOCAL_MODES})


_LOCAL_MODES: dict[str, int] = {}


def release_seal() -> list[str]:
    """This process no longer holds the seal; the last holder alive restores the modes. What could not
    be restored, in words."""
    me = _holder(os.getpid())
    restore: dict[str, int] = dict(_LOCAL_MODES)
    _LOCAL_MODES.clear()

    def leave(record: dict) -> None:
        record["holders"] = [
            h
            for h in record["holders"]
            if h != me and reap.start_time(int(h.split()[0])) == h.split(" ", 1)[1]
        ]
        if not record["holders"]:
            restore.update(record["modes"])
            record["modes"] = {}

    _with_record(leave)
    return unseal(restore)


def _seal_one(path: str, keep: list[str], sealed: list[str], changed: dict[str, int] | None = None) -> None:
    if not os.path.lexists(path) or os.path.islink(path) or path == "/":
        return
    holds = [k for k in keep if k == path or k.startswith(path.rstrip("/") + "/")]
    inside = any(path.startswith(k.rstrip("/") + "/") for k in keep)
    if holds and not inside:  # a kit folder holding .venv: seal its siblings, cross it
        _chmod(path, lambda m: m | stat.S_IXOTH, changed)
        if any(k == path for k in holds):
            return
        try:
            names = os.listdir(path)
        except OSError:
            return
        for name in names:
            _seal_one(os.path.join(path, name), keep, sealed, changed)
        return
    _chmod(path, lambda m: m & ~stat.S_IRWXO, changed)
    sealed.append(path)


def _chmod(path: str, change: Callable[[int], int], changed: dict[str, int] | None = None) -> None:
    try:
        mode = stat.S_IMODE(os.lstat(path).st_mode)
        new = change(mode)
        if new != mode:
            os.chmod(path, new)
            if changed is not None:
                changed.setdefault(path, mode)  # the first: a second seal (another worker) keeps it
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


def private_tmp(uid: int, inside: Path | None = None) -> Path:
    """The worker's own writable folder: 0700, owned by its uid and gid (in ``inside``, else the temp
    folder)."""
    path = Path(tempfile.mkdtemp(prefix="gk-uidtmp-", dir=inside))
    os.chown(path, uid, uid)
    os.chmod(path, 0o700)
    return path


def kill_uid(uid: int, timeout: float = 30.0) -> None:
    """SIGKILL every process of ``uid``, from a child that has become ``uid`` (so ``kill(-1)`` reaches
    exactly them, atomically), until no process of the uid is left. The deadline is generous and costs
    nothing when they die at once: on a busy machine a killed worker holding torch's pages can take
    seconds to exit, and the teardown must not go on while it still runs."""
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


# -- what the uid left: found, then removed without recursion ----------------------------------------
# File systems no uid writes files to (or that are swept otherwise): not scanned.
_NOT_FILES = {
    "proc",
    "sysfs",
    "cgroup",
    "cgroup2",
    "devpts",
    "debugfs",
    "tracefs",
    "securityfs",
    "bpf",
    "fusectl",
    "configfs",
    "pstore",
    "autofs",
    "binfmt_misc",
    "hugetlbfs",
    "efivarfs",
    "rpc_pipefs",
    "nsfs",
    "selinuxfs",
}
SCAN_DEPTH = 3  # below each mount point: /run/lock, /var/tmp, /var/spool/x, /usr/local/x
SCAN_FOLDERS = 20_000  # at most this many folders listed per scan
SWEEP_DEPTH = 16  # world-writable folders inside world-writable folders, owned by someone else


def _mounts() -> list[str]:
    """Mount points of writable file systems, from /proc/self/mountinfo (the container's own)."""
    points = []
    try:
        lines = open("/proc/self/mountinfo", encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return ["/"]
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, after = left.split(), right.split()
        if len(fields) < 6 or not after or after[0] in _NOT_FILES:
            continue
        if "ro" in fields[5].split(",") or "ro" in (after[2].split(",") if len(after) > 2 else []):
            continue
        point = fields[4].encode().decode("unicode_escape")  # \040 for a space
        if not point.startswith(("/proc", "/sys")):
            points.append(point)
    return sorted(set(points)) or ["/"]


def _open_to_others(st: os.stat_result) -> bool:
    return stat.S_ISDIR(st.st_mode) and bool(st.st_mode & stat.S_IWOTH) and bool(st.st_mode & stat.S_IXOTH)


@functools.lru_cache(maxsize=1)
def writable_folders() -> tuple[str, ...]:
    """Folders any uid may create files in (world-writable), found, not listed: the mount points of
    writable file systems and a scan SCAN_DEPTH folders below each (at most SCAN_FOLDERS folders),
    plus SHARED_WRITABLE. Found once per process: a folder made world-writable later, by someone else,
    deeper than the scan, is not seen (the worker cannot make one outside its own files)."""
    found: dict[tuple[int, int], str] = {}
    listed = 0
    queue: list[tuple[str, int]] = [(p, 0) for p in (*_mounts(), *SHARED_WRITABLE)]
    seen: set[tuple[int, int]] = set()
    while queue and listed < SCAN_FOLDERS:
        path, depth = queue.pop()
        try:
            st = os.stat(path)  # a named folder (/var/lock) may be a link: its target counts
        except OSError:
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen or not stat.S_ISDIR(st.st_mode):
            continue
        seen.add(key)
        if _open_to_others(st):
            found.setdefault(key, os.path.realpath(path))
        if depth >= SCAN_DEPTH or path.startswith(("/proc", "/sys")) or path in ("/dev",):
            continue
        listed += 1
        try:
            with os.scandir(path) as entries:
                subs = [e.path for e in entries if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        queue.extend((sub, depth + 1) for sub in subs)
    return tuple(sorted(found.values()))


_O_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def remove_tree(parent_fd: int, name: str, problems: list[str], where: str = "") -> None:
    """Remove the folder ``name`` in ``parent_fd`` and all below it: one open folder at a time (a
    3,000-level tree needs neither recursion nor 3,000 descriptors, and its paths may be longer than
    PATH_MAX), links never followed, no other file system entered. Problems are appended in words."""
    label = os.path.join(where, name)
    try:
        fd = os.open(name, _O_DIR, dir_fd=parent_fd)
    except OSError as exc:
        problems.append(f"{label}: {exc.strerror}")
        return
    top = os.fstat(fd)
    # (name in its parent, (dev, ino), the sub-folders still to remove)
    stack: list[tuple[str, tuple[int, int], list[str]]] = []

    def enter(fd: int, name: str, st: os.stat_result) -> None:
        subs = []
        try:
            with os.scandir(fd) as entries:
                for e in entries:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            subs.append(e.name)
                        else:
                            os.unlink(e.name, dir_fd=fd)
                    except FileNotFoundError:
                        pass
                    except OSError as exc:
                        problems.append(f"{label}/.../{e.name}: {exc.strerror}")
        except OSError as exc:
            problems.append(f"{label}/...: {exc.strerror}")
        stack.append((name, (st.st_dev, st.st_ino), subs))

    enter(fd, name, top)
    try:
        while stack:
            _name, _key, subs = stack[-1]
            if subs:
                sub = subs.pop()
                try:
                    child = os.open(sub, _O_DIR, dir_fd=fd)
                    st = os.fstat(child)
                except OSError as exc:
                    problems.append(f"{label}/.../{sub}: {exc.strerror}")
                    continue
                if st.st_dev != top.st_dev:  # a mount below: not ours to empty
                    os.close(child)
                    problems.append(f"{label}/.../{sub}: another file system, left")
                    continue
                os.close(fd)
                fd = child
                enter(fd, sub, st)
                continue
            done, _k, _s = stack.pop()
            if not stack:
                break
            up = os.open("..", _O_DIR, dir_fd=fd)
            st = os.fstat(up)
            if (st.st_dev, st.st_ino) != stack[-1][1]:  # moved under us: stop rather than delete elsewhere
                os.close(up)
                problems.append(f"{label}: changed while being removed, left")
                return
            os.close(fd)
            fd = up
            try:
                os.rmdir(done, dir_fd=fd)
            except OSError as exc:
                problems.append(f"{label}/.../{done}: {exc.strerror}")
    finally:
        os.close(fd)
    try:
        os.rmdir(name, dir_fd=parent_fd)
    except OSError as exc:
        problems.append(f"{label}: {exc.strerror}")


def remove_path(path: str, problems: list[str]) -> None:
    """Remove ``path`` (a folder and all below it, or a file) without recursion; problems in words."""
    parent, name = os.path.split(os.path.abspath(path))
    try:
        pfd = os.open(parent, _O_DIR)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            problems.append(f"{path}: {exc.strerror}")
        return
    try:
        st = os.stat(name, dir_fd=pfd, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            remove_tree(pfd, name, problems, parent)
        else:
            os.unlink(name, dir_fd=pfd)
    except FileNotFoundError:
        pass
    except OSError as exc:
        problems.append(f"{path}: {exc.strerror}")
    finally:
        os.close(pfd)


def remove_leftovers(uid: int, folders: Iterable[str] | None = None) -> list[str]:
    """Delete what ``uid`` created in the world-writable folders (``writable_folders()`` and those
    below them that others own), files and trees alike. What could not be removed, in words."""
    problems: list[str] = []
    queue = [(f, 0) for f in (writable_folders() if folders is None else folders)]
    seen: set[tuple[int, int]] = set()
    while queue:
        folder, depth = queue.pop()
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            with os.scandir(fd) as it:
                entries = list(it)
            for entry in entries:
                try:
                    est = entry.stat(follow_symlinks=False)
                    if est.st_uid != uid:
                        if depth < SWEEP_DEPTH and _open_to_others(est) and est.st_dev == st.st_dev:
                            queue.append((os.path.join(folder, entry.name), depth + 1))
                        continue
                    if stat.S_ISDIR(est.st_mode):
                        remove_tree(fd, entry.name, problems, folder)
                    else:
                        os.unlink(entry.name, dir_fd=fd)
                except FileNotFoundError:
                    pass
                except OSError as exc:
                    problems.append(f"{folder}/{entry.name}: {exc.strerror}")
        except OSError as exc:
            problems.append(f"{folder}: {exc.strerror}")
        finally:
            os.close(fd)
    return problems


# -- System V IPC: shared memory, semaphores, message queues -------------------------------------------
IPC_RMID = 0
SYSVIPC = {"shm": ("shmid", "shmctl"), "sem": ("semid", "semctl"), "msg": ("msqid", "msgctl")}


def ipc_objects(uid: int) -> list[tuple[str, int]]:
    """(kind, id) of the System V IPC objects ``uid`` created or owns, from /proc/sysvipc."""
    found = []
    for kind, (id_col, _call) in SYSVIPC.items():
        try:
            lines = open(f"/proc/sysvipc/{kind}", encoding="ascii", errors="replace").read().splitlines()
        except OSError:
            continue
        if not lines:
            continue
        head = lines[0].split()
        for line in lines[1:]:
            row = dict(zip(head, line.split(), strict=False))
            try:
                if int(row.get("uid", -1)) == uid or int(row.get("cuid", -1)) == uid:
                    found.append((kind, int(row[id_col])))
            except (KeyError, ValueError):
                continue
    return found


def _remove_ipc(objects: list[tuple[str, int]]) -> None:
    """IPC_RMID each object (in a process that is their creator: no capability needed)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    for kind, ident in objects:
        if kind == "sem":
            libc.semctl(ctypes.c_int(ident), ctypes.c_int(0), ctypes.c_int(IPC_RMID))
        else:
            getattr(libc, SYSVIPC[kind][1])(ctypes.c_int(ident), ctypes.c_int(IPC_RMID), None)


def remove_ipc(uid: int) -> list[str]:
    """Remove the uid's System V IPC objects from a child that has become the uid (root under Docker's
    defaults has no CAP_SYS_ADMIN, the creator needs none); what is left, in words."""
    objects = ipc_objects(uid)
    if not objects:
        return []
    run_as_uid(uid, lambda: _remove_ipc(objects))
    left = ipc_objects(uid)
    return [f"System V {kind} {ident}: not removed" for kind, ident in left]


def sweep(uid: int) -> list[str]:
    """After ``kill_uid``: the uid's files in every world-writable folder (POSIX shared memory and
    named semaphores in /dev/shm among them), its POSIX message queues (wherever mqueue is mounted, or
    in a private mount of it), its System V IPC objects and its kernel keys, removed.
    Never raises; what it could not clean, in words (for the instructor's log)."""
    problems: list[str] = []
    for step in (remove_leftovers, mqueue.remove, remove_ipc, keyring.remove):
        try:
            problems += step(uid)
        except Exception as exc:  # noqa: BLE001 - teardown goes on; the log says what was left
            problems.append(f"{step.__name__}: {type(exc).__name__}: {exc}")
    return problems
