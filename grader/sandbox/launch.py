"""Starting the worker process with the strongest isolation the machine allows.

``namespaces`` (root on Linux, ``unshare`` works): new network, PID, IPC, UTS
and mount namespaces; a filesystem view that holds only Python, torch, the
student's staging folder (read-only) and a private /tmp; a fresh unprivileged
uid per worker with no groups and no new privileges; rlimits; a memory and
process-count cgroup where one can be made.  See ``grader/runtime/init.py``.

``uid`` (root, but no namespaces: Docker's defaults, Gradescope): no view of
its own, but a fresh unprivileged uid per worker with no groups, no capabilities
and no new privileges; the kit, the hidden suite and ``--out`` sealed from it by
permission bits; a copy of the staging folder only its group may read, a private tmp; rlimits,
a cgroup where one can be made; teardown kills every process of the uid.  See
``grader/sandbox/uid.py``.

``process`` (the degraded mode: no root, or ``--isolation process``): its own
session and process group, rlimits, a scrubbed environment, ``python -I``.  It
runs as the grading user and sees the whole filesystem that user sees.

All start the worker with ``python -I``, so no student file on the path and no
user site hook can shadow a module, and both tear down every process the
worker started (``Launch.terminate``).
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import json
import os
import secrets
import shutil
import signal
import site
import socket
import subprocess
import sys
import tempfile
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from grader.paths import KIT_ROOT, PACKAGE, RUNTIME_DIR
from grader.runtime.worker import LESSON_PROBES
from grader.sandbox import reap
from grader.sandbox import uid as uid_mod
from grader.sandbox import zygote as zygote_mod
from grader.sandbox.budget import DiskWatch
from grader.sandbox.cgroup import Cgroup, sweep_stale

GiB = 1024**3
MiB = 1024**2
# grader/runtime/ as the worker sees it: flat files under names no student module can take.
RUNTIME_FILES = {"worker.py": "gk_worker.py", "protocol.py": "gk_protocol.py", "probes.py": "gk_probes.py",
                 "guard.py": "gk_guard.py", "server.py": "gk_server.py", "init.py": "gk_init.py",
                 "zygote.py": "gk_zygote.py"}
ISOLATION_LEVELS = ("auto", "namespaces", "uid", "process")
# Measured (torch 2.14, CPU build with CUDA libraries): `import torch` reserves about
# 3.2 GB of address space but touches about 0.55 GB.  RLIMIT_AS counts the former, so
# where it is the only memory limit it gets this much on top of the policy's budget.
ADDRESS_SPACE_OVERHEAD = 4 * GiB
UID_BASE, UID_SPAN = 3_000_000, 1_000_000


class SandboxUnavailable(RuntimeError):
    """The requested isolation level cannot be had on this machine."""


@dataclass
class SandboxPolicy:
    isolation: str = "auto"  # auto | namespaces | uid | process
    memory_bytes: int = 4 * GiB
    cpu_seconds: int = 900
    file_size: int = 64 * MiB
    open_files: int = 512
    output_limit: int = 64 * 1024
    threads: int = 1
    processes: int = 128  # processes + threads of the worker (its own uid / pids cgroup)
    scratch_bytes: int = 256 * MiB  # the private /tmp (namespaces mode)
    disk_bytes: int = 1 * GiB  # what the worker's uid may keep on disk (uid mode; grader/sandbox/budget.py)
    disk_inodes: int = 100_000  # and how many files and folders
    call_seconds: float = 20.0  # default wall time of one call
    import_seconds: float = 30.0  # wall time to import one student module (after the worker is up)
    submission_seconds: float = 1800.0  # wall time of all the student's code in one grading
    uid: int | None = None  # None: a fresh uid per worker (namespaces mode)
    hide: tuple[str, ...] = ()  # more host paths to hide should a bound tree contain them (--out)
    # namespaces mode: fork workers from a template that has torch (grader/sandbox/zygote.py)
    zygote: bool = True
    # more workers beside a grade's own, for its independent work (the experiment's runs), where two cores
    # and the zygote allow; a batch running several grades at once turns it off (its cores are taken)
    siblings: bool = True
    # the graded lesson's worker probes (Lesson.probes), shipped beside the kit's; None: the kit's only
    probes: str | None = None
    # import what torch loads on first use (an optimizer step, a simulated GPU: torch._dynamo, about 900
    # modules, a second of CPU) before any student code, so that no timed call pays for it; a filtered
    # grade (-k, check('task')) skips it: a call that trains there imports it within its own time limit
    torch_warm_up: bool = True

    def describe(self) -> str:
        """The level a worker started now would get."""
        return resolve_isolation(self)


@dataclass(eq=False)
class Launch:
    process: subprocess.Popen
    isolation: str
    scratch: Path
    cleanup_paths: list[Path] = field(default_factory=list)
    tag: str = ""
    uid: int | None = None
    cgroup: Cgroup | None = None
    watch: DiskWatch | None = None
    over_budget: str = ""  # why the disk watch stopped the worker
    holds_seal: bool = False
    # The disk watch's stop (its own thread) and the teardown each kill the uid and sweep what it left:
    # one at a time, so the teardown's sweep and its check that nothing is left come after the watch's
    # work, never beside it (two sweeps of one tree report each other's removals; the watch's helpers,
    # processes of the uid, would outlive the teardown that killed the uid's processes).
    _cleaning: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _torn_down: bool = False

    def terminate(self) -> None:
        """Kill the worker and everything it started, however detached, then clean up. Never raises:
        what it could not clean is said on stderr, the instructor's log."""
        problems: list[str] = []
        if self.watch is not None:
            self.watch.stop()  # no new stop from it; one under way is waited for below
        with self._cleaning:
            for step in (self._kill, self._sweep_uid, self._remove_cgroup):  # each, whatever the last did
                try:
                    step(problems)
                except Exception as exc:  # noqa: BLE001 - the grade must survive its teardown
                    problems.append(f"{step.__name__}: {type(exc).__name__}: {exc}")
            self._torn_down = True
        for path in self.cleanup_paths:
            uid_mod.remove_path(str(path), problems)
        self.cleanup_paths = []
        if self.holds_seal:
            self.holds_seal = False
            _UID_LAUNCHES.discard(self)
            if not _UID_LAUNCHES:
                problems += uid_mod.release_seal()
        if problems:
            shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
            try:
                print(f"grade: the teardown of a worker{f' (uid {self.uid})' if self.uid else ''} left: "
                      f"{shown}", file=sys.stderr)
            except (OSError, ValueError):
                pass

    def _kill(self, problems: list[str]) -> None:
        below: set[int] = set()
        if self.isolation in ("process", "uid"):
            # The helper (a subreaper) kills what it adopted; whatever is still below it is
            # killed here, in case one exec'd without the tag.  In namespaces mode the PID
            # namespace, the cgroup and the uid catch everything.
            _ask_to_stop(self.process)
            below = reap.descendants(self.process.pid)
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.kill()
        except OSError:
            pass
        for pid in below:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        if self.cgroup is not None:
            self.cgroup.kill_all()
        if self.isolation == "uid" and self.uid is not None:  # no PID namespace: every process of the uid
            uid_mod.kill_uid(self.uid)
        # Daemons that left the process group and lost their parent: by tag, by uid.
        reap.kill_until_gone(lambda: reap.matching(self.tag or None, self.uid))

    def _sweep_uid(self, problems: list[str]) -> None:
        if self.isolation == "namespaces" and self.uid is not None:
            # The namespaces take its files and IPC objects away, not its kernel keys (no user namespace)
            problems += uid_mod.keyring.remove(self.uid)
        if self.isolation != "uid" or self.uid is None:
            return
        uid_mod.kill_uid(self.uid)  # again: a step above may have failed before it
        problems += uid_mod.sweep(self.uid)
        left = reap.matching(uid=self.uid)
        if left:
            problems.append(f"processes {sorted(left)[:5]} of the uid still alive")

    def _remove_cgroup(self, problems: list[str]) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()

    def stop_over_budget(self, reason: str) -> None:
        """The disk watch found the uid over its budget: stop the worker now and free the disk, so the
        grader can still write its report; later calls fail with ``reason``."""
        self.over_budget = reason
        with self._cleaning:
            if self.uid is None or self._torn_down:  # the teardown has killed and swept already
                return
            try:
                uid_mod.kill_uid(self.uid)
                uid_mod.sweep(self.uid)
            except Exception:  # noqa: BLE001 - the teardown tries again, and says what is left
                pass

    def describe_exit(self, code: int) -> str:
        """The worker's exit status in words; the init helper passes a fatal signal on as 128+N."""
        signum = -code if code < 0 else (code - 128 if 128 < code < 160 else 0)
        if not signum:
            return f"exit status {code}"
        try:
            name = signal.Signals(signum).name
        except ValueError:
            name = f"signal {signum}"
        if self.over_budget:
            return f"killed by {name}: {self.over_budget}"
        if self.cgroup is not None and self.cgroup.memory_exceeded():
            return f"killed by {name}: over the memory limit"
        return f"killed by {name}"


