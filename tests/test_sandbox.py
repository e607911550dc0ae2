"""The sandbox itself: what a worker can see and do in each isolation level, its limits,
its flags, and that a correct submission keeps full marks under the production limits.

A probe module stands in for a student file and reports what it observes from inside;
the grader-side assertions decide.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nbformat
import pace
import pytest

from grader.cli import build_parser
from grader.core.errors import StudentRaised, WorkerTimeout
from grader.sandbox import launch as sandbox
from grader.sandbox import reap
from grader.sandbox.client import WorkerClient
from grader.sandbox.flags import policy_from_args
from grader.sandbox.launch import GiB, MiB, SandboxPolicy, namespaces_status
from lesson_embedding_pe.paths import SUITES as EMBEDDING_SUITES

# A uid-level grade seals the shared checkout (takes its 'other' bits off) while it runs, and a
# grade at another level beside it on the same checkout cannot read it: these run on one xdist
# worker, one after another (pyproject's --dist loadgroup).
pytestmark = pytest.mark.xdist_group("kit-seal")

KIT = Path(__file__).resolve().parent.parent
NAMESPACES, WHY_NOT = namespaces_status()
needs_namespaces = pytest.mark.skipif(not NAMESPACES, reason=f"namespaces isolation unavailable: {WHY_NOT}")

PROBE = textwrap.dedent('''
    import os, resource, signal, socket

    def look(paths, port):
        status = dict(l.rstrip("\\n").split(":\\t", 1) for l in open("/proc/self/status") if ":\\t" in l)
        out = {"uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(), "groups": os.getgroups(),
               "no_new_privs": status.get("NoNewPrivs"), "cap_eff": status.get("CapEff"),
               "cap_bnd": status.get("CapBnd"), "pid": os.getpid(), "hostname": socket.gethostname(),
               "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
               "env": sorted(os.environ), "cwd": os.getcwd(),
               "sid": os.getsid(0), "pgid": os.getpgid(0),
               "exists": {p: os.path.exists(p) for p in paths},
               "listing": {p: sorted(os.listdir(p)) if os.path.isdir(p) else None for p in paths}}
        out["limits"] = {n: resource.getrlimit(getattr(resource, n))[0]
                         for n in ("RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_FSIZE", "RLIMIT_CPU")}
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
            out["connect"] = "connected"
        except OSError as exc:
            out["connect"] = type(exc).__name__
        out["writable"] = {}
        for folder in (os.getcwd(), "/tmp", os.path.expanduser("~")):
            try:
                with open(os.path.join(folder, "probe.txt"), "w") as fh:
                    fh.write("x")
                out["writable"][folder] = True
            except OSError:
                out["writable"][folder] = False
        return out

    def big_file(n):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get the error instead of the signal
        with open(os.path.join(os.environ["TMPDIR"], "big.bin"), "wb") as fh:
            fh.write(b"x" * n)
        return n

    def fork_many(n):
        started = 0
        try:
            for _ in range(n):
                if os.fork() == 0:
                    import time
                    time.sleep(60)
                    os._exit(0)
                started += 1
        except OSError as exc:
            return started, type(exc).__name__
        return started, None
''')  # noqa: E501


def _staging(tmp: Path) -> Path:
    sub = tmp / "staging"
    sub.mkdir()
    (sub / "gk_probe_mod.py").write_text(PROBE)
    shutil.copy(KIT / "solutions" / "leetcode.py", sub / "leetcode.py")
    return sub


def _call(client: WorkerClient, target: str, *args, timeout: float = 30.0):
    return client.request({"op": "call", "target": target}, args, {}, timeout)


@pytest.fixture(scope="module")
def listener():
    server = socket.create_server(("127.0.0.1", 0))
    server.setblocking(False)
    yield server
    server.close()


@pytest.fixture(scope="module")
def hidden_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("out")
    (out / "results.json").write_text("{}")
    return out


@pytest.fixture(scope="module")
def ns_view(tmp_path_factory, listener, hidden_out):
    if not NAMESPACES:
        pytest.skip(f"namespaces isolation unavailable: {WHY_NOT}")
    tmp = tmp_path_factory.mktemp("ns")
    # A package inside the bound Python tree stands in for a kit installed into site-packages.
    installed = str(Path(nbformat.__file__).resolve().parent)
    policy = SandboxPolicy(isolation="namespaces", processes=48, file_size=1 * MiB,
                           hide=(str(hidden_out), installed))
    client = WorkerClient(_staging(tmp), policy=policy)
    paths = [str(KIT), str(KIT / "solutions"), str(EMBEDDING_SUITES / "hidden"), "/root/.bashrc",
             "/home", str(hidden_out), str(tmp), "/work", "/etc/shadow", "/runtime/gk_worker.py",
             "/submission/leetcode.py", installed]
    view = _call(client, "gk_probe_mod.look", paths, listener.getsockname()[1])
    yield client, view, client.launch
    client.stop()


@needs_namespaces
def test_namespaces_identity(ns_view) -> None:
    client, view, launch = ns_view
    assert client.isolation == "namespaces"
    assert view["uid"] == view["euid"] == view["gid"] == launch.uid >= sandbox.UID_BASE
    assert view["groups"] == []
    assert view["no_new_privs"] == "1"
    assert int(view["cap_eff"], 16) == 0 and int(view["cap_bnd"], 16) == 0
    assert view["hostname"] == "sandbox"


@needs_namespaces
def test_namespaces_see_only_their_own_processes(ns_view) -> None:
    _, view, _ = ns_view
    # PID 1 is the sandbox's init (root, hidden by hidepid); the worker is 2; nothing of the machine.
    assert view["pid"] == 2 and view["pids"] in ([2], [1, 2])


@needs_namespaces
def test_namespaces_have_no_network(ns_view, listener) -> None:
    _, view, _ = ns_view
    assert view["connect"] != "connected"
    with pytest.raises(BlockingIOError):
        listener.accept()


@needs_namespaces
def test_namespaces_filesystem_view(ns_view) -> None:
    _, view, _ = ns_view
    exists = view["exists"]
    # What the student's code must not see: the reference, the hidden suite, other people's files. A folder
    # that holds the interpreter itself (a venv inside the checkout, the README's quick start in a fresh
    # `python -m venv`) stays traversable so Python runs; what lies beside the interpreter stays hidden.
    interpreter = Path(sys.prefix).resolve()
    for gone in (str(KIT), str(KIT / "solutions"), str(EMBEDDING_SUITES / "hidden"), "/root/.bashrc",
                 "/home", "/work", "/etc/shadow"):
        if interpreter.is_relative_to(gone):
            continue
        assert not exists[gone], f"{gone} is visible to the student's code"
    assert not exists[str(KIT / "solutions")] and not exists[str(EMBEDDING_SUITES / "hidden")]
    # other staging, --out
    assert not any(v for k, v in exists.items() if "pytest" in k or "/out" in k), exists
    assert exists["/runtime/gk_worker.py"] and exists["/submission/leetcode.py"]
    hidden_package = next(p for p in exists if p.endswith("nbformat"))
    assert view["listing"][hidden_package] == [], "a hidden path inside a bound tree must show up empty"
    assert view["cwd"] == "/submission"
    assert view["writable"] == {"/submission": False, "/tmp": True}


@needs_namespaces
def test_namespaces_environment_and_limits(ns_view) -> None:
    _, view, _ = ns_view
    assert set(view["env"]) <= set(sandbox.scrubbed_env(Path("/tmp"), 1)) | {reap.TAG_VAR}
    limits = view["limits"]
    assert limits["RLIMIT_NPROC"] == 48
    assert limits["RLIMIT_FSIZE"] == 1 * MiB
    assert limits["RLIMIT_NOFILE"] == SandboxPolicy().open_files
    assert limits["RLIMIT_CPU"] == SandboxPolicy().cpu_seconds


@needs_namespaces
def test_memory_limit(ns_view) -> None:
    """A memory cgroup counts real use; without one RLIMIT_AS gets torch's reservation on top."""
    client, view, launch = ns_view
    group = launch.cgroup
    if group is None:
        assert view["limits"]["RLIMIT_AS"] == SandboxPolicy().memory_bytes + sandbox.ADDRESS_SPACE_OVERHEAD
        return
    assert view["limits"]["RLIMIT_AS"] == -1  # the cgroup does it, without breaking `import torch`
    name = "memory.max" if group.version == 2 else "memory.limit_in_bytes"
    assert int((group.dirs[0] / name).read_text()) == SandboxPolicy().memory_bytes


