"""Work done as a worker's uid, from a forked child that has become it: how the teardown removes what
only the creator may remove (System V IPC, keys) where root lacks CAP_SYS_ADMIN (Docker's defaults)."""

from __future__ import annotations

import os
from collections.abc import Callable


def run_as_uid(uid: int, work: Callable[[], None]) -> None:
    """Call ``work`` in a child that has dropped every group and become ``uid``; wait for it."""
    child = os.fork()
    if child == 0:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            work()
        finally:
            os._exit(0)
    os.waitpid(child, 0)
