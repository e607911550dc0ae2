"""PID 1 of the worker's namespaces: build its filesystem view, drop to an unprivileged uid, reap.

In ``uid`` mode (root without namespaces, grader/sandbox/uid.py) it builds no view: it stays
root, adopts orphans (a subreaper) and starts the worker through the same privilege drop.

Copied into the runtime folder as ``gk_init.py`` and started (as root) by
``unshare --net --pid --ipc --uts --mount --fork ... python -I -S gk_init.py CONFIG``.
Standard library only, and no site hooks (``-S``), because it runs as root.

The view is an allow-list: an empty tmpfs becomes the new root and only what
Python and torch need is bind-mounted into it, read-only.  Everything else of
the machine (the kit's solutions and hidden tests, /root, /home, other
submissions, the report folder) simply does not exist in it.  The student's
staging folder is ``/submission`` (read-only), the worker's own files are
``/runtime`` (read-only), ``/tmp`` is a small private tmpfs (the only writable
place).

When the worker exits, this process exits, and the kernel kills every process
left in the PID namespace: daemons, setsid children, SIGTERM-ignorers alike.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import resource
import signal
import socket
import stat
import sys
from typing import Any

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 24, 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
PR_SET_CHILD_SUBREAPER = 36
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "ppc64le": 203, "s390x": 217}

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def mount(src: str | None, dst: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [None if s is None else s.encode() for s in (src, dst, fstype, data)]
    _check(_libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {src} -> {dst}")


def bind(src: str, dst: str, *, readonly: bool = True) -> None:
    """Bind ``src`` at ``dst`` (created as a file or folder like the source), read-only by default."""
    if os.path.isdir(src):
        os.makedirs(dst, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst):
            open(dst, "a").close()
    mount(src, dst, None, MS_BIND | MS_REC)
    if readonly:
        mount(None, dst, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def tmpfs(dst: str, size: int, mode: int = 0o755, uid: int = 0, extra: int = 0) -> None:
    os.makedirs(dst, exist_ok=True)
    mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV | extra,
          f"size={size},mode={mode:o},uid={uid},gid={uid}")


def inside(root: str, path: str) -> str:
    return os.path.join(root, path.lstrip("/"))


def copy_top_level(root: str, name: str) -> None:
    """/bin, /lib... are symlinks into /usr on merged-usr systems: recreate the link, else bind."""
    src = "/" + name
    if os.path.islink(src):
        os.symlink(os.readlink(src), inside(root, src))
    elif os.path.isdir(src):
        bind(src, inside(root, src))


def build_root(cfg: dict) -> str:
    root = cfg["root"]
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    tmpfs(root, 16 * 1024 * 1024)
    for name in ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        if os.path.lexists("/" + name):
            copy_top_level(root, name)
    uid = int(cfg["uid"])
    # The private /tmp first: a Python tree that lives under /tmp is then bound inside it.
    tmpfs(inside(root, "/tmp"), int(cfg["scratch_bytes"]), 0o1777, uid)
    # The interpreter and its packages, wherever they live (pyenv under /root, a venv...).
    for path in cfg["python_trees"]:  # the grader listed them, outermost only, none under /usr
        if os.path.isdir(path):
            bind(path, inside(root, path))
    os.makedirs(inside(root, "/etc"), exist_ok=True)
    for name in ("ld.so.cache", "ld.so.conf", "localtime", "nsswitch.conf"):
        if os.path.isfile("/etc/" + name):
            bind("/etc/" + name, inside(root, "/etc/" + name))
    if os.path.isdir("/etc/ld.so.conf.d"):
        bind("/etc/ld.so.conf.d", inside(root, "/etc/ld.so.conf.d"))
    with open(inside(root, "/etc/passwd"), "w") as fh:
        fh.write(f"root:x:0:0:root:/nonexistent:/usr/sbin/nologin\nstudent:x:{uid}:{uid}:student:/tmp:/bin/sh\n")
    with open(inside(root, "/etc/group"), "w") as fh:
        fh.write(f"root:x:0:\nstudent:x:{uid}:\n")
    with open(inside(root, "/etc/hosts"), "w") as fh:
        fh.write("127.0.0.1 localhost sandbox\n")
    # Read by torch's cpuinfo; nothing secret.
    for sysdir in ("/sys/devices/system/cpu", "/sys/devices/system/node"):
        if os.path.isdir(sysdir):
            bind(sysdir, inside(root, sysdir))
    make_dev(root)
    os.makedirs(inside(root, "/proc"), exist_ok=True)
    try:  # hidepid: the worker sees only its own processes, not this root-owned init
        mount("proc", inside(root, "/proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2")
    except OSError:
        mount("proc", inside(root, "/proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    if os.path.isdir("/proc/driver/nvidia"):
        bind("/proc/driver/nvidia", inside(root, "/proc/driver/nvidia"))
    bind(cfg["submission"], inside(root, "/submission"))
    bind(cfg["runtime"], inside(root, "/runtime"))
    for path in cfg["hide"]:
        hide(root, path)
    return root


def hide(root: str, path: str) -> None:
    """Cover a path that a bound tree would otherwise show (the kit inside site-packages...)."""
    target = inside(root, path)
    if not os.path.lexists(target):
        return
    st = os.lstat(target)
    if stat.S_ISDIR(st.st_mode):
        tmpfs(target, 4096, 0o555, extra=MS_RDONLY | MS_NOEXEC)
    elif stat.S_ISREG(st.st_mode):
        mount("/dev/null", target, None, MS_BIND)


def make_dev(root: str) -> None:
    dev = inside(root, "/dev")
    tmpfs(dev, 1024 * 1024, 0o755)
    for name in ("null", "zero", "full", "random", "urandom", "tty"):
        if os.path.exists("/dev/" + name):
            bind("/dev/" + name, os.path.join(dev, name), readonly=False)
    # A GPU, where there is one, stays usable (the contract checks CUDA when present).
    for name in sorted(os.listdir("/dev")):
        if name.startswith("nvidia") and stat.S_ISCHR(os.stat("/dev/" + name).st_mode):
            bind("/dev/" + name, os.path.join(dev, name), readonly=False)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, os.path.join(dev, name))
    tmpfs(os.path.join(dev, "shm"), 64 * 1024 * 1024, 0o1777)


def enter_root(root: str) -> None:
    old = os.path.join(root, ".old")
    os.makedirs(old, exist_ok=True)
    number = PIVOT_ROOT.get(platform.machine())
    pivoted = number is not None and _libc.syscall(number, root.encode(), old.encode()) == 0
    if pivoted:
        os.chdir("/")
        _check(_libc.umount2(b"/.old", MNT_DETACH), "umount old root")
        os.rmdir("/.old")
    else:  # no pivot_root: a chroot, safe here because the worker has no capabilities
        os.chdir(root)
        os.chroot(root)
        os.chdir("/")
    # The root tmpfs itself becomes read-only: only /tmp and /dev/shm take writes.
    mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def set_limits(limits: dict) -> None:
    for name, value in limits.items():
        try:
            resource.setrlimit(getattr(resource, name), (value, value))
        except (ValueError, OSError):
            pass


def drop_privileges(cfg: dict) -> None:
    """In the worker child: limits, then the unprivileged uid with no groups and no new privileges."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    set_limits(cfg["rlimits"])
    for cap in range(64):  # empty the bounding set: nothing exec'd can ever regain a capability
        if _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    uid = int(cfg["uid"])
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if os.getuid() == 0 or os.geteuid() == 0:
        os._exit(121)
    refuse_keyrings()