def _ask_to_stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    try:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=2)
    except (OSError, subprocess.TimeoutExpired):
        pass


def make_runtime(into: Path, probes: str | Path | None = None) -> Path:
    """Copy the worker's own files (and nothing else of the grader) into ``into``, with the graded lesson's
    ``probes`` (a Python file of its package) as ``LESSON_PROBES`` where it has some."""
    into.mkdir(parents=True, exist_ok=True)
    os.chmod(into, 0o755)
    here = RUNTIME_DIR
    files = [(here / src, dst) for src, dst in RUNTIME_FILES.items()]
    if probes is not None:
        files.append((Path(probes), LESSON_PROBES))
    for src, dst in files:
        shutil.copyfile(src, into / dst)
        os.chmod(into / dst, 0o644)
    return into


def scrubbed_env(scratch: Path, threads: int) -> dict[str, str]:
    """Only what Python and torch need: no tokens, no paths into the grader."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(scratch),
        "TMPDIR": str(scratch),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "PYTHONHASHSEED": "0",
        "OMP_NUM_THREADS": str(threads),
        "MKL_NUM_THREADS": str(threads),
        "OPENBLAS_NUM_THREADS": str(threads),
        "GK_THREADS": str(threads),
        "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES", ""),
        "MPLBACKEND": "Agg",
    }
    if "CUDA_VISIBLE_DEVICES" not in os.environ:
        env.pop("CUDA_VISIBLE_DEVICES")
    return env


def rlimits(policy: SandboxPolicy, *, address_space: int | None) -> dict[str, int]:
    """The rlimits of a worker, by resource name (the init helper applies them by name too)."""
    limits = {
        "RLIMIT_CPU": int(policy.cpu_seconds),
        "RLIMIT_FSIZE": int(policy.file_size),
        "RLIMIT_NOFILE": int(policy.open_files),
        "RLIMIT_CORE": 0,
    }
    if address_space is not None:
        limits["RLIMIT_AS"] = int(address_space)
    return limits


# -- choosing the level ----------------------------------------------------------
_NAMESPACES_STATUS: list[tuple[bool, str]] = []


def namespaces_status() -> tuple[bool, str]:
    """(available, reason): probed once per process (a grader the zygote forked is told its `grade`'s)."""
    if not _NAMESPACES_STATUS:
        _NAMESPACES_STATUS.append(_probe_namespaces())
    return _NAMESPACES_STATUS[0]


def assume_namespaces_status(status: tuple[bool, str]) -> None:
    """What the probe found in the `grade` process that forked this one through the zygote."""
    _NAMESPACES_STATUS[:] = [(bool(status[0]), str(status[1]))]


def _probe_namespaces() -> tuple[bool, str]:
    """Probe by building a real sandbox and leaving it."""
    if not sys.platform.startswith("linux"):
        return False, "not Linux"
    if os.geteuid() != 0:
        return False, "not running as root"
    if shutil.which("unshare") is None:
        return False, "the unshare command is missing"
    scratch = _scratch("gk-probe-")
    try:
        make_runtime(scratch / "runtime")
        sub = scratch / "sub"
        sub.mkdir()
        os.chmod(sub, 0o755)
        config = _ns_config(scratch, sub, SandboxPolicy(), fd=-1, argv=["/bin/true"], env={}, uid=UID_BASE)
        config["probe"] = True
        return _run_probe(scratch, config, True, "unshare failed", "root, unshare and mounts work")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run_probe(scratch: Path, config: dict, namespaces: bool, failed: str, works: str) -> tuple[bool, str]:
    """Start the init helper as a probe: (True, ``works``), or (False, ``failed``: the last line it said)."""
    try:
        done = subprocess.run(_init_argv(scratch, config, namespaces=namespaces), capture_output=True,
                              timeout=30, env=_host_env(), start_new_session=True)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"{failed}: {exc}"
    if done.returncode != 0:
        why = (done.stderr.decode("utf-8", "replace").strip().splitlines() or [f"exit {done.returncode}"])[-1]
        return False, f"{failed}: {why[:200]}"
    return True, works


_UID_STATUS: list[tuple[bool, str]] = []


def uid_status() -> tuple[bool, str]:
    """(available, reason) of the ``uid`` level: probed once per process."""
    if not _UID_STATUS:
        _UID_STATUS.append(_probe_uid())
    return _UID_STATUS[0]


def _probe_uid() -> tuple[bool, str]:
    """Probe by starting Python as a fresh uid through the init helper, as a worker would be."""
    if not sys.platform.startswith("linux"):
        return False, "not Linux"
    if os.geteuid() != 0:
        return False, "not running as root"
    scratch = _scratch("gk-probe-")
    os.chmod(scratch, 0o711)
    uid = UID_BASE + secrets.randbelow(UID_SPAN)
    try:
        make_runtime(scratch / "runtime")
        if not uid_mod.reachable(sys.executable, uid):
            return False, f"{sys.executable} is not readable by another uid (a folder above it is private)"
        config = {"mode": "uid", "fd": -1, "uid": uid, "cwd": "/", "rlimits": {}, "env": {},
                  "argv": [sys.executable, "-I", "-S", "-c", "pass"]}
        return _run_probe(scratch, config, False, "cannot start a worker as another uid",
                          "root, setuid works")
    finally:
        uid_mod.kill_uid(uid, timeout=1.0)
        shutil.rmtree(scratch, ignore_errors=True)


def resolve_isolation(policy: SandboxPolicy) -> str:
    """The level a worker gets: ``auto`` is the strongest of namespaces, uid, process that works here."""
    if policy.isolation not in ISOLATION_LEVELS:
        raise ValueError(f"unknown isolation level {policy.isolation!r}")
    if policy.isolation == "process":
        return "process"
    if policy.isolation in ("auto", "namespaces"):
        ok, reason = namespaces_status()
        if ok:
            return "namespaces"
        if policy.isolation == "namespaces":
            raise SandboxUnavailable(f"namespaces isolation is not available here: {reason}")
    ok, reason = uid_status()
    if ok:
        return "uid"
    if policy.isolation == "uid":
        raise SandboxUnavailable(f"uid isolation is not available here: {reason}")
    if running_as_root():
        raise SandboxUnavailable(root_fallback_refused(reason))
    return "process"


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def root_fallback_refused(reason: str) -> str:
    """Why ``auto`` will not grade at ``process`` as root: the student's code would run as root."""
    return (f"uid isolation is not available here ({reason}), and at the process level the student's code "
            f"would run as root; install Python where every uid can run it (the system Python: "
            f"apt-get install python3 python3-pip, as the Gradescope bundle's setup.sh does), or pass "
            f"--isolation process to grade as root anyway")


# -- launching ---------------------------------------------------------------------
def launch_worker(sub_dir: Path, sock: socket.socket, policy: SandboxPolicy) -> Launch:
    level = resolve_isolation(policy)
    _sweep_once()
    scratch = _scratch("gk-worker-")
    runtime = make_runtime(scratch / "runtime", policy.probes)  # a zygote's worker reads it there too
    if level == "namespaces":
        launch = _launch_namespaces(Path(sub_dir), sock, policy, scratch, runtime)
    elif level == "uid":
        launch = _launch_uid(Path(sub_dir), sock, policy, scratch, runtime)
    else:
        launch = _launch_process(Path(sub_dir), sock, policy, scratch, runtime)
    _LIVE.add(launch)
    return launch


def warm(policy: SandboxPolicy | None = None) -> zygote_mod.Connection | None:
    """Start the zygote now (without waiting for it) where workers will be forked from it, and return
    this process's line to it: a batch calls this before forking its graders, which then share it;
    `grade` before having it fork the grading (grader/sandbox/host.py)."""
    policy = policy or SandboxPolicy()
    if policy.zygote and resolve_isolation(policy) == "namespaces":
        _sweep_once()
        return zygote_mod.get(_scratch, make_runtime, scrubbed_env(Path("/tmp"), policy.threads))
    return None


# Workers still running when the grader exits normally (a test that forgot stop()...).
_LIVE: weakref.WeakSet[Launch] = weakref.WeakSet()


@atexit.register
def _terminate_live() -> None:
    for launch in list(_LIVE):
        launch.terminate()
    if _SEALED:  # a worker never torn down (collected): the seal is still given back
        uid_mod.release_seal()


def _scratch(prefix: str) -> Path:
    """A private temp folder that names its owner, so a later grader can tell it is stale."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    (path / "owner").write_text(f"{os.getpid()} {reap.start_time(os.getpid())}")
    return path


@functools.lru_cache(maxsize=1)
def _sweep_once() -> None:
    """Remove what graders killed before their teardown (SIGKILL, a batch timeout) left behind:
    their processes are gone (the sandbox dies with its parent), their folders and cgroups are not."""
    for path in Path(tempfile.gettempdir()).glob("gk-*"):
        if not path.name.startswith(("gk-worker-", "gk-probe-")):
            continue
        try:
            pid, started = (path / "owner").read_text().split()
        except (OSError, ValueError):
            continue
        if reap.start_time(int(pid)) != started:
            uid_mod.remove_path(str(path), [])  # a worker's private tmp inside may hold a 3,000-level tree
    sweep_stale()


def _worker_argv(runtime: Path, fd: int, sub: Path, policy: SandboxPolicy) -> list[str]:
    """The worker's command line; a zygote reads ``--warm`` from it too (runtime/zygote.py)."""
    return [sys.executable, "-I", "-X", "utf8", str(runtime / "gk_worker.py"), "--fd", str(fd),
            "--sub", str(sub), *(["--warm"] if policy.torch_warm_up else [])]


def _launch_process(sub_dir: Path, sock: socket.socket, policy: SandboxPolicy, scratch: Path,
                    runtime: Path) -> Launch:
    fd = sock.fileno()
    tag = secrets.token_hex(8)
    env = dict(scrubbed_env(scratch, policy.threads), **{reap.TAG_VAR: tag})
    limits = rlimits(policy, address_space=policy.memory_bytes + ADDRESS_SPACE_OVERHEAD)
    if os.geteuid() != 0:  # RLIMIT_NPROC counts every process of the user, and root ignores it
        limits["RLIMIT_NPROC"] = reap.count_tasks_of(os.getuid()) + policy.processes
    config = {"mode": "process", "fd": fd, "cwd": str(sub_dir), "env": env, "rlimits": limits,
              "argv": _worker_argv(runtime, fd, sub_dir, policy)}
    # The init helper runs here as a plain parent that adopts orphans (a subreaper), so a
    # double-forked daemon is still found below it at teardown.
    process = subprocess.Popen(
        _init_argv(scratch, config, namespaces=False),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        pass_fds=[fd], env=env, cwd=str(sub_dir), start_new_session=True,
    )
    return Launch(process, "process", scratch, [scratch], tag=tag)


def _launch_uid(sub_dir: Path, sock: socket.socket, policy: SandboxPolicy, scratch: Path,
                runtime: Path) -> Launch:
    fd = sock.fileno()
    tag = secrets.token_hex(8)
    uid = policy.uid if policy.uid is not None else UID_BASE + secrets.randbelow(UID_SPAN)
    trees = python_trees()
    # The kit's folders, but never a Python tree itself (an installed kit's root is site-packages).
    asked = {os.path.realpath(p) for p in policy.hide}  # --out, the lessons' packages: wherever they are
    kit = [p for p in hidden_paths(policy, bound=False)
           if Path(p).name == "grader" or p in asked or not any(_under(p, t) for t in trees)]
    kit.append(str(Path.home()))  # the grader's home: its course secret, its caches
    changed: dict[str, int] = {}
    uid_mod.seal(kit, keep=[*trees, str(scratch)], changed=changed)
    _SEALED.append(True)
    uid_mod.hold_seal(changed)  # the last grade to leave gives the modes back (the instructor's checkout)
    # The worker crosses scratch to its runtime and submission and lists nothing there; the submission's
    # name is secret, so the workers of other submissions (other uids) cannot name it.
    os.chmod(scratch, 0o711)
    sub = uid_mod.stage(sub_dir, scratch / f"submission-{secrets.token_hex(16)}", gid=uid)
    tmp = uid_mod.private_tmp(uid, inside=scratch)  # inside: a grader killed before teardown leaves it for
    # the next grade's sweep of stale scratch folders (_sweep_once)
    cgroup = Cgroup.create(f"gk-{tag}", policy.memory_bytes, policy.processes)
    env = dict(scrubbed_env(tmp, policy.threads), **{reap.TAG_VAR: tag})
    limits = rlimits(policy, address_space=None if cgroup else policy.memory_bytes + ADDRESS_SPACE_OVERHEAD)
    limits["RLIMIT_NPROC"] = int(policy.processes)  # the uid is fresh: it counts only the worker's
    limits.update(uid_mod.mqueue.limit())  # no queue it could make that the teardown could not list
    config = {"mode": "uid", "fd": fd, "uid": uid, "cwd": str(sub), "env": env, "rlimits": limits,
              "argv": _worker_argv(runtime, fd, sub, policy)}

    # The init helper stays root (the worker cannot signal it) and adopts orphans (a subreaper).
    process = _start_init(scratch, config, False, fd, tag, cgroup)
    launch = Launch(process, "uid", scratch, [scratch, tmp], tag=tag, uid=uid, cgroup=cgroup,
                    holds_seal=True)
    _UID_LAUNCHES.add(launch)
    launch.watch = DiskWatch(uid, uid_mod.writable_folders(), [str(tmp)], policy.disk_bytes,
                             policy.disk_inodes, launch.stop_over_budget)
    return launch


_SEALED: list[bool] = []
# Live uid-level workers of this process: the seal is released when the last one is torn down.
_UID_LAUNCHES: weakref.WeakSet[Launch] = weakref.WeakSet()


def _launch_namespaces(sub_dir: Path, sock: socket.socket, policy: SandboxPolicy, scratch: Path,
                       runtime: Path) -> Launch:
    fd = sock.fileno()
    tag = secrets.token_hex(8)
    uid = policy.uid if policy.uid is not None else UID_BASE + secrets.randbelow(UID_SPAN)
    _make_readable(sub_dir)
    cgroup = Cgroup.create(f"gk-{tag}", policy.memory_bytes, policy.processes)
    env = dict(scrubbed_env(Path("/tmp"), policy.threads), **{reap.TAG_VAR: tag})
    argv = _worker_argv(Path("/runtime"), fd, Path("/submission"), policy)
    config = _ns_config(scratch, sub_dir, policy, fd=fd, argv=argv, env=env, uid=uid,
                        memory_limited=cgroup is not None)

    if policy.zygote:
        zygote = zygote_mod.get(_scratch, make_runtime, scrubbed_env(Path("/tmp"), policy.threads))
        if zygote is not None:
            procs = [str(d / "cgroup.procs") for d in cgroup.dirs] if cgroup is not None else []
            forked = zygote.spawn(dict(config, cgroup_procs=procs), fd)
            return Launch(forked, "namespaces", scratch, [scratch], tag=tag, uid=uid, cgroup=cgroup)  # type: ignore[arg-type]  # ForkedProcess has the Popen surface Launch uses

    process = _start_init(scratch, config, True, fd, tag, cgroup)
    return Launch(process, "namespaces", scratch, [scratch], tag=tag, uid=uid, cgroup=cgroup)


def _start_init(scratch: Path, config: dict, namespaces: bool, fd: int, tag: str,
                cgroup: Cgroup | None) -> subprocess.Popen:
    """The init helper (runtime/init.py) for one worker, in its cgroup from its first instruction."""
    def preexec() -> None:
        if cgroup is not None:
            cgroup.join(os.getpid())

    return subprocess.Popen(
        _init_argv(scratch, config, namespaces=namespaces),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        pass_fds=[fd], env=dict(_host_env(), **{reap.TAG_VAR: tag}), cwd="/", start_new_session=True,
        preexec_fn=preexec,
    )


def _under(path: str, tree: str) -> bool:
    return path == tree or path.startswith(tree.rstrip("/") + "/")


def _host_env() -> dict[str, str]:
    return {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}


def _init_argv(scratch: Path, config: dict, *, namespaces: bool) -> list[str]:
    path = scratch / "init.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    os.chmod(path, 0o600)
    helper = [sys.executable, "-I", "-S", str(scratch / "runtime" / "gk_init.py"), str(path)]
    if not namespaces:
        return helper
    return [shutil.which("unshare") or "unshare", "--net", "--pid", "--ipc", "--uts", "--mount", "--fork",
            "--kill-child", "--propagation", "private", *helper]


def _ns_config(scratch: Path, sub_dir: Path, policy: SandboxPolicy, *, fd: int, argv: list[str],
               env: dict[str, str], uid: int, memory_limited: bool = False) -> dict:
    address_space = policy.memory_bytes + ADDRESS_SPACE_OVERHEAD
    limits = rlimits(policy, address_space=None if memory_limited else address_space)
    limits["RLIMIT_NPROC"] = int(policy.processes)
    root = scratch / "root"
    root.mkdir(exist_ok=True)
    return {
        "mode": "namespaces",
        "cwd": "/submission",
        "root": str(root),
        "submission": str(sub_dir.resolve()),
        "runtime": str((scratch / "runtime").resolve()),
        "python_trees": python_trees(),
        "hide": hidden_paths(policy),
        "uid": uid,
        "fd": fd,
        "argv": argv,
        "env": env,
        "rlimits": limits,
        "scratch_bytes": int(policy.scratch_bytes),
    }


SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


@functools.lru_cache(maxsize=1)
def python_trees() -> list[str]:
    """The folders the interpreter and its packages live in, outermost only, outside /usr."""
    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                  str(Path(os.path.realpath(sys.executable)).parent.parent)}
    candidates.update(site.getsitepackages())
    spec = importlib.util.find_spec("torch")
    if spec is not None and spec.origin:
        candidates.add(str(Path(spec.origin).resolve().parent.parent))
    real = sorted({os.path.realpath(p) for p in candidates if p and os.path.isdir(p)}, key=len)
    kept: list[str] = []
    for path in real:
        if path == "/" or any(path == t or path.startswith(t + "/") for t in SYSTEM_TREES):
            continue
        if any(path.startswith(k.rstrip("/") + "/") for k in kept):
            continue
        kept.append(path)
    return kept


