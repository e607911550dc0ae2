"""A simulation of a Docker container with Docker's defaults, for the kit's own tests.

Root, but only Docker's default capabilities (``capsh --drop`` empties the bounding set of
the rest, so every program exec'd after it has at most those) and Docker's default seccomp
rules for namespaces (tests/docker_seccomp.py: no ``unshare``, ``setns``, ``clone(CLONE_NEW*)``
or ``clone3``).  As in a container, /sys/fs/cgroup is read-only and the Python installation
is readable by every uid: where it lives under a private /root (pyenv), a mount namespace of
the simulation's own puts a 0755 tmpfs over /root with only the Python tree bound back.
As Docker gives every container (its default ``--ipc``), the simulation has an IPC namespace of its
own, a 64 MiB /dev/shm of its own and that namespace's message queues at /dev/mqueue: POSIX queues,
named semaphores, shared memory and System V objects made by other processes of this machine (a
test of another checkout, or of this suite, running beside it) are not the container's, and the
container's are not theirs.
That is the container's filesystem, set up before the restrictions; nothing inside can
undo it (no CAP_SYS_ADMIN, no new namespaces).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import venvs

HERE = Path(__file__).resolve().parent
SYSTEM_PYTHON = "/usr/bin/python3"
# Docker's default capability set (moby's oci/caps/defaults.go).
DOCKER_CAPS = ("chown", "dac_override", "fsetid", "fowner", "mknod", "net_raw", "setgid", "setuid", "setfcap",
               "setpcap", "net_bind_service", "sys_chroot", "kill", "audit_write")
CAP_NUMBERS = {"chown": 0, "dac_override": 1, "fowner": 3, "fsetid": 4, "kill": 5, "setgid": 6, "setuid": 7,
               "setpcap": 8, "net_bind_service": 10, "net_raw": 13, "sys_chroot": 18, "mknod": 27,
               "audit_write": 29, "setfcap": 31}
DOCKER_CAP_MASK = sum(1 << CAP_NUMBERS[c] for c in DOCKER_CAPS)


def unavailable() -> str | None:
    """Why the simulation cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root"
    if shutil.which("capsh") is None:
        return "needs capsh (apt-get install libcap2-bin)"
    if not Path(SYSTEM_PYTHON).exists() or subprocess.run(
            [SYSTEM_PYTHON, "-c", "import seccomp"], capture_output=True).returncode != 0:
        return "needs libseccomp for /usr/bin/python3 (apt-get install python3-seccomp)"
    if subprocess.run(["unshare", "-m", "-i", "true"], capture_output=True).returncode != 0:
        return "needs unshare -m -i to lay out the simulated container (its mounts and IPC namespace)"
    closed = _closed_to_others(os.path.realpath(sys.prefix))
    if closed:
        return (f"the Python running the tests ({sys.prefix}) lies in {closed}, which other users cannot "
                "enter, so a worker's uid could not start it; a container image's Python is readable by "
                "every uid: make a virtualenv in a folder others may enter")
    return None


def _closed_to_others(prefix: str) -> str | None:
    """The first folder above the Python installation ``prefix`` that other users cannot enter (no o+x),
    or None. The private /root of a pyenv installation is opened by ``command`` itself."""
    if prefix == _python_home() and prefix.startswith("/root/"):
        return None
    folder = Path(prefix)
    for parent in [*reversed(folder.parents), folder]:
        if not os.stat(parent).st_mode & 0o001:
            return str(parent)
    return None


NS_LINE = "gk-container-mnt-ns:"


def mount_ns(done: subprocess.CompletedProcess) -> str:
    """The simulated container's mount namespace, as its run printed it first on stderr."""
    line = next(x for x in done.stderr.splitlines() if x.startswith(NS_LINE))
    return line[len(NS_LINE):].strip()


def worker_uid_processes(ns: str) -> list[int]:
    """Live processes of a worker uid that ran in the container ``ns``: what a grade there left behind
    (workers of other tests on this machine, in other namespaces, are not its)."""
    from grader.sandbox import reap
    from grader.sandbox.launch import UID_BASE, UID_SPAN

    def in_ns(pid: int) -> bool:
        try:
            return os.readlink(f"/proc/{pid}/ns/mnt") == ns
        except OSError:
            return False

    return [p for p in reap.all_pids() if UID_BASE <= (reap.uid_of(p) or -1) < UID_BASE + UID_SPAN
            and reap.is_alive(p) and in_ns(p)]


def _dropped_caps() -> str:
    last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    keep = {CAP_NUMBERS[c] for c in DOCKER_CAPS}
    return ",".join(str(n) for n in range(last + 1) if n not in keep)


def _python_home() -> str:
    return os.path.realpath(sys.base_prefix)


