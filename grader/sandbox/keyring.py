"""Kernel keys a worker's uid left (``add_key``, ``keyctl``): removed at teardown, at every level.

Keys belong to no IPC or mount namespace: a key the worker links into its user keyring (``@u``) or user
session keyring (``@us``) outlives it, and a key another uid may read is a channel to the next student.
Root needs CAP_SYS_ADMIN to touch another uid's keys (Docker's defaults have none; Docker's seccomp
profile refuses these calls outright, other containers do not), so a child that has become the uid
clears them: from its own new session keyring it walks the uid's keyrings (those it names and those
/proc/keys shows it), clears each and invalidates each key; what nothing links to any more, the kernel
collects. What is still counted for the uid in /proc/key-users afterwards is said in words.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform
import time
from collections.abc import Callable

from grader.sandbox.as_uid import run_as_uid

# keyctl(2) by architecture: Python has no binding, and libkeyutils may not be installed.
KEYCTL_NR = {"x86_64": 250, "aarch64": 219, "arm64": 219, "riscv64": 219, "loongarch64": 219, "ppc64le": 271,
             "ppc64": 271, "s390x": 280, "i686": 288, "i386": 288, "armv7l": 311}
KEYCTL_GET_KEYRING_ID, KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR, KEYCTL_READ = 0, 1, 7, 11
KEYCTL_INVALIDATE, KEYCTL_GET_PERSISTENT = 21, 22
KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -3, -4, -5
MAX_KEYS = 10_000  # a walk never visits more (the kernel's quota for a uid is far lower)


def _keyctl() -> Callable[..., int] | None:
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    number = KEYCTL_NR.get(platform.machine())
    if number is not None:
        return lambda *args: libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) if isinstance(a, int)
                                                                  else a for a in args))
    found = ctypes.util.find_library("keyutils")
    if not found:
        return None
    keyutils = ctypes.CDLL(found, use_errno=True)
    return lambda *args: keyutils.keyctl(*(ctypes.c_long(a) if isinstance(a, int) else a for a in args))


def counted(uid: int) -> int:
    """Keys the kernel counts for ``uid`` (/proc/key-users: ``uid: usage nkeys/ninstantiated ...``)."""
    try:
        lines = open("/proc/key-users", encoding="ascii", errors="replace").read().splitlines()
    except OSError:
        return 0
    for line in lines:
        who, _, rest = line.partition(":")
        if who.strip() == str(uid) and rest.split():
            try:
                return int(rest.split()[1].split("/")[0])
            except (IndexError, ValueError):
                return 0
    return 0


def _visible(uid: int) -> list[tuple[int, str]]:
    """(serial, description) of the keys of ``uid`` that /proc/keys shows this process."""
    found: list[tuple[int, str]] = []
    try:
        lines = open("/proc/keys", encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return found
    for line in lines:
        fields = line.split(None, 8)
        try:
            if len(fields) >= 9 and int(fields[5]) == uid:
                found.append((int(fields[0], 16), fields[8]))
        except ValueError:
            continue
    return found


def _linked(keyctl: Callable[..., int], serial: int) -> list[int]:
    """The serials a keyring links to (none for a key that is not a keyring, or that cannot be read)."""
    size = 4096
    while size <= 4 * MAX_KEYS:
        buf = ctypes.create_string_buffer(size)
        got = keyctl(KEYCTL_READ, serial, buf, size)
        if got < 0:
            return []
        if got <= size:
            return [int.from_bytes(buf.raw[i:i + 4], "little", signed=True) for i in range(0, got, 4)]
        size = got
    return []


def _clear_as_uid(uid: int) -> None:
    """In a child that has become ``uid``: walk its keyrings, clear them, invalidate every key."""
    keyctl = _keyctl()
    if keyctl is None:
        return
    keyctl(KEYCTL_JOIN_SESSION_KEYRING, None)  # our own session: never the grader's
    visible = _visible(uid)
    if any(desc.startswith("_persistent.") for _serial, desc in visible):
        keyctl(KEYCTL_GET_PERSISTENT, -1, KEY_SPEC_SESSION_KEYRING)  # possessed: then it may be cleared
    todo = [keyctl(KEYCTL_GET_KEYRING_ID, spec, 0) for spec in (KEY_SPEC_USER_KEYRING,
                                                                 KEY_SPEC_USER_SESSION_KEYRING)]
    todo += [serial for serial, _desc in visible]
    session = keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)
    seen: list[int] = []
    while todo and len(seen) < MAX_KEYS:
        serial = todo.pop()
        if serial <= 0 or serial in seen or serial == session:
            continue
        seen.append(serial)
        todo += _linked(keyctl, serial)
    for serial in reversed(seen):
        keyctl(KEYCTL_CLEAR, serial)  # a keyring: its links go (a key it cannot touch is then collected)
        keyctl(KEYCTL_INVALIDATE, serial)  # any key the uid may search: gone at once


def remove(uid: int, wait: float = 2.0) -> list[str]:
    """Remove the keys of ``uid`` (never root's); what is still counted for it, in words."""
    if uid == 0 or not counted(uid):
        return []
    run_as_uid(uid, lambda: _clear_as_uid(uid))
    deadline = time.monotonic() + wait  # the kernel collects unlinked keys in a work queue, soon after
    while counted(uid) and time.monotonic() < deadline:
        time.sleep(0.02)
    left = counted(uid)
    return [f"{left} kernel key{'s' if left != 1 else ''} of the uid (keyctl): not removed"] if left else []
