"""The uid level leaves nothing behind and loses no grade.

On this machine (root): the teardown's parts, as a uid of the kit's range that plants in every folder
it can write to, builds a 3,000-level tree and makes System V IPC objects; the disk watch; the seal given
back; auto refusing to grade at process as root; an empty pytest report in one line.
Under Docker's defaults (tests/docker_defaults.py): real uid-level workers attacked by each route, and a
second submission that looks for what the first planted.
"""

from __future__ import annotations

import ast
import ctypes
import errno
import json
import os
import re
import secrets
import shlex
import shutil
import stat
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pace
import pytest

from grader.engine.runner import ReportLost, read_report
from grader.sandbox import keyring, mqueue
from grader.sandbox import launch as sandbox
from grader.sandbox import uid as uid_mod
from grader.sandbox.budget import DiskWatch, usage_of
from grader.sandbox.launch import SandboxPolicy

# A uid-level grade seals the shared checkout (takes its 'other' bits off) while it runs, and a
# grade at another level beside it on the same checkout cannot read it: these run on one xdist
# worker, one after another (pyproject's --dist loadgroup).
pytestmark = pytest.mark.xdist_group("kit-seal")

ROOT = Path(__file__).resolve().parent.parent
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (setuid, chown)")
DEPTH = 3000

# This run's own names, System V keys and uids: a second copy of the suite running beside this one (another
# checkout, the same machine) plants, seeks and sweeps its own, never this one's.
TAG = f"{os.getpid():x}"
SYSV_BASE = 0x35000000 + (os.getpid() & 0xFFFF) * 0x100


def _own(snippet: str) -> str:
    """``snippet`` with this run's names and keys: gk-i35-x -> gk-i35-<tag>-x, 0x353500NN -> its base + NN."""
    snippet = re.sub(r"gk-i(35|50)-", lambda m: f"gk-i{m.group(1)}-{TAG}-", snippet)
    return re.sub(r"0x353500([0-9a-f]{2})", lambda m: hex(SYSV_BASE + int(m.group(1), 16)), snippet)


def _free_uid() -> int:
    """A uid of the kit's range, drawn as the kit draws its workers' (launch.py)."""
    return sandbox.UID_BASE + secrets.randbelow(sandbox.UID_SPAN)


def _as_uid(uid: int, body) -> None:
    """Run ``body()`` in a child that has become ``uid`` (as a worker is), and wait for it."""
    child = os.fork()
    if child == 0:
        code = 1
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            body()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    assert os.WEXITSTATUS(status) == 0