def command(inner: str, hide: tuple[str, ...] = (), tmp: tuple[str, ...] | None = None,
            private: tuple[str, ...] = ()) -> list[str]:
    """argv that runs the shell command ``inner`` inside the simulated container; ``hide``: folders of
    this machine the container must not have (the kit's checkout, when the bundle brings its own);
    ``tmp``: give it a /tmp of its own, as a container has, holding only these folders of this one's;
    ``private``: folders the container may change (``chmod 700`` on its Python's) while this machine's
    stay as they are: an overlay whose upper layer lives in the container's memory. The container shares
    this machine's files, so a change made to them without one is made for every process here."""
    setup = ["mount --make-rprivate /",
             # the container's mount namespace, so a test can tell its processes from the machine's others
             f'echo "{NS_LINE}$(readlink /proc/self/ns/mnt)" >&2',
             # Docker mounts the cgroup tree read-only: the kit cannot make groups of its own
             "for d in /sys/fs/cgroup /sys/fs/cgroup/*/; do mount -o remount,bind,ro \"$d\" 2>/dev/null "
             "|| mount --bind -o ro \"$d\" \"$d\" 2>/dev/null; done; true",
             # Docker's /dev/shm: a tmpfs of the container's own (POSIX shared memory, named semaphores)
             "mount -t tmpfs -o rw,nosuid,nodev,noexec,relatime,size=65536k,mode=1777 shm /dev/shm "
             "|| { echo 'gk-container: no /dev/shm of its own' >&2; exit 97; }",
             # Docker mounts the container's POSIX message queues at /dev/mqueue: the kit must find them
             # there. Mounted here, in the new IPC namespace, whatever this machine has there: a mount
             # inherited from it would show this machine's queues, not the container's.
             "{ mkdir -p /dev/mqueue && mount -t mqueue -o rw,nosuid,nodev,noexec mqueue /dev/mqueue; } "
             "|| { echo 'gk-container: no /dev/mqueue of its own' >&2; exit 97; }"]
    home = _python_home()
    if home.startswith("/root/"):  # pyenv: make the interpreter reachable as an image's would be
        setup += ["keep=$(mktemp -d)", "mount --bind /root \"$keep\"",
                  "mount -t tmpfs -o mode=0755 tmpfs /root",
                  f"mkdir -p {shlex.quote(home)}",
                  f"mount --bind \"$keep\"/{shlex.quote(home[len('/root/'):])} {shlex.quote(home)}",
                  "umount -l \"$keep\"", "rmdir \"$keep\""]
    for path in hide:
        # the suite's own venv stays where it lies inside a hidden folder (the README's `.venv` in the
        # clone): it stands for the image's Python, which a container has; the checkout around it it has not
        venv = os.path.realpath(sys.prefix)
        if venv.startswith(path.rstrip("/") + "/"):
            setup += ["keep=$(mktemp -d /run/gk-keep.XXXXXX)", f'mount --bind {shlex.quote(venv)} "$keep"',
                      f"mount -t tmpfs -o mode=0755 tmpfs {shlex.quote(path)}",
                      f"mkdir -p {shlex.quote(venv)}",
                      f'mount --move "$keep" {shlex.quote(venv)}', 'rmdir "$keep"',
                      f"mount -o remount,ro {shlex.quote(path)}"]
        else:
            setup.append(f"mount -t tmpfs -o ro,mode=0755 tmpfs {shlex.quote(path)}")
    if tmp is not None:  # the machine's /tmp holds other people's files, world-readable
        setup += ["old=$(mktemp -d /run/gk-oldtmp.XXXXXX)", 'mount --bind /tmp "$old"',
                  "mount -t tmpfs -o mode=1777 tmpfs /tmp"]
        # what the image has that lies in this machine's /tmp (a venv, a clone made there): the tests'
        # interpreter and the kit's checkout (unless hidden) come back, as /root's Python tree does above
        image = [p for p in (str(HERE.parent), *venvs.made_dependency_folders())
                 if p.startswith("/tmp/")
                 and not any(p == h or p.startswith(h.rstrip("/") + "/") for h in hide)]
        # the interpreter even inside a hidden checkout (a clone in /tmp with its `.venv`), as ``hide``
        # keeps it: the "$old" bind below is of /tmp without its mounts, so it still holds the venv
        venv = os.path.realpath(sys.prefix)
        if venv.startswith("/tmp/"):
            image.append(venv)
        for path in (*tmp, *image):
            rel = shlex.quote(os.path.relpath(path, "/tmp"))
            setup += [f"mkdir -p /tmp/{rel}", f'mount --bind "$old"/{rel} /tmp/{rel}']
        setup += ['umount -l "$old"', 'rmdir "$old"']
    for path in private:
        quoted = shlex.quote(path)
        setup += ["ov=$(mktemp -d /run/gk-overlay.XXXXXX)", 'mount -t tmpfs -o mode=0700 tmpfs "$ov"',
                  'mkdir "$ov/upper" "$ov/work"',
                  f'mount -t overlay overlay -o "lowerdir={path},upperdir=$ov/upper,workdir=$ov/work" '
                  f'{quoted}',
                  'umount -l "$ov"', 'rmdir "$ov"']
    seccomp = (HERE / "docker_seccomp.py").read_text(encoding="utf-8")  # read now: ``hide`` may cover it
    restricted = (f"exec {SYSTEM_PYTHON} -c {shlex.quote(seccomp)} "
                  f"capsh --drop={_dropped_caps()} -- -c {shlex.quote(inner)}")
    # -i: the container's own IPC namespace, as Docker gives each container
    return ["unshare", "-m", "-i", "--propagation", "private", "bash", "-c", "; ".join([*setup, restricted])]


def run(inner: str, *, env: dict[str, str] | None = None, timeout: float = 600, cwd: str | None = None,
        hide: tuple[str, ...] = (), tmp: tuple[str, ...] | None = None, private: tuple[str, ...] = (),
        cgroup_procs: tuple[Path, ...] = ()) -> subprocess.CompletedProcess:
    """``inner`` in the simulated container; ``cgroup_procs``: the cgroup.procs it starts in (its limits)."""

    def join() -> None:
        for procs in cgroup_procs:
            procs.write_text(str(os.getpid()))

    return subprocess.run(command(inner, hide, tmp, private), env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, preexec_fn=join if cgroup_procs else None)
