"""Finding and killing what a worker left behind, by reading /proc.

A process can leave its process group and session (``setsid``) and lose its
parent (double fork), but it cannot shed its uid (no privileges) nor, without
exec'ing a new program, the environment it inherited.  Teardown therefore
matches on a per-launch uid (namespaces mode) and a per-launch environment tag
(every mode), plus the descendants of the worker seen while it was alive.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterable

TAG_VAR = "GK_SANDBOX_ID"


def all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _status(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as fh:
            return dict(line.rstrip("\n").split(":\t", 1) for line in fh if ":\t" in line)
    except OSError:
        return {}


def is_alive(pid: int) -> bool:
    """Running or sleeping; a zombie is already dead and only waits to be reaped."""
    state = _status(pid).get("State", "")
    return bool(state) and not state.startswith(("Z", "X"))


def uid_of(pid: int) -> int | None:
    uids = _status(pid).get("Uid", "").split()
    return int(uids[0]) if uids else None


def has_tag(pid: int, tag: str) -> bool:
    needle = f"{TAG_VAR}={tag}".encode()
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return needle in fh.read().split(b"\0")
    except OSError:
        return False


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for pid in all_pids():
        ppid = _status(pid).get("PPid")
        if ppid and ppid.isdigit():
            children.setdefault(int(ppid), []).append(pid)
    return children


def children_of(pid: int) -> list[int]:
    """The direct children of ``pid`` (a snapshot)."""
    return _children_map().get(pid, [])


def descendants(root: int) -> set[int]:
    """Every live process below ``root`` in the parent tree (a snapshot)."""
    children = _children_map()
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def matching(tag: str | None = None, uid: int | None = None) -> set[int]:
    """Live processes carrying the launch's tag or running as its uid (never this process)."""
    me = os.getpid()
    found = set()
    for pid in all_pids():
        if pid == me:
            continue
        if (uid is not None and uid_of(pid) == uid) or (tag is not None and has_tag(pid, tag)):
            if is_alive(pid):
                found.add(pid)
    return found


def kill_until_gone(find: Callable[[], Iterable[int]], timeout: float = 5.0) -> set[int]:
    """SIGKILL what ``find`` returns, again and again (forks race us), until it returns nothing."""
    killed: set[int] = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = {p for p in find() if is_alive(p)}
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.01)
    return killed


def count_tasks_of(uid: int) -> int:
    """Processes and threads of ``uid``: what RLIMIT_NPROC counts."""
    total = 0
    for pid in all_pids():
        status = _status(pid)
        uids = status.get("Uid", "").split()
        if uids and int(uids[0]) == uid:
            total += int(status.get("Threads", "1") or 1)
    return total


def start_time(pid: int) -> str | None:
    """When ``pid`` started (clock ticks since boot): with the pid, it names one process for good."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return None