def _deep_tree(top: str, depth: int = DEPTH) -> None:
    """``top``/d/d/... ``depth`` levels, with a file every 500 (its path is longer than PATH_MAX)."""
    os.mkdir(top)
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for i in range(depth):
        os.mkdir("d", dir_fd=fd)
        below = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = below
        if i % 500 == 0:
            os.close(os.open("f", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
    os.close(fd)


def _ipc() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    private = 0
    assert libc.shmget(private, 4096, 0o1000 | 0o600) >= 0  # IPC_CREAT
    assert libc.semget(private, 1, 0o1000 | 0o600) >= 0
    assert libc.msgget(private, 0o1000 | 0o600) >= 0


# What a student's code makes through ctypes beyond files and System V: a POSIX message queue with a message
# in it, a named semaphore, a POSIX shared-memory object, a kernel key in its user keyring: each
# is removed at teardown.
# Run as ``python -c``; prints what it made: True, or the errno (a negative one for the key).
MAKE_POSIX = _own(textwrap.dedent("""
    import ctypes, os, platform
    libc = ctypes.CDLL(None, use_errno=True)
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    made = {}
    q = rt.mq_open(b"/gk-i50-mq", os.O_CREAT | os.O_RDWR, 0o666, None)
    made["mq"] = (q >= 0 and rt.mq_send(q, b"for the next student", 20, 0) == 0) or ctypes.get_errno()
    libc.sem_open.restype = ctypes.c_void_p
    made["sem"] = bool(libc.sem_open(b"/gk-i50-sem", os.O_CREAT, 0o666, 1)) or ctypes.get_errno()
    fd = rt.shm_open(b"/gk-i50-shm", os.O_CREAT | os.O_RDWR, 0o666)
    made["shm"] = (fd >= 0 and os.write(fd, b"x" * 4096) == 4096) or ctypes.get_errno()
    try:
        add_key = ctypes.CDLL("libkeyutils.so.1", use_errno=True).add_key
        serial = add_key(b"user", b"gk-i50-key", b"for the next student", 20, -4)  # @u
    except OSError:
        nr = {"x86_64": 248, "aarch64": 217}[platform.machine()]
        serial = libc.syscall(ctypes.c_long(nr), b"user", b"gk-i50-key", b"for the next student",
                              ctypes.c_long(20), ctypes.c_long(-4))
    made["key"] = True if serial > 0 else -ctypes.get_errno()
    print(repr(made))
"""))
# Looks for them by name (as root: whatever is there, it opens); prints the list of what it found.
SEEK_POSIX = _own(textwrap.dedent("""
    import ctypes, errno, os
    libc = ctypes.CDLL(None, use_errno=True)
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    libc.sem_open.restype = ctypes.c_void_p
    found = []
    for name, ok in (("mq", lambda: rt.mq_open(b"/gk-i50-mq", os.O_RDONLY, 0, None) >= 0),
                     ("sem", lambda: bool(libc.sem_open(b"/gk-i50-sem", 0))),
                     ("shm", lambda: rt.shm_open(b"/gk-i50-shm", os.O_RDONLY, 0) >= 0)):
        if ok() or ctypes.get_errno() == errno.EACCES:  # EACCES: there, another uid's
            found.append(name)
        elif ctypes.get_errno() != errno.ENOENT:  # no answer (EMFILE, ENOMEM...): said, not taken as found
            found.append("%s unknown: errno %d" % (name, ctypes.get_errno()))
    if "gk-i50-key" in open("/proc/keys").read():
        found.append("key")
    print(repr(found))
"""))


def _run_snippet(code: str) -> object:
    import ast
    import subprocess

    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                          timeout=pace.seconds(60))
    assert done.returncode == 0, done.stderr[-2000:]
    return ast.literal_eval(done.stdout.strip())


@needs_root
def test_the_sweep_finds_every_writable_folder_and_leaves_nothing(tmp_path: Path) -> None:
    uid = _free_uid()
    nested = Path(tempfile.mkdtemp(prefix="gk-i35-nested-"))  # root's, world-writable, inside /tmp
    os.chmod(nested, 0o1777)
    (nested / "root-owned").write_text("stays")
    folders = uid_mod.writable_folders.__wrapped__()  # found now, not the cached answer
    assert "/tmp" in folders and "/dev/shm" in folders
    if os.path.isdir("/run/lock") and os.stat("/run/lock").st_mode & 0o002:
        assert "/run/lock" in folders  # found by the scan: SHARED_WRITABLE used to miss it
    planted = [os.path.join(f, f"gk-i35-plant-{uid}") for f in (*folders, str(nested))]

    limits = mqueue.limit()  # as a worker gets it (asked here, as root: the uid could mount nothing)

    def plant() -> None:
        for path in planted:
            Path(path).write_text("for the next student")
        _deep_tree(f"/tmp/gk-i35-deep-{uid}")
        _ipc()
        import resource

        for name, value in limits.items():  # none where the queues cannot be listed
            resource.setrlimit(getattr(resource, name), (value, value))
        names: dict = {}
        exec(MAKE_POSIX, names)  # as the uid, in this child (no seccomp filter here: the key is made)
        made = names["made"]
        assert made["sem"] is made["shm"] is made["key"] is True, made
        assert made["mq"] is True or (limits and made["mq"] == errno.EMFILE), made

    try:
        uid_mod.sweep(uid)  # what an earlier run stopped halfway left
        assert _run_snippet(SEEK_POSIX) == []
        _as_uid(uid, plant)
        assert len(uid_mod.ipc_objects(uid)) == 3
        seen = set(_run_snippet(SEEK_POSIX))  # root sees these; a key is counted for the uid
        assert seen >= {"sem", "shm"} and ("mq" in seen or bool(limits)), seen
        assert keyring.counted(uid) >= 2  # its key and its user keyring
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))  # the walk must not need more
        started = time.perf_counter()
        problems = uid_mod.sweep(uid)
        spent = time.perf_counter() - started
        assert problems == []
        assert not [p for p in planted if os.path.lexists(p)]
        assert not os.path.lexists(f"/tmp/gk-i35-deep-{uid}")
        assert uid_mod.ipc_objects(uid) == []
        assert _run_snippet(SEEK_POSIX) == [] and keyring.counted(uid) == 0
        assert (nested / "root-owned").read_text() == "stays"
        print(f"sweep of a {DEPTH}-level tree, {len(planted)} plants, 3 IPC objects: {spent:.2f} s")
    finally:
        shutil.rmtree(nested, ignore_errors=True)
        uid_mod.sweep(uid)  # a failed assertion leaves nothing for the next run either


@needs_root
def test_what_cannot_be_removed_is_said_never_raised(tmp_path: Path) -> None:
    problems: list[str] = []
    uid_mod.remove_path(str(tmp_path / "absent"), problems)  # nothing there: nothing to say
    assert problems == []
    link = tmp_path / "link"
    target = tmp_path / "target"
    target.mkdir()
    (target / "kept").write_text("x")
    link.symlink_to(target)
    uid_mod.remove_path(str(link), problems)  # the link goes, never what it points to
    assert not link.exists() and (target / "kept").exists() and problems == []
    assert isinstance(uid_mod.sweep(_free_uid()), list)