@needs_namespaces
def test_namespaces_limit_files_and_processes(ns_view) -> None:
    client, _, _ = ns_view
    with pytest.raises(StudentRaised) as info:
        _call(client, "gk_probe_mod.big_file", 2 * MiB)
    assert "File too large" in info.value.message or info.value.type_name == "OSError"
    started, error = _call(client, "gk_probe_mod.fork_many", 100)
    assert error == "BlockingIOError" and started < 48  # RLIMIT_NPROC of the worker's own uid
    # and the 48 sleepers go with the worker
    launch = client.launch
    client.stop()
    assert not reap.matching(launch.tag, launch.uid)


def test_process_mode(tmp_path, listener, monkeypatch) -> None:
    """The degraded mode: own session, scrubbed environment, rlimits; it says so."""
    monkeypatch.setenv("GK_GRADER_SECRET", "not-for-students")
    client = WorkerClient(_staging(tmp_path), policy=SandboxPolicy(isolation="process", file_size=1 * MiB))
    try:
        view = _call(client, "gk_probe_mod.look", [str(KIT / "solutions")], listener.getsockname()[1])
        assert client.isolation == "process"
        assert "GK_GRADER_SECRET" not in view["env"]
        assert set(view["env"]) <= set(sandbox.scrubbed_env(Path("/tmp"), 1)) | {reap.TAG_VAR}
        assert view["sid"] != os.getsid(0) and view["pgid"] != os.getpgid(0)
        assert view["limits"]["RLIMIT_FSIZE"] == 1 * MiB
        assert view["limits"]["RLIMIT_AS"] == SandboxPolicy().memory_bytes + sandbox.ADDRESS_SPACE_OVERHEAD
        with pytest.raises(StudentRaised):
            _call(client, "gk_probe_mod.big_file", 2 * MiB)
        assert _call(client, "leetcode.count_primes", 10) == 4
    finally:
        client.stop()
    try:  # the degraded mode does not cut the network (README: Security): drain what arrived
        listener.accept()[0].close()
    except BlockingIOError:
        pass


