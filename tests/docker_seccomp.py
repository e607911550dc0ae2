"""Run a command under Docker's default seccomp rules for namespaces, then exec it.

Started by Debian's /usr/bin/python3 (python3-seccomp binds libseccomp for that interpreter
only), while the caller still holds CAP_SYS_ADMIN, so no_new_privs stays off as in Docker.
As Docker's default profile does: ``unshare`` and ``setns`` fail with EPERM, ``clone`` with
any ``CLONE_NEW*`` flag with EPERM, ``clone3`` with ENOSYS (so libc falls back to ``clone``).
The filter survives ``exec``.  Usage: ``/usr/bin/python3 docker_seccomp.py CMD [ARG...]``.
"""

from __future__ import annotations

import errno
import os
import sys

import seccomp

CLONE_NEW = {"CLONE_NEWTIME": 0x80, "CLONE_NEWNS": 0x20000, "CLONE_NEWCGROUP": 0x02000000,
             "CLONE_NEWUTS": 0x04000000, "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000,
             "CLONE_NEWPID": 0x20000000, "CLONE_NEWNET": 0x40000000}


def install() -> None:
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    rules.set_attr(seccomp.Attr.CTL_NNP, 0)  # Docker leaves no_new_privs off
    for name in ("unshare", "setns"):
        rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
    for flag in CLONE_NEW.values():
        rules.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.load()


if __name__ == "__main__":
    install()
    os.execvp(sys.argv[1], sys.argv[1:])