@needs_root
def test_the_disk_watch_stops_a_uid_over_its_budget(tmp_path: Path) -> None:
    uid = _free_uid()
    own = Path(tempfile.mkdtemp(prefix="gk-i35-own-"))
    os.chown(own, uid, uid)
    said: list[str] = []
    watch = DiskWatch(uid, [], [str(own)], 2 * 2**20, 100_000, said.append)
    watch.stop()  # checked by hand below, not by its thread's timing
    try:
        assert watch.check() is None

        def fill() -> None:
            for i in range(8):
                with open(own / f"fill{i}", "wb") as fh:
                    fh.write(os.urandom(2**20))
                    os.fsync(fh.fileno())

        _as_uid(uid, fill)
        assert usage_of(uid, [], [str(own)]).bytes >= 8 * 2**20
        reason = None
        for _ in range(20):  # the file system's free count can trail the writes a little
            reason = watch.check()
            if reason:
                break
            time.sleep(0.1)
        assert reason and reason.startswith("over the disk budget: its files took") and "\n" not in reason
    finally:
        shutil.rmtree(own, ignore_errors=True)


@needs_root
def test_the_seal_is_given_back_by_its_last_holder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(uid_mod, "SEAL_DIR_NAME", f"gk-seal-i35-{os.getpid()}")
    solutions = tmp_path / "solutions"
    solutions.mkdir(mode=0o755)
    os.chmod(solutions, 0o755)
    changed: dict[str, int] = {}
    uid_mod.seal([str(solutions)], keep=[], changed=changed)
    assert solutions.stat().st_mode & 0o777 == 0o750
    uid_mod.hold_seal(changed)
    other = f"1 {uid_mod.reap.start_time(1)}"  # another grade still running (pid 1 is alive)
    assert uid_mod._with_record(lambda r: r["holders"].append(other))
    assert uid_mod.release_seal() == []
    assert solutions.stat().st_mode & 0o777 == 0o750  # still sealed for the other grade
    assert uid_mod._with_record(lambda r: r["holders"].remove(other) or r["holders"].append("999999999 0"))
    uid_mod.hold_seal({})
    assert uid_mod.release_seal() == []  # the dead holder does not count
    assert solutions.stat().st_mode & 0o777 == 0o755
    shutil.rmtree(os.path.join(tempfile.gettempdir(), uid_mod.SEAL_DIR_NAME), ignore_errors=True)


def test_auto_never_grades_at_process_as_root(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sandbox, "namespaces_status", lambda: (False, "unshare failed"))
    monkeypatch.setattr(sandbox, "uid_status", lambda: (False, "/root/.pyenv/bin/python is not readable"))
    monkeypatch.setattr(sandbox, "running_as_root", lambda: True)
    with pytest.raises(sandbox.SandboxUnavailable, match="pass --isolation process") as err:
        sandbox.resolve_isolation(SandboxPolicy())
    assert "would run as root" in str(err.value) and "apt-get install python3" in str(err.value)
    assert sandbox.resolve_isolation(SandboxPolicy(isolation="process")) == "process"
    from grader.cli import build_parser
    from grader.sandbox.flags import policy_from_args

    with pytest.raises(SystemExit) as done:
        policy_from_args(build_parser().parse_args(["examples/reference"]))
    assert done.value.code == 2
    said = capsys.readouterr().err.strip()
    assert said.startswith("grade: uid isolation is not available here") and "\n" not in said
    monkeypatch.setattr(sandbox, "running_as_root", lambda: False)  # a student's laptop: as today
    assert sandbox.resolve_isolation(SandboxPolicy()) == "process"