def hidden_paths(policy: SandboxPolicy, *, bound: bool = True) -> list[str]:
    """Paths inside the bound trees to cover: the kit installed into site-packages, the installed lessons'
    packages (their hidden suites and references: ``policy.hide``, grader/engine/lessons.private_folders)
    and the report folder.  Everything outside the bound trees is absent anyway;
    a path that merely *contains* a bound tree (the kit folder holding .venv or .tox) is left
    alone, since covering it would hide Python itself and the view shows nothing else of it."""
    candidates = {str(KIT_ROOT), str(PACKAGE)}
    for name in ("grader",):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError, OSError):
            spec = None
        for loc in (spec.submodule_search_locations or []) if spec else []:
            candidates.add(os.path.realpath(loc))
    trees = python_trees()
    for tree in trees:
        for packages in Path(tree).glob("lib*/python*/site-packages"):
            candidates.add(str(packages / "grader"))
    candidates.update(os.path.realpath(p) for p in policy.hide)
    if not bound:  # all of them (uid mode seals each; it has no view to leave them out of)
        return sorted(candidates)
    inside = [*trees, *SYSTEM_TREES]
    return sorted(p for p in candidates if any(p.startswith(t.rstrip("/") + "/") for t in inside))


def _make_readable(sub_dir: Path) -> None:
    """The worker's uid is not the owner of the staging folder: let it read (never write)."""
    try:
        os.chmod(sub_dir, 0o755)
        for entry in sub_dir.iterdir():
            if entry.is_file() and not entry.is_symlink():
                os.chmod(entry, 0o644)
    except OSError:
        pass