# Kernel keys belong to no namespace, and a key the worker locks (its user keyring's permissions taken
# away, the key readable by others) outlives every teardown: as Docker's default seccomp profile does,
# the worker may not use them. (native audit arch, add_key, request_key, keyctl; compat arch and its three)
KEYRING_CALLS = {"x86_64": ((0xC000003E, (248, 249, 250)), (0x40000003, (286, 287, 288))),
                 "aarch64": ((0xC00000B7, (217, 218, 219)), (0x40000028, (309, 310, 311))),
                 "ppc64le": ((0xC0000015, (269, 270, 271)),),
                 "s390x": ((0x80000016, (278, 279, 280)),)}
KEYCTL_JOIN_SESSION_KEYRING = 1
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
X32_SYSCALL_BIT = 0x40000000


def keyring_filter(machine: str) -> list[tuple[int, int, int, int]] | None:
    """A classic BPF seccomp program, (code, jt, jf, k) each, refusing the keyring calls with EPERM; None
    for an architecture not known here."""
    arches = KEYRING_CALLS.get(machine)
    if arches is None:
        return None
    ld_arch, ld_nr = (0x20, 0, 0, 4), (0x20, 0, 0, 0)  # BPF_LD|BPF_W|BPF_ABS: seccomp_data.arch, .nr
    jeq, jge, ja, ret = 0x15, 0x35, 0x05, 0x06
    body: list[tuple[int, int, int, int]] = []
    for arch, numbers in arches:
        checks = [(jge, 0, 0, X32_SYSCALL_BIT)] if arch == 0xC000003E else []  # x32 calls: never Python's
        checks += [(jeq, 0, 0, nr) for nr in numbers]
        block = [ld_arch, (jeq, 0, len(checks) + 2, arch), ld_nr, *checks, (ja, 0, 0, 0)]
        body += block
    body += [(ret, 0, 0, 0x7FFF0000), (ret, 0, 0, 0x00050000 | 1)]  # ALLOW; ERRNO | EPERM
    allow, deny = len(body) - 2, len(body) - 1
    for i, (code, _jt, jf, k) in enumerate(body):
        if code == ja:
            body[i] = (ja, 0, 0, allow - i - 1)
        elif code in (jeq, jge) and jf == 0:  # a call number: to deny when it matches
            body[i] = (code, deny - i - 1, 0, k)
    return body


