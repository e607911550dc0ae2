"""A disk and inode budget for a worker's uid (the ``uid`` level), where no quota can be set.

Docker's defaults leave root without CAP_SYS_ADMIN, so ``quotactl`` is refused and most
container file systems (overlay) have no quota anyway.  The worker's uid is fresh, so what
it owns is exactly what the student's code wrote: a thread of the grader watches the free
space and inodes of every file system the uid can write to (``statvfs``, cheap), and when
they fall by more than the budget, or near empty, counts what the uid owns there, and counts it
every few seconds anyway (on a shared machine another process freeing space hides the uid's writes
from ``statvfs``); over the budget, the worker is stopped with a one-line reason and its files are
removed at once, so the grader still has room to write its report.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

MiB = 1024**2
POLL_S = 0.25
RESERVE_BYTES = 64 * MiB  # a file system this close to full is checked whatever it held at the start
RESERVE_INODES = 2_000
RECOUNT_S = 2.0  # a fall that is not the uid's (another grade, the machine) is re-counted this often
COUNT_S = 2.0  # what the uid owns is counted this often even with no fall in sight


@dataclass
class Usage:
    bytes: int = 0
    inodes: int = 0


def usage_of(uid: int, folders: Iterable[str], own: Iterable[str] = ()) -> Usage:
    """What ``uid`` holds below ``folders`` (its entries and all below them) and all of ``own`` (its
    private folders): an iterative walk, links not followed, one file system per folder."""
    use = Usage()
    stack: list[tuple[str, bool, int]] = [(f, False, 0) for f in folders] + [(f, True, 0) for f in own]
    seen: set[tuple[int, int]] = set()
    while stack:
        path, mine, dev = stack.pop()
        try:
            with os.scandir(path) as entries:
                for e in entries:
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if dev and st.st_dev != dev:
                        continue
                    owned = mine or st.st_uid == uid
                    if owned and (st.st_dev, st.st_ino) not in seen:
                        seen.add((st.st_dev, st.st_ino))
                        use.bytes += st.st_blocks * 512
                        use.inodes += 1
                    if stat.S_ISDIR(st.st_mode) and (owned or st.st_mode & stat.S_IWOTH):
                        stack.append((e.path, owned, st.st_dev))
        except OSError:
            continue
    return use


class DiskWatch:
    """Watch the file systems of ``folders`` for ``uid``; call ``over(reason)`` once when it is over."""

    def __init__(
        self,
        uid: int,
        folders: Iterable[str],
        own: Iterable[str],
        budget_bytes: int,
        budget_inodes: int,
        over: Callable[[str], None],
    ) -> None:
        self.uid, self.folders, self.own = uid, tuple(folders), tuple(own)
        self.budget_bytes, self.budget_inodes, self.over = int(budget_bytes), int(budget_inodes), over
        self.base: dict[int, tuple[str, int, int]] = {}  # st_dev -> (a path on it, free bytes, free inodes)
        for path in (*self.folders, *self.own):
            try:
                dev = os.stat(path).st_dev
                if dev not in self.base:
                    v = os.statvfs(path)
                    self.base[dev] = (path, v.f_bavail * v.f_frsize, v.f_favail)
            except OSError:
                continue
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gk-disk-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _pressed(self) -> bool:
        for path, free0, inodes0 in self.base.values():
            try:
                v = os.statvfs(path)
            except OSError:
                continue
            free, inodes = v.f_bavail * v.f_frsize, v.f_favail
            if (
                free0 - free > self.budget_bytes
                or free < RESERVE_BYTES
                or (inodes0 and (inodes0 - inodes > self.budget_inodes or inodes < RESERVE_INODES))
            ):
                return True
        return False

    def check(self, count: bool = False) -> str | None:
        """Why the uid is over its budget, or None (counted when the file systems fell, or ``count``)."""
        if not (count or self._pressed()):
            return None
        use = usage_of(self.uid, self.folders, self.own)
        if use.bytes > self.budget_bytes or (use.bytes >= RESERVE_BYTES and self._full()):
            return (
                f"over the disk budget: its files took {use.bytes / MiB:.0f} MiB "
                f"(budget {self.budget_bytes / MiB:.0f} MiB)"
            )
        if use.inodes > self.budget_inodes:
            return f"over the disk budget: it made {use.inodes} files (budget {self.budget_inodes})"
        return None

    def _full(self) -> bool:
        for path, _f, _i in self.base.values():
            try:
                v = os.statvfs(path)
            except OSError:
                continue
            if v.f_bavail * v.f_frsize < RESERVE_BYTES:
                return True
        return False

    def _run(self) -> None:
        counted = time.monotonic()
        while not self._stop.wait(POLL_S):
            due = time.monotonic() - counted >= COUNT_S
            try:
                reason = self.check(count=due)
            except Exception:  # noqa: BLE001 - a watch that fails must not take the grade with it
                reason = None
            if reason:
                self.over(reason)
                return
            if due:
                counted = time.monotonic()
            if self._pressed():  # not the uid's: count again later, not every tick
                self._stop.wait(RECOUNT_S)
                counted = time.monotonic()