def test_auto_degrades_and_says_so(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(sandbox, "namespaces_status", lambda: (False, "not running as root"))
    monkeypatch.setattr(sandbox, "uid_status", lambda: (False, "not running as root"))
    monkeypatch.setattr(sandbox, "running_as_root", lambda: False)  # as root, auto refuses instead
    policy = SandboxPolicy()
    assert policy.describe() == "process"
    with WorkerClient(_staging(tmp_path), policy=policy) as client:
        assert _call(client, "leetcode.count_primes", 10) == 4
        assert client.isolation == "process"
    with pytest.raises(sandbox.SandboxUnavailable, match="not running as root"):
        sandbox.resolve_isolation(SandboxPolicy(isolation="namespaces"))


def test_cli_flags_set_the_policy(tmp_path, monkeypatch) -> None:
    args = build_parser().parse_args([
        "sub", "--isolation", "process", "--memory-mb", "2048", "--cpu-seconds", "60", "--processes", "32",
        "--file-size-mb", "8", "--open-files", "64", "--scratch-mb", "128", "--output-kb", "16",
        "--call-timeout", "7", "--import-timeout", "45", "--time-limit", "300", "--out", str(tmp_path)])
    policy = policy_from_args(args)
    assert (policy.isolation, policy.memory_bytes, policy.cpu_seconds,
            policy.processes) == ("process", 2 * GiB, 60, 32)
    assert (policy.file_size, policy.open_files, policy.scratch_bytes,
            policy.output_limit) == (8 * MiB, 64, 128 * MiB, 16384)
    assert (policy.call_seconds, policy.import_seconds, policy.submission_seconds) == (7.0, 45.0, 300.0)
    assert policy.hide == (str(tmp_path),)
    defaults = policy_from_args(build_parser().parse_args(["sub"]))
    assert defaults.memory_bytes == 4 * GiB and defaults.isolation == "auto"
    monkeypatch.setattr(sandbox, "namespaces_status", lambda: (False, "not running as root"))
    with pytest.raises(SystemExit) as info:
        policy_from_args(build_parser().parse_args(["sub", "--isolation", "namespaces"]))
    assert info.value.code == 2


def test_submission_time_limit(tmp_path) -> None:
    client = WorkerClient(_staging(tmp_path), policy=SandboxPolicy(submission_seconds=0.2))
    time.sleep(0.3)
    started = time.monotonic()
    with pytest.raises(WorkerTimeout):
        _call(client, "leetcode.count_primes", 10)
    assert time.monotonic() - started < 1 and client.launch is None  # refused without starting a worker


def test_exit_status_in_words() -> None:
    launch = sandbox.Launch(process=None, isolation="namespaces", scratch=Path("/nonexistent"))  # type: ignore[arg-type]
    assert launch.describe_exit(137) == "killed by SIGKILL"
    assert launch.describe_exit(-9) == "killed by SIGKILL"
    assert launch.describe_exit(0) == "exit status 0"
    assert launch.describe_exit(3) == "exit status 3"


def test_what_the_view_binds_and_covers() -> None:
    trees = sandbox.python_trees()
    assert trees and all(t != str(KIT) and not str(KIT).startswith(t + "/") for t in trees)
    inside = str(Path(trees[0]) / "some-kit-copy")
    around = str(Path(trees[0]).parent)  # e.g. a kit folder holding .venv: covering it would hide Python
    hidden = sandbox.hidden_paths(SandboxPolicy(hide=(inside, around, "/nowhere/reports")))
    assert inside in hidden and around not in hidden and "/nowhere/reports" not in hidden


def test_full_marks_under_production_limits(reference_results: dict) -> None:
    """The default limits (4 GB, 128 processes...) do not get in the way of a correct submission: the
    reference graded under them with both suites, every task, once for the run (tests/conftest.py)."""
    results = reference_results
    assert results["isolation"] == ("namespaces" if NAMESPACES else "process")
    failed = [(t["id"], t["message"][:200]) for t in results["tests"] if t["status"] != "passed"]
    assert not failed and results["score"] == results["max_score"] > 0
    assert results["worker"]["restarts"] == 0


def test_leftovers_of_killed_graders_are_swept(tmp_path, monkeypatch) -> None:
    """A grader killed before its teardown leaves a folder (and maybe a cgroup); the next one removes them."""
    monkeypatch.setattr(sandbox.tempfile, "gettempdir", lambda: str(tmp_path))
    stale, mine = tmp_path / "gk-worker-stale", tmp_path / "gk-worker-mine"
    for folder, owner in ((stale, "999999999 0"), (mine, f"{os.getpid()} {reap.start_time(os.getpid())}")):
        (folder / "runtime").mkdir(parents=True)
        (folder / "owner").write_text(owner)
    sandbox._sweep_once.__wrapped__()
    assert not stale.exists() and mine.exists()
    group = sandbox.Cgroup.create("gk-test-sweep", GiB, 8)
    if group is not None:  # an empty group of nobody's is removed once old enough
        assert sandbox.sweep_stale(min_age=0) >= 1 and not any(d.exists() for d in group.dirs)


# -- the uid level (root without namespaces): its parts, on this machine; the whole under Docker's
# defaults in tests/test_gradescope_container.py and tests/test_attacks.py
from grader.sandbox import uid as uid_mod  # noqa: E402

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (setuid, chown)")


def test_auto_takes_uid_where_root_has_no_namespaces(monkeypatch) -> None:
    refused = (False, "unshare failed: Operation not permitted")
    monkeypatch.setattr(sandbox, "namespaces_status", lambda: refused)
    monkeypatch.setattr(sandbox, "uid_status", lambda: (True, "root, setuid works"))
    assert sandbox.resolve_isolation(SandboxPolicy()) == "uid"
    assert sandbox.resolve_isolation(SandboxPolicy(isolation="uid")) == "uid"
    assert sandbox.resolve_isolation(SandboxPolicy(isolation="process")) == "process"
    with pytest.raises(sandbox.SandboxUnavailable, match="Operation not permitted"):
        sandbox.resolve_isolation(SandboxPolicy(isolation="namespaces"))
    monkeypatch.setattr(sandbox, "uid_status", lambda: (False, "not running as root"))
    with pytest.raises(sandbox.SandboxUnavailable, match="uid isolation is not available here"):
        sandbox.resolve_isolation(SandboxPolicy(isolation="uid"))


def test_seal_takes_others_out_but_leaves_python_runnable(tmp_path) -> None:
    kit = tmp_path / "kit"
    for rel in ("grader/suites/hidden/test_x.py", "solutions/embedding.py", ".venv/bin/python", "README.md"):
        (kit / rel).parent.mkdir(parents=True, exist_ok=True)
        (kit / rel).write_text("x")
    for path in [kit, *kit.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    sealed = uid_mod.seal([str(kit)], keep=[str(kit / ".venv")])
    names = ("", "grader", "solutions", ".venv", "README.md")
    mode = {rel: os.stat(kit / rel).st_mode & 0o777 for rel in names}
    assert mode[""] & 0o001 and mode[".venv"] == 0o755  # crossed to reach Python, which stays as it was
    assert mode["grader"] == 0o750 and mode["solutions"] == 0o750 and mode["README.md"] == 0o640
    assert str(kit / ".venv") not in sealed and str(kit / "grader") in sealed


@needs_root
def test_staging_copy_and_private_tmp(tmp_path) -> None:
    sub = _staging(tmp_path)
    (sub / "link.py").symlink_to("/etc/passwd")
    gid = sandbox.UID_BASE + 7
    copy = uid_mod.stage(sub, tmp_path / "copy", gid)
    st = os.stat(copy)
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (0, gid, 0o750)  # its group reads, nobody else
    files = [os.stat(p) for p in copy.glob("*.py") if not p.is_symlink()]
    assert files and all((f.st_uid, f.st_gid, f.st_mode & 0o777) == (0, gid, 0o640) for f in files)
    assert (copy / "link.py").is_symlink()  # kept a link: the reader refuses links
    tmp = uid_mod.private_tmp(sandbox.UID_BASE + 7)
    try:
        st = os.stat(tmp)
        assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (sandbox.UID_BASE + 7,) * 2 + (0o700,)
    finally:
        shutil.rmtree(tmp)


@needs_root
def test_teardown_kills_every_process_of_the_uid_and_removes_its_files() -> None:
    uid = sandbox.UID_BASE + 11
    import tempfile

    shared = Path(tempfile.mkdtemp(prefix="gk-shared-"))  # pytest's own folders are root's alone
    os.chmod(shared, 0o1777)
    (shared / "root-owned").write_text("stays")
    child = os.fork()
    if child == 0:  # as the uid: daemons that left the session, and a file in a world-writable folder
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            (shared / "left-behind").write_text("x")
            for _ in range(5):
                if os.fork() == 0:
                    os.setsid()
                    if os.fork() == 0:
                        time.sleep(60)
                    os._exit(0)  # noqa: B012 - every path of a forked child ends here
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    deadline = time.monotonic() + pace.seconds(5)
    # the five daemons; an intermediate child may still be on its way out (then the count settles at 5)
    while len(reap.matching(uid=uid)) != 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(reap.matching(uid=uid)) >= 5
    uid_mod.kill_uid(uid)
    assert not reap.matching(uid=uid)
    uid_mod.remove_leftovers(uid, [str(shared)])
    try:
        assert sorted(p.name for p in shared.iterdir()) == ["root-owned"]
    finally:
        shutil.rmtree(shared)


# -- torch's warm-up: what a filtered grade skips (SandboxPolicy.torch_warm_up) ------------------------
WARMED = "import sys\n\n\ndef warmed():\n    return 'torch._dynamo' in sys.modules\n"
WARM_SCRIPT = textwrap.dedent('''
    import json, sys
    from pathlib import Path
    from grader.sandbox.client import WorkerClient
    from grader.sandbox.launch import SandboxPolicy
    seen = []
    for warm in (False, True, False):  # one zygote for the three workers, as in one grade or one batch
        policy = SandboxPolicy(isolation=sys.argv[2], torch_warm_up=warm)
        client = WorkerClient(Path(sys.argv[1]), policy=policy)
        try:
            seen.append(client.request({"op": "call", "target": "warm_probe.warmed"}, (), {}, 120.0))
        finally:
            client.stop()
    print(json.dumps(seen))
''')


@pytest.mark.parametrize("level", ["namespaces", "process"])
def test_a_worker_is_warmed_up_only_when_asked_and_a_zygote_stays_so(tmp_path: Path, level: str) -> None:
    """torch._dynamo (about 900 modules the first optimizer step imports) is in a worker only where its
    policy asks for the warm-up: a full grade's, not a filtered one's. A zygote, warmed once for a worker
    that asked, forks every later worker warm (its pages shared); an executed worker warms up on its own."""
    if level == "namespaces" and not NAMESPACES:
        pytest.skip(f"namespaces isolation unavailable: {WHY_NOT}")
    sub = tmp_path / "staging"
    sub.mkdir()
    (sub / "warm_probe.py").write_text(WARMED)
    # a process of its own: this one's zygote may have been warmed by an earlier test's grade
    done = subprocess.run([sys.executable, "-c", WARM_SCRIPT, str(sub), level], capture_output=True,
                          text=True, timeout=pace.seconds(300), cwd=KIT)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == ([False, True, True] if level == "namespaces" else [False, True, False])