def test_an_empty_report_is_one_line(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text("")
    with pytest.raises(ReportLost) as err:
        read_report(report, 1)
    text = str(err.value)
    assert "\n" not in text and "came out empty" in text and "Traceback" not in text
    report.write_text('{"tests": []}')
    assert read_report(report, 0) == {"tests": []}


# -- under Docker's defaults: real uid-level workers ---------------------------------------------------
ATTACK = _own(textwrap.dedent('''
    import ctypes, os, subprocess, sys, time

    MAKE_POSIX, SEEK_POSIX = @POSIX@

    def plant(folders):
        put = []
        for folder in folders:
            try:
                with open(os.path.join(folder, "gk-i35-plant"), "w") as fh:
                    fh.write("for the next student")
                put.append(folder)
            except OSError:
                pass
        top = os.path.join("/tmp", "gk-i35-deep")
        os.mkdir(top)
        fd = os.open(top, os.O_RDONLY)
        for _ in range(3000):
            os.mkdir("d", dir_fd=fd)
            below = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = below
        os.close(fd)
        with open("/dev/shm/gk-i35-posix-shm", "wb") as fh:
            fh.write(b"x" * 4096)
        # ctypes is refused in the worker (the audit hook), not in a child it starts: IPC from there
        done = subprocess.run([sys.executable, "-I", "-c", MAKE_IPC], capture_output=True, text=True,
                              timeout=60)
        ipc, mq = eval(done.stdout.strip() or "([-9], -9)")
        done = subprocess.run([sys.executable, "-I", "-c", MAKE_POSIX], capture_output=True, text=True,
                              timeout=60)
        return {"put": put, "ipc": ipc, "mq": mq, "posix": done.stdout.strip() or done.stderr[-500:]}

    MAKE_IPC = """
    import ctypes, os
    libc = ctypes.CDLL(None)
    ipc = [libc.shmget(0x35350000, 4096, 0o1000 | 0o666), libc.semget(0x35350001, 1, 0o1000 | 0o666),
           libc.msgget(0x35350002, 0o1000 | 0o666)]
    mq = -1
    if os.path.isdir("/dev/mqueue"):
        rt = ctypes.CDLL("librt.so.1")
        mq = rt.mq_open(b"/gk-i35-mq", os.O_CREAT | os.O_RDWR, 0o666, None)
    print(repr((ipc, mq)))
    """
    SEEK_IPC = """
    import ctypes
    libc = ctypes.CDLL(None)
    print(repr([i for i, k in enumerate((libc.shmget(0x35350000, 0, 0), libc.semget(0x35350001, 0, 0),
                                         libc.msgget(0x35350002, 0, 0))) if k >= 0]))
    """

    CHILD = """
    import ctypes, os, sys
    pid = int(sys.argv[1])
    out = {}
    try:
        open("/proc/%d/mem" % pid, "rb").close()
        out["mem"] = "opened"
    except OSError as exc:
        out["mem"] = type(exc).__name__
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = libc.syscall(434, pid, 0)
    got = [n for n in range(64) if pidfd >= 0 and libc.syscall(438, pidfd, n, 0) >= 0]
    out["getfd"] = got
    out["ptrace"] = libc.ptrace(16, pid, None, None)  # PTRACE_ATTACH
    print(repr(out))
    """

    def posix():  # the POSIX objects, a kernel key and System V IPC, from a child (ctypes is refused here)
        made = subprocess.run([sys.executable, "-I", "-c", MAKE_POSIX], capture_output=True, text=True,
                              timeout=60)
        sysv = subprocess.run([sys.executable, "-I", "-c", MAKE_IPC], capture_output=True, text=True,
                              timeout=60)
        return [made.stdout.strip() or made.stderr[-500:], sysv.stdout.strip() or sysv.stderr[-500:]]

    def child_reads_worker():
        done = subprocess.run([sys.executable, "-I", "-c", CHILD, str(os.getpid())], capture_output=True,
                              text=True, timeout=60)
        return done.stdout.strip() or done.stderr[-300:]

    def fill(mib):
        for i in range(mib):
            with open("/run/lock/gk-i35-fill-%d" % i if os.access("/run/lock", os.W_OK) else
                      "/var/tmp/gk-i35-fill-%d" % i, "wb") as fh:
                fh.write(b"x" * 2**20)
        for _ in range(100):  # the student's code goes on until the watch (every 0.25 s) stops it; on a
            time.sleep(1)     # busy machine that may take a while: the call's own limit is 120 s
        return mib

    def seek(folders):
        found = [f for f in folders if os.path.lexists(os.path.join(f, "gk-i35-plant"))]
        if os.path.lexists("/tmp/gk-i35-deep") or os.path.lexists("/dev/shm/gk-i35-posix-shm"):
            found.append("tree or posix shm")
        if os.path.isdir("/dev/mqueue") and os.path.lexists("/dev/mqueue/gk-i35-mq"):
            found.append("mqueue")
        done = subprocess.run([sys.executable, "-I", "-c", SEEK_IPC], capture_output=True, text=True,
                              timeout=60)
        found += ["sysv %s" % i for i in eval(done.stdout.strip() or "['?']")]
        done = subprocess.run([sys.executable, "-I", "-c", SEEK_POSIX], capture_output=True, text=True,
                              timeout=60)
        found += ["posix %s" % n for n in eval(done.stdout.strip() or "['?']")]
        return found
'''))
# Run in the simulated container: two submissions in turn, each its own uid-level worker, then the kit's
# view of what is left. Prints one JSON line.
DRIVER = textwrap.dedent('''
    import json, os, sys
    sys.path.insert(0, @ROOT@)
    from pathlib import Path
    from grader.sandbox import keyring
    from grader.sandbox import uid as uid_mod
    from grader.sandbox.client import WorkerClient
    from grader.sandbox.launch import MiB, SandboxPolicy

    def call(client, name, *args, timeout=120.0):
        return client.request({"op": "call", "target": "attack." + name}, list(args), {}, timeout)

    sub = Path(@SUB@)
    folders = list(uid_mod.writable_folders())
    out = {"folders": folders}
    policy = SandboxPolicy(isolation="uid", disk_bytes=24 * MiB)
    first = WorkerClient(sub, policy=policy)
    first.start()
    out["isolation"] = first.isolation
    out["uid1"] = first.launch.uid
    out["planted"] = call(first, "plant", folders)
    out["child"] = call(first, "child_reads_worker")
    try:
        out["fill"] = call(first, "fill", 200)
    except Exception as exc:
        out["fill"] = f"{type(exc).__name__}: {exc}"
    first.stop()
    out["ipc_left"] = uid_mod.ipc_objects(out["uid1"])
    out["keys_left"] = keyring.counted(out["uid1"])
    second = WorkerClient(sub, policy=policy)
    second.start()
    out["found"] = call(second, "seek", folders)
    second.stop()
    print("RESULT " + json.dumps(out))
''')


def test_every_route_leaves_nothing_under_dockers_defaults(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import docker_defaults

    why = docker_defaults.unavailable()
    if why:
        pytest.skip(f"cannot simulate Docker's defaults here: {why}")
    sub = Path(tempfile.mkdtemp(prefix="gk-i35-sub-"))  # a folder the kit stages from (root's)
    try:
        (sub / "attack.py").write_text(ATTACK.replace("@POSIX@", repr((MAKE_POSIX, SEEK_POSIX))))
        driver = DRIVER.replace("@ROOT@", repr(str(ROOT))).replace("@SUB@", repr(str(sub)))
        done = docker_defaults.run(f"{sys.executable} -c {shlex.quote(driver)}", timeout=pace.seconds(400),
                                   cwd=str(ROOT))
        line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT ")), None)
        assert line, done.stdout[-2000:] + done.stderr[-3000:]
        out = json.loads(line[len("RESULT "):])
        print(json.dumps(out))
        assert out["isolation"] == "uid"
        assert "/run/lock" in out["folders"] or not os.path.isdir("/run/lock")
        assert "/dev/mqueue" in out["folders"]  # mounted as Docker does (tests/docker_defaults.py)
        assert set(out["planted"]["put"]) >= {"/tmp", "/dev/shm"} and min(out["planted"]["ipc"]) >= 0
        assert out["planted"]["mq"] >= 0 or not os.path.isdir("/dev/mqueue")  # Docker mounts it
        child = out["child"]  # a child of the worker: neither its memory nor its socket
        assert "'mem': 'PermissionError'" in child and "'getfd': []" in child, child
        assert "'ptrace': -1" in child, child
        fill = str(out["fill"])  # the call's result (an int) had the watch not stopped it
        assert "over the disk budget" in fill and "\n" not in fill.strip(), fill
        made = ast.literal_eval(out["planted"]["posix"])  # POSIX objects and a key, made by the student
        assert made["mq"] is made["sem"] is made["shm"] is True, made  # Docker mounts /dev/mqueue
        assert made["key"] in (True, -errno.EPERM), made  # the worker may not use keyrings (as in Docker)
        assert out["ipc_left"] == [] and out["keys_left"] == 0
        # the second submission finds nothing of the first (a lookup the kernel did not answer is said,
        # not counted: it proves no object there)
        assert [f for f in out["found"] if " unknown: errno " not in f] == [], out
        assert "Traceback" not in done.stderr, done.stderr[-2000:]
        assert not docker_defaults.worker_uid_processes(docker_defaults.mount_ns(done))
    finally:
        shutil.rmtree(sub, ignore_errors=True)


def test_a_namespaces_worker_leaves_no_kernel_object_either(tmp_path: Path) -> None:
    """The namespaces level: its IPC namespace and private /dev/shm take queues, semaphores, shared memory
    and System V objects away; a kernel key belongs to no namespace, so the worker may not make one, and the
    teardown clears any its uid has."""
    ok, why = sandbox.namespaces_status()
    if not ok:
        pytest.skip(f"namespaces isolation unavailable: {why}")
    from grader.sandbox.client import WorkerClient

    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "attack.py").write_text(ATTACK.replace("@POSIX@", repr((MAKE_POSIX, SEEK_POSIX))))
    client = WorkerClient(sub, policy=SandboxPolicy(isolation="namespaces"))
    client.start()
    try:
        assert client.isolation == "namespaces"
        uid = client.launch.uid
        posix, sysv = client.request({"op": "call", "target": "attack.posix"}, (), {}, 120)
    finally:
        client.stop()
    made = ast.literal_eval(posix)
    assert made["mq"] is made["sem"] is made["shm"] is True, made  # in its own namespaces
    assert made["key"] in (True, -errno.EPERM), made
    assert min(ast.literal_eval(sysv)[0]) >= 0, sysv
    assert uid is not None and keyring.counted(uid) == 0
    assert uid_mod.ipc_objects(uid) == [] and _run_snippet(SEEK_POSIX) == []  # none on the machine


@needs_root
def test_without_a_listable_mqueue_a_worker_can_make_no_queue(monkeypatch) -> None:
    """Where mqueue is mounted nowhere and cannot be (root under Docker's defaults, no /dev/mqueue), the
    teardown could not list a queue: the worker gets RLIMIT_MSGQUEUE 0, and the kernel refuses it one."""
    monkeypatch.setattr(mqueue, "mounted", lambda: [])
    monkeypatch.setattr(mqueue, "_in_private_mount", lambda uid: None)
    mqueue.listable.cache_clear()
    try:
        assert mqueue.limit() == {"RLIMIT_MSGQUEUE": 0}
        uid = sandbox.UID_BASE + 50_001

        def try_queue() -> None:
            import resource

            resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
            rt = ctypes.CDLL("librt.so.1", use_errno=True)
            assert rt.mq_open(b"/gk-i50-refused", os.O_CREAT | os.O_RDWR, 0o600, None) == -1
            assert ctypes.get_errno() == errno.EMFILE

        _as_uid(uid, try_queue)
    finally:
        monkeypatch.undo()
        mqueue.listable.cache_clear()  # the next grade in this process asks the machine again


def test_the_fallback_to_process_is_refused_under_dockers_defaults() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import docker_defaults

    why = docker_defaults.unavailable()
    if why:
        pytest.skip(f"cannot simulate Docker's defaults here: {why}")
    python = os.path.realpath(sys.executable)
    # The container's Python made private to root (a pyenv under a 0700 /root): uid cannot start it.
    closed = "/root" if python.startswith("/root/") else os.path.dirname(python)
    inner = (f"chmod 700 {closed} && {sys.executable} -m grader.cli examples/reference --out "
             f"{tempfile.gettempdir()}/gk-i35-refused -q")
    # In an overlay: a chmod of this machine's own /usr/bin would close it to every other uid here
    done = docker_defaults.run(inner, timeout=pace.seconds(300), cwd=str(ROOT), private=(closed,))
    assert os.stat(closed).st_mode & 0o005 == 0o005 or closed == "/root"
    assert done.returncode == 2, done.stdout[-1000:] + done.stderr[-2000:]
    said = [x for x in done.stderr.splitlines() if x.startswith("grade:")]
    assert len(said) == 1 and "uid isolation is not available here" in said[0], done.stderr[-2000:]
    assert "--isolation process" in said[0] and "Traceback" not in done.stderr


# A batch of two under Docker's defaults: the first plants at import in every folder a uid may write, builds
# a deep tree, makes IPC of both kinds and fills the disk in int_to_roman; the second looks for all of it.
PLANT_AT_IMPORT = _own('''

import os as _os  # noqa: E402
import subprocess as _sp  # noqa: E402
import sys as _sys  # noqa: E402

_IPC = """
import ctypes, os
libc = ctypes.CDLL(None)
libc.shmget(0x35350010, 4096, 0o1000 | 0o666); libc.semget(0x35350011, 1, 0o1000 | 0o666)
libc.msgget(0x35350012, 0o1000 | 0o666)
made = [n for n, k in (("shm", libc.shmget(0x35350010, 0, 0)), ("sem", libc.semget(0x35350011, 0, 0)),
                       ("msg", libc.msgget(0x35350012, 0, 0))) if k >= 0]
if os.path.isdir("/dev/mqueue"):
    if ctypes.CDLL("librt.so.1").mq_open(b"/gk-i35-batch", os.O_CREAT | os.O_RDWR, 0o666, None) >= 0:
        made.append("mqueue")
print(" ".join(made))
"""


def _plant():
    put = []
    for folder in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock"):
        try:
            with open(_os.path.join(folder, "gk-i35-batch"), "w") as fh:
                fh.write("for the next student")
            put.append(folder)
        except OSError:
            pass
    try:
        _os.mkdir("/tmp/gk-i35-batch-deep")
        fd = _os.open("/tmp/gk-i35-batch-deep", _os.O_RDONLY)
        for _ in range(3000):
            _os.mkdir("d", dir_fd=fd)
            below = _os.open("d", _os.O_RDONLY, dir_fd=fd)
            _os.close(fd)
            fd = below
        _os.close(fd)
        put.append("deep")
    except OSError:
        pass
    done = _sp.run([_sys.executable, "-I", "-c", _IPC], capture_output=True, text=True, timeout=60)
    try:  # what it planted, where the test (not the next student) can read it: root's file
        with open("@DROP@", "w") as fh:
            fh.write(" ".join(put) + " " + done.stdout)
    except OSError:
        pass


_plant()
''')
FILL = _own('''

def int_to_roman(num):
    import os
    import time
    for i in range(48):
        with open("/var/tmp/gk-i35-fill-%d" % i, "wb") as fh:
            fh.write(b"x" * 2**20)
    time.sleep(15)  # room for the watch on a loaded machine; the call's own limit is 20 s
    return _honest_int_to_roman(num)
''')
SEEK = _own('''

_SEEK_IPC = """
import ctypes, os
libc = ctypes.CDLL(None)
found = [n for n, k in (("shm", libc.shmget(0x35350010, 0, 0)), ("sem", libc.semget(0x35350011, 0, 0)),
                        ("msg", libc.msgget(0x35350012, 0, 0))) if k >= 0]
if os.path.lexists("/dev/mqueue/gk-i35-batch"):
    found.append("mqueue")
print(" ".join(found))
"""


def int_to_roman(num):
    import os
    import subprocess
    import sys
    found = [f for f in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock")
             if os.path.lexists(os.path.join(f, "gk-i35-batch"))]
    found += [p for p in ("/tmp/gk-i35-batch-deep", "/var/tmp/gk-i35-fill-0") if os.path.lexists(p)]
    found += subprocess.run([sys.executable, "-I", "-c", _SEEK_IPC], capture_output=True, text=True,
                            timeout=60).stdout.split()
    if found:
        raise RuntimeError("FOUND " + " ".join(found))
    return _honest_int_to_roman(num)
''')


def test_a_batch_of_two_the_second_finds_nothing_of_the_first() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import docker_defaults

    why = docker_defaults.unavailable()
    if why:
        pytest.skip(f"cannot simulate Docker's defaults here: {why}")
    work = Path(tempfile.mkdtemp(prefix="gk-i35-batch-"))
    os.chmod(work, 0o711)  # the uid may cross it to its drop file, not list it
    drop = work / f"drop-{os.urandom(8).hex()}"
    drop.write_text("")
    os.chmod(drop, 0o666)
    try:
        subs = work / "subs"
        for name, tail in (("a-plants", FILL), ("b-seeks", SEEK)):
            sub = subs / name
            shutil.copytree(ROOT / "examples" / "reference", sub)
            leetcode = (sub / "leetcode.py").read_text()
            leetcode = leetcode.replace("def int_to_roman(", "def _honest_int_to_roman(")
            (sub / "leetcode.py").write_text(leetcode + tail)
            if name == "a-plants":
                plant = PLANT_AT_IMPORT.replace("@DROP@", str(drop))
                (sub / "embedding.py").write_text((sub / "embedding.py").read_text() + plant)
        out = work / "out"
        inner = shlex.join([sys.executable, "-m", "grader.cli", "batch", str(subs), "--out", str(out), "-j",
                            "1", "--public-only", "-q", "--no-similarity", "--isolation", "uid", "--disk-mb",
                            "16", "-k", "int_to_roman or embedding"])
        kit = [ROOT / "solutions", ROOT / "grader", ROOT / "grader" / "suites" / "hidden"]
        record = Path(tempfile.gettempdir()) / uid_mod.SEAL_DIR_NAME / "record.json"
        # The instructor's modes: a seal left by an earlier grade that was killed (its record names the
        # modes before it) is given back by this batch's teardown, so those are the modes to expect.
        held = json.loads(record.read_text())["modes"] if record.exists() else {}
        modes = {p: held.get(os.path.realpath(p), stat.S_IMODE(p.stat().st_mode)) for p in kit if p.exists()}
        done = docker_defaults.run(inner, timeout=pace.seconds(500), cwd=str(ROOT))
        if not record.exists():  # no other grade on this machine holds the seal now: the modes are back
            assert {p: stat.S_IMODE(p.stat().st_mode) for p in modes} == modes
        planted = drop.read_text().split()
        wanted = {"/tmp", "/var/tmp", "/dev/shm", "/run/lock", "deep", "shm", "sem", "msg"}
        assert wanted <= set(planted), planted
        assert "mqueue" in planted or not os.path.isdir("/dev/mqueue")
        first = json.loads((out / "a-plants" / "results.json").read_text())
        second = json.loads((out / "b-seeks" / "results.json").read_text())
        assert first["isolation"] == second["isolation"] == "uid", done.stderr[-2000:]
        roman = [t for t in first["tests"] if "int_to_roman" in t["id"]]
        assert roman and all(t["status"] != "passed" for t in roman)
        said = json.dumps(roman, ensure_ascii=False)
        print(roman[0].get("message", "")[:400])
        assert "over the disk budget" in said and "wrote more to disk than allowed" in said
        assert "Traceback" not in said and "JSONDecodeError" not in said
        assert [t for t in first["tests"] if t["status"] == "passed"]  # the rest of its grade is kept
        assert second["tests"] and all(t["status"] == "passed" for t in second["tests"]), [
            (t["id"], t.get("message", "")[:200]) for t in second["tests"] if t["status"] != "passed"]
        assert second["score"] == second["max_score"] > 0
        assert not docker_defaults.worker_uid_processes(docker_defaults.mount_ns(done))
    finally:
        shutil.rmtree(work, ignore_errors=True)


@needs_root
def test_a_teardown_that_fails_says_so_in_one_line_and_goes_on(tmp_path: Path, monkeypatch, capsys) -> None:
    import subprocess

    def boom(uid: int) -> list[str]:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(uid_mod, "sweep", boom)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    process = subprocess.Popen(["sleep", "30"], start_new_session=True)
    uid = _free_uid()
    launch = sandbox.Launch(process, "uid", scratch, [scratch], uid=uid)
    launch.terminate()  # never raises
    assert process.poll() is not None and not scratch.exists()  # the rest of the teardown still ran
    said = [x for x in capsys.readouterr().err.splitlines() if x.startswith("grade: the teardown")]
    assert len(said) == 1 and "RecursionError" in said[0] and f"uid {uid}" in said[0]


def test_the_disk_watchs_stop_and_the_teardown_sweep_one_after_the_other(tmp_path: Path, monkeypatch) -> None:
    """The disk watch stops an over-budget worker from its own thread (kill the uid, sweep); the teardown
    that follows waits for that to finish before it kills and sweeps in turn (beside it, the two sweeps
    reported each other's removals, and the watch's helpers, processes of the uid, outlived the teardown:
    a kernel key its helper made was still counted after the grade). Once torn down, a late stop does
    nothing."""
    import subprocess
    import threading

    calls: list[str] = []
    active: list[int] = []  # sweeps running at once, seen by each on entry
    watch_in = threading.Event()
    teardown_in = threading.Event()

    def sweep(uid: int) -> list[str]:
        who = "watch" if threading.current_thread().name == "watch" else "teardown"
        ended = len([c for c in calls if c.startswith("end ")])
        active.append(calls.count("watch") + calls.count("teardown") - ended)
        calls.append(who)
        if who == "watch":
            watch_in.set()
            teardown_in.wait(timeout=3)  # the old teardown came in here, beside it
        else:
            teardown_in.set()
        calls.append(f"end {who}")
        return []

    monkeypatch.setattr(uid_mod, "sweep", sweep)
    monkeypatch.setattr(uid_mod, "kill_uid", lambda uid, timeout=30.0: None)
    process = subprocess.Popen(["sleep", "30"], start_new_session=True)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    launch = sandbox.Launch(process, "uid", scratch, [scratch], uid=_free_uid())
    watch = threading.Thread(target=launch.stop_over_budget, args=("over the disk budget",), name="watch")
    watch.start()
    assert watch_in.wait(timeout=pace.seconds(60))
    launch.terminate()
    watch.join()
    assert calls == ["watch", "end watch", "teardown", "end teardown"], calls
    assert active == [0, 0] and process.poll() is not None and not scratch.exists()
    launch.stop_over_budget("over the disk budget")  # after the teardown: nothing more is swept
    assert calls.count("teardown") == 1 and launch.over_budget == "over the disk budget"


@needs_root
def test_a_queue_mount_of_another_ipc_namespace_is_not_taken_for_the_workers() -> None:
    """A container with an IPC namespace of its own that still sees the machine's /dev/mqueue (inherited,
    not mounted anew) lists the machine's queues there, not its worker's: the teardown checks that a mount
    shows its own namespace's queues, and otherwise mounts its own (here, where it may) to remove them."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the container: its own mounts, the machine's queues mounted, then its own IPC namespace
        said = "?"
        try:
            os.close(read)
            libc = ctypes.CDLL(None, use_errno=True)
            where = tempfile.mkdtemp(prefix="gk-i50-machine-mq-")
            assert libc.unshare(mqueue.CLONE_NEWNS) == 0
            assert libc.mount(None, b"/", None, mqueue.MS_REC | mqueue.MS_PRIVATE, None) == 0
            assert libc.mount(b"mqueue", where.encode(), b"mqueue", 0, None) == 0  # this machine's queues
            assert libc.unshare(0x08000000) == 0  # CLONE_NEWIPC
            mqueue.listable.cache_clear()
            uid = sandbox.UID_BASE + 50_002
            name = f"/gk-i50-other-ns-{os.getpid()}".encode()

            def make() -> None:
                rt = ctypes.CDLL("librt.so.1", use_errno=True)
                assert rt.mq_open(name, os.O_CREAT | os.O_RDWR, 0o600, None) >= 0

            _as_uid(uid, make)
            seen = (where in mqueue.mounted(), where in mqueue.own_mounts())
            problems = mqueue.remove(uid)
            rt = ctypes.CDLL("librt.so.1", use_errno=True)
            gone = rt.mq_open(name, os.O_RDONLY, 0, None) < 0 and ctypes.get_errno() == errno.ENOENT
            if not gone:
                rt.mq_unlink(name)
            said = repr((seen, problems, gone))
        except BaseException as exc:  # noqa: BLE001 - said to the parent, whatever it is
            said = repr(exc)
        finally:
            os.write(write, said.encode())
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        said = fh.read().decode()
    os.waitpid(child, 0)
    # the machine's mount is seen, not taken for this namespace's; the worker's queue is gone all the same
    assert said == repr(((True, False), [], True)), said