def refuse_keyrings() -> None:
    """A session keyring of the worker's own (never the grader's), then no keyring calls at all."""
    arches = KEYRING_CALLS.get(platform.machine())
    if arches is not None:
        keyctl = arches[0][1][2]
        _libc.syscall(ctypes.c_long(keyctl), ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING), None)
    program = keyring_filter(platform.machine())
    if program is None:
        return  # the teardown still clears the uid's keys (grader/sandbox/keyring.py)

    class Filter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
                    ("k", ctypes.c_uint32)]

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Filter))]

    filters = (Filter * len(program))(*[Filter(*f) for f in program])
    prog = Prog(len(program), filters)
    _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0)


def run(cfg: dict, start: Any = None) -> int:
    """Build the view (namespaces mode), fork the worker, reap; the worker's exit status.

    ``start``: what the worker runs once unprivileged, instead of exec'ing ``cfg["argv"]``
    (the zygote's forked workers, grader/runtime/zygote.py).
    """
    fd = int(cfg.get("fd", -1))
    mode = cfg.get("mode", "namespaces")
    namespaces = mode == "namespaces"
    if namespaces:
        try:
            enter_root(build_root(cfg))
            socket.sethostname("sandbox")
        except OSError as exc:
            print(f"gk_init: cannot build the sandbox: {exc}", file=sys.stderr)
            return 120
    else:
        # Orphans of the worker (double fork, setsid) are re-parented here, not to init,
        # so they can be found and killed.
        _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    child = os.fork()
    if child == 0:
        try:
            if mode in ("namespaces", "uid"):  # uid: root without namespaces, the same drop
                drop_privileges(cfg)
            else:
                _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
                set_limits(cfg["rlimits"])
            os.chdir(cfg["cwd"])
            if cfg.get("probe"):
                os._exit(0)
            if start is not None:
                start()
                os._exit(0)
            os.execve(cfg["argv"][0], cfg["argv"], cfg["env"])
        except BaseException as exc:  # noqa: BLE001 - report anything, then leave
            print(f"gk_init: cannot start the worker: {exc}", file=sys.stderr)
        os._exit(122)
    if fd >= 0:
        os.close(fd)  # only the worker holds the connection: its death is an EOF for the grader

    def stop(signum: int, frame: object) -> None:
        kill_descendants()

    signal.signal(signal.SIGTERM, stop)
    code = reap(child)
    kill_descendants()
    return code


def kill_descendants() -> None:
    """SIGKILL everything below this process, again until nothing is left (forks race us)."""
    me = os.getpid()
    for _ in range(200):
        below = _descendants(me)
        if not below:
            return
        for pid in below:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        while True:  # reap what died so the next pass does not see zombies
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break


def _descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields and fields[0] not in (b"Z", b"X"):
            children.setdefault(int(fields[1]), []).append(int(name))
    found: set[int] = set()
    todo = [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            if pid not in found:
                found.add(pid)
                todo.append(pid)
    return found


def reap(worker: int) -> int:
    """Reap every orphan (as init must) until the worker itself exits; pass on its status."""
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            return 0
        if pid == worker:
            if os.WIFSIGNALED(status):
                return 128 + os.WTERMSIG(status)
            return os.WEXITSTATUS(status)


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as fh:
        cfg = json.load(fh)
    fd = int(cfg.get("fd", -1))
    if fd >= 0:
        os.set_inheritable(fd, True)
    code = run(cfg)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
