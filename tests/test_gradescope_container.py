"""The Gradescope bundle in a simulated Gradescope container: memory cgroup, CPU quota, wall limit.

Gradescope's default container has 768 MB, 0.5 CPU and a 10-minute timeout. Here the
bundle's run_autograder runs in a fresh cgroup v1 memory group (memsw too, so no swap)
and a cpu group with a CFS quota, inside a mount namespace where /sys/fs/cgroup is
read-only (as in Docker: the kit cannot make worker groups of its own there), under
`timeout`. It needs root and a writable cgroup v1 memory hierarchy; elsewhere it skips.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pace
import pytest
import venvs

from grader.instructor import gradescope_bundle as gsb
from lesson_embedding_pe.paths import SUITES as EMBEDDING_SUITES

# Not in xdist_group("kit-seal") (tests/test_host.py): each grade here runs the bundle's own copy of the
# kit under its /autograder (under Docker's defaults the checkout is hidden from the container, and its
# /tmp and seal record are its own), so its uid-level grades seal only that copy, and a uid-level grade of
# the checkout beside it leaves open what these read of the checkout (its .venv: the seal keeps the
# grader's Python trees). The tests of one bundle run on one worker (the module fixture, tests/conftest.py).

ROOT = Path(__file__).resolve().parents[1]
CG = Path("/sys/fs/cgroup")
HIDDEN = EMBEDDING_SUITES / "hidden"


def can_simulate() -> str | None:
    if os.geteuid() != 0:
        return "needs root to make cgroups"
    if (not (CG / "memory" / "memory.limit_in_bytes").exists()
            or not (CG / "cpu" / "cpu.cfs_quota_us").exists()):
        return "needs cgroup v1 memory and cpu hierarchies"
    if not os.access(CG / "memory", os.W_OK):
        return "/sys/fs/cgroup/memory is not writable"
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        return "needs unshare -m (mount namespaces)"
    return None


def layout(tmp: Path, bundle: Path, submission: Path) -> Path:
    root = tmp / "autograder"
    for d in ("source", "submission", "results"):
        (root / d).mkdir(parents=True)
    with zipfile.ZipFile(bundle) as zf:
        zf.extractall(root / "source")
    (root / "run_autograder").write_bytes((root / "source" / "run_autograder").read_bytes())
    for f in submission.iterdir():
        if f.is_file():
            (root / "submission" / f.name).write_bytes(f.read_bytes())
    return root


def setup_python(root: Path) -> str:
    """The interpreter as the bundle's setup.sh leaves it: the kit's dependencies (this Python's, as
    Gradescope's image has them) and each lesson shipped in /autograder/source/lessons/ importable from
    there, which is what its `pip install -e` gives (a path entry; the registry's entry point is the
    installed one's). A venv with the lessons' path entries and metadata stands in for running pip here
    (tests/venvs.py)."""
    venv = root.parent / "python"
    if not venv.exists():
        site = venvs.make_venv(venv, pip=False)
        for lesson in sorted((root / "source" / "lessons").glob("*/")):
            if (lesson / "pyproject.toml").exists():
                venvs.register_source_lesson(site, lesson)
    return str(venv / "bin" / "python")


def run_in_container(root: Path, memory_mb: int, cpus: float, wall_s: int) -> dict:
    """run_autograder under the limits; its results.json, wall time and the group's peak and OOM kills."""
    name = f"gk-gs-test-{os.getpid()}-{memory_mb}"
    mem, cpu = CG / "memory" / name, CG / "cpu" / name
    mem.mkdir()
    cpu.mkdir()
    try:
        (mem / "memory.limit_in_bytes").write_text(str(memory_mb * 2**20))
        if (mem / "memory.memsw.limit_in_bytes").exists():
            (mem / "memory.memsw.limit_in_bytes").write_text(str(memory_mb * 2**20))
        (cpu / "cpu.cfs_period_us").write_text("100000")
        (cpu / "cpu.cfs_quota_us").write_text(str(int(cpus * 100000)))
        inner = ("for d in /sys/fs/cgroup/*/; do mount -o remount,bind,ro \"$d\" 2>/dev/null "
                 "|| mount --bind -o ro \"$d\" \"$d\"; done; "
                 f"exec timeout {wall_s} bash {root}/run_autograder")
        script = (f"echo $$ > {mem}/cgroup.procs && echo $$ > {cpu}/cgroup.procs && "
                  f"exec unshare -m --propagation private bash -c '{inner}'")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env.update(AUTOGRADER_ROOT=str(root), GK_PYTHON=setup_python(root))
        started = time.monotonic()
        proc = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                              timeout=wall_s + 60)
        wall = time.monotonic() - started
        oom = int(next(line.split()[1] for line in (mem / "memory.oom_control").read_text().splitlines()
                       if line.startswith("oom_kill ")) or 0)
        peak = int((mem / "memory.max_usage_in_bytes").read_text()) / 2**20
    finally:
        for d in (mem, cpu):
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)
    gs = json.loads((root / "results" / "results.json").read_text())
    return {"gs": gs, "wall": wall, "oom": oom, "peak_mb": peak, "proc": proc}


def test_bundle_declares_what_it_needs_and_its_timeout_fits(tmp_path: Path) -> None:
    names = gsb.build_bundle(tmp_path / "a.zip", hidden=False)
    assert "gk_gradescope.json" in names
    with zipfile.ZipFile(tmp_path / "a.zip") as zf:
        config = json.loads(zf.read("gk_gradescope.json"))
    assert config["requires"] == gsb.REQUIRES
    assert config["timeout"] <= config["gradescope_timeout"] - gsb.TIMEOUT_MARGIN
    assert config["gradescope_timeout"] == 600  # Gradescope's default
    with pytest.raises(ValueError, match="Gradescope would kill"):
        gsb.build_bundle(tmp_path / "b.zip", hidden=False, timeout=1800)
    proc = subprocess.run([sys.executable, "-m", "grader.cli", "gradescope-bundle", str(tmp_path / "c.zip"),
                           "--public-only"], cwd=ROOT, capture_output=True, text=True,
                           timeout=pace.seconds(60))
    # said where it is set up
    assert proc.returncode == 0 and "1.5 GB" in proc.stdout and "600 s" in proc.stdout


def test_the_note_when_the_container_is_too_small() -> None:
    lacking = gsb.short_of(gsb.REQUIRES, {"memory_mb": 768, "cpus": 0.5})
    assert set(lacking) == {"memory_mb", "cpus"}
    assert not gsb.short_of(gsb.REQUIRES, {"memory_mb": 1536, "cpus": 1.0})
    gs = {"output": "summary", "tests": [
        {"status": "failed", "output": "The process running your code died (killed by SIGKILL)"},
        {"status": "failed", "output": "expected 1; found 2"}]}
    gsb.flag_resource_failures(gs, gsb.resource_note(lacking, "en"))
    assert gs["output"].startswith("Note: this autograder container has memory 768 MB, cpus 0.5")
    assert "1536 MB" in gs["tests"][0]["output"] and "Note" not in gs["tests"][1]["output"]
    assert "컨테이너" in gsb.resource_note(lacking, "ko")


@pytest.mark.skipif(not any(HIDDEN.glob("test_*.py")), reason="the hidden suite is not in this copy")
def test_reference_in_simulated_gradescope_containers(tmp_path: Path) -> None:
    """Full marks within the declared container; Gradescope's default is flagged, never silently short."""
    why = can_simulate()
    if why:
        pytest.skip(f"cannot simulate a Gradescope container here: {why}")
    bundle = tmp_path / "autograder.zip"
    assert gsb.main([str(bundle), "--lang", "en"]) == 0  # as the instructor builds it: the lesson ships too
    config_timeout = gsb.GRADESCOPE_TIMEOUT
    declared = run_in_container(layout(tmp_path / "declared", bundle, ROOT / "examples" / "reference"),
                                gsb.REQUIRES["memory_mb"], gsb.REQUIRES["cpus"], int(config_timeout))
    gs = declared["gs"]
    full = round(sum(t["max_score"] for t in gs["tests"]), 6)  # 0.4-point cases: float sums
    assert gs["score"] == full == 94.5, [t["name"] for t in gs["tests"] if t["status"] != "passed"]
    assert declared["oom"] == 0 and declared["wall"] < config_timeout
    assert "Note: this autograder container" not in gs["output"]
    print(f"declared container: {declared['wall']:.0f} s, peak {declared['peak_mb']:.0f} MB")

    default = run_in_container(layout(tmp_path / "default", bundle, ROOT / "examples" / "reference"), 768,
                               0.5, int(config_timeout))
    gs = default["gs"]
    assert default["wall"] < config_timeout  # the kit finishes (or stops itself) before Gradescope's kill
    assert gs["output"].startswith("Note: this autograder container has memory 768 MB, cpus 0.5")
    died = [t for t in gs["tests"]
            if t["status"] == "failed" and "process running your code died" in t["output"]]
    assert all("the kit needs" in t["output"] for t in died)
    # the student's own path, not Gradescope's
    assert not any("grade submission" in t["output"] for t in gs["tests"])
    # a memory kill is never left looking like a bug
    assert all("grade exercises" in t["output"] for t in died)
    assert all(t["status"] == "passed" for t in gs["tests"] if t not in died), \
        [t["name"] for t in gs["tests"] if t["status"] != "passed" and t not in died]
    print(f"default container: {default['wall']:.0f} s, peak {default['peak_mb']:.0f} MB, "
          f"{default['oom']} OOM kills, {len(died)} tests lost to memory")


# -- Docker's defaults: root, no namespaces (tests/docker_defaults.py) ---------------------------
# Gradescope runs run_autograder as root in Docker with Docker's default capabilities and seccomp
# profile: no unshare, so the kit takes the `uid` level. The policy: 10 % a day; the metadata: 1 day
# 10 h late, so 2 started days, 20 % off 94.5.
POLICY = """\
due = 2026-03-10T23:59:00+09:00
close = 2026-03-17T23:59:00+09:00

[late]
grace_minutes = 15
per = "day"
deduct_percent = 10
max_percent = 50
"""
METADATA = {"id": 1, "created_at": "2026-03-12T09:59:00.000000+09:00",
            "assignment": {"due_date": "2026-03-10T23:59:00.000000+09:00", "late_due_date": None,
                           "title": "Lesson 3", "total_points": "94.5"},
            "users": [{"email": "s@uni.example", "id": 7, "name": "S"}]}
LATE_TOTAL = 75.6
# The attack, appended to the reference's embedding.py: at import, as the student, it forges an on-time
# created_at, kills its parent (the process that started it), and leaves a daemon that
# rewrites results.json for two minutes. @ROOT@ is the /autograder of the run.
ATTACK_TAIL = '''

import json as _json  # noqa: E402
import os as _os  # noqa: E402
import time as _time  # noqa: E402

_ROOT = "@ROOT@"


def _forge():
    meta = _os.path.join(_ROOT, "submission_metadata.json")
    try:
        with open(meta) as fh:
            data = _json.load(fh)
    except (OSError, ValueError):
        data = {}
    data["created_at"] = "2026-03-10T20:00:00.000000+09:00"
    try:
        with open(meta, "w") as fh:
            _json.dump(data, fh)
    except OSError:
        pass
    try:
        _os.kill(_os.getppid(), 9)
    except OSError:
        pass
    if _os.fork() == 0:
        _os.setsid()
        if _os.fork() == 0:
            forged = _json.dumps({"score": 94.5, "output": "FORGED", "tests": []})
            end = _time.time() + 120
            while _time.time() < end:
                for name in ("results.json", "results.json.tmp"):
                    try:
                        with open(_os.path.join(_ROOT, "results", name), "w") as fh:
                            fh.write(forged)
                    except OSError:
                        pass
                _time.sleep(0.1)
        _os._exit(0)


_forge()
'''
# The carrier: int_to_roman (a practice problem; the best two of four count) raises whatever the
# search of /autograder/source and the kit found, so the names would reach the student's feedback;
# what it found is also left in @DROP@, a folder every uid may write, for the test to read.
LEAK_CARRIER = '''

import os as _os  # noqa: E402
import re as _re  # noqa: E402


def _search():
    found = []
    for top in ("@ROOT@/source", "@KIT@"):
        for folder, dirs, files in _os.walk(top):
            # the interpreter's own packages (the image's Python, which may lie in the clone as `.venv`)
            # hold their own test_*.py files, none of them the course's
            dirs[:] = [d for d in dirs if d not in ("site-packages", "dist-packages")]
            for name in files:
                if name.startswith("test_") and name.endswith(".py"):
                    try:
                        with open(_os.path.join(folder, name)) as fh:
                            found += _re.findall(r"def (test_\\w+)", fh.read())
                    except OSError as exc:
                        found.append(type(exc).__name__)
    for path in ("@ROOT@/source/lessons/embedding-pe/lesson_embedding_pe/suites/hidden/test_pe.py",
                 "@KIT@/../lesson_embedding_pe/suites/hidden/test_pe.py"):
        try:
            with open(path) as fh:
                found += _re.findall(r"def (test_\\w+)", fh.read())
        except OSError as exc:
            found.append(type(exc).__name__)
    try:  # what it would carry out, where the test (not the student) can look
        with open("@DROP@/found.txt", "w") as fh:
            fh.write(" ".join(found))
    except OSError:
        pass
    return found


_FOUND = _search()


def int_to_roman(num):
    raise RuntimeError("LEAK %d: %s" % (len(_FOUND), " ".join(_FOUND)))
'''


def _hidden_names() -> set[str]:
    return {n for f in HIDDEN.glob("test_*.py") for n in re.findall(r"def (test_\w+)", f.read_text())}


def _sim_run(root: Path, wall_s: int) -> dict:
    """run_autograder at ``root`` inside the simulated container, within the declared memory where a
    cgroup v1 memory group can be made; its results.json, wall time, peak memory (MiB) and OOM kills."""
    import docker_defaults

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(AUTOGRADER_ROOT=str(root), GK_PYTHON=setup_python(root))
    mem = CG / "memory" / f"gk-docker-test-{os.getpid()}-{time.monotonic_ns()}"
    limited = can_simulate() is None
    if limited:
        mem.mkdir()
        limit = str(gsb.REQUIRES["memory_mb"] * 2**20)
        (mem / "memory.limit_in_bytes").write_text(limit)
        if (mem / "memory.memsw.limit_in_bytes").exists():
            (mem / "memory.memsw.limit_in_bytes").write_text(limit)
    started = time.monotonic()
    try:
        # The container has the kit only in /autograder/source: the checkout is not there.
        proc = docker_defaults.run(f"timeout {wall_s} bash {root}/run_autograder", env=env,
                                   timeout=wall_s + 60, hide=(str(ROOT),), tmp=(str(root.parent.parent),),
                                   cgroup_procs=(mem / "cgroup.procs",) if limited else ())
        wall = time.monotonic() - started
        peak, oom = 0.0, 0
        if limited:
            peak = int((mem / "memory.max_usage_in_bytes").read_text()) / 2**20
            oom = int(next(line.split()[1] for line in (mem / "memory.oom_control").read_text().splitlines()
                           if line.startswith("oom_kill ")) or 0)
    finally:
        for _ in range(50):
            if not mem.exists():
                break
            try:
                mem.rmdir()
            except OSError:
                time.sleep(0.1)
    return {"proc": proc, "wall": wall, "peak_mb": peak, "oom": oom, "ns": docker_defaults.mount_ns(proc),
            "gs": json.loads((root / "results" / "results.json").read_text())}


@pytest.fixture(scope="module")
def docker_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sys.path.insert(0, str(Path(__file__).parent))
    import docker_defaults

    why = docker_defaults.unavailable()
    if why:
        pytest.skip(f"cannot simulate Docker's defaults here: {why}")
    if not any(HIDDEN.glob("test_*.py")):
        pytest.skip("the hidden suite is not in this copy")
    tmp = tmp_path_factory.mktemp("docker")
    (tmp / "policy.toml").write_text(POLICY)
    bundle = tmp / "autograder.zip"
    assert gsb.main([str(bundle), "--lang", "en", "--policy", str(tmp / "policy.toml")]) == 0
    return bundle


def _layout_late(tmp: Path, bundle: Path, submission: Path) -> Path:
    root = layout(tmp, bundle, submission)
    (root / "submission_metadata.json").write_text(json.dumps(METADATA))
    return root


def test_docker_defaults_refuse_namespaces_and_keep_dockers_capabilities() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import docker_defaults

    why = docker_defaults.unavailable()
    if why:
        pytest.skip(f"cannot simulate Docker's defaults here: {why}")
    probe = ("grep -E '^Cap(Eff|Bnd)' /proc/self/status; unshare -U true; echo userns=$?; unshare -m true; "
             "echo mountns=$?; id -u")
    done = docker_defaults.run(probe, timeout=pace.seconds(60))
    said = [x for x in done.stdout.splitlines() if re.search("[:=]", x)]
    lines = dict(re.split(r"[:=]\s*", x, maxsplit=1) for x in said)
    assert int(lines["CapBnd"], 16) == int(lines["CapEff"], 16) == docker_defaults.DOCKER_CAP_MASK
    assert lines["userns"] != "0" and lines["mountns"] != "0", done.stdout + done.stderr
    assert done.stdout.split()[-1] == "0"  # still root
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from grader.sandbox import launch; "
            "print(launch.namespaces_status()[0], launch.resolve_isolation(launch.SandboxPolicy()))")
    done = docker_defaults.run(f"{sys.executable} -c {code!r}", timeout=pace.seconds(120), cwd=str(ROOT))
    assert done.stdout.split() == ["False", "uid"], done.stdout + done.stderr


@pytest.fixture
def open_tmp():
    """A folder every uid can cross, as / is for /autograder (pytest's own tmp is root's alone)."""
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="gk-gs-docker-"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_reference_and_attacks_under_dockers_defaults(docker_bundle: Path, open_tmp: Path) -> None:
    """The reference keeps its score and late penalty; the attack gains nothing and learns nothing."""
    tmp_path = open_tmp
    ref = _sim_run(_layout_late(tmp_path / "ref", docker_bundle, ROOT / "examples" / "reference"), 600)
    gs = ref["gs"]
    assert round(sum(t["max_score"] for t in gs["tests"]), 6) == 94.5, gs["output"][:1500]
    assert all(t["status"] == "passed" for t in gs["tests"]), [t["name"] for t in gs["tests"]
                                                              if t["status"] != "passed"]
    assert gs["score"] == pytest.approx(LATE_TOTAL), gs["output"][:600]
    assert "Isolation: uid" in gs["output"]
    assert ref["oom"] == 0  # within the memory the bundle declares (where a memory cgroup could be made)

    sub = tmp_path / "attack-src"
    shutil.copytree(ROOT / "examples" / "reference", sub)
    root = tmp_path / "attack" / "autograder"
    (sub / "embedding.py").write_text((sub / "embedding.py").read_text() + ATTACK_TAIL.replace("@ROOT@",
                                                                                               str(root)))
    leetcode = (sub / "leetcode.py").read_text().replace("def int_to_roman(", "def _honest_int_to_roman(")
    drop = tmp_path / "drop"
    drop.mkdir(mode=0o777)
    os.chmod(drop, 0o1777)
    # root's file, which the student may write: the teardown removes what the worker's uid owns in every
    # world-writable folder (a file it made here would be gone), not the contents of others' files
    (drop / "found.txt").write_text("")
    os.chmod(drop / "found.txt", 0o666)
    (sub / "leetcode.py").write_text(leetcode + LEAK_CARRIER.replace("@ROOT@", str(root))
                                     .replace("@KIT@", str(ROOT)).replace("@DROP@", str(drop)))
    assert _layout_late(tmp_path / "attack", docker_bundle, sub) == root
    run = _sim_run(root, 600)
    time.sleep(1.0)  # a daemon, had one survived, would have rewritten results.json by now
    gs = json.loads((root / "results" / "results.json").read_text())
    assert gs == run["gs"] and "FORGED" not in json.dumps(gs)
    import docker_defaults

    # none of the worker's uid left in the container: SIGKILLed ones may take a moment to go on a busy
    # machine; the attack's daemon, had it survived, would still be there (it lives two minutes)
    left = docker_defaults.worker_uid_processes(run["ns"])
    deadline = time.monotonic() + pace.seconds(15)
    while left and time.monotonic() < deadline:
        time.sleep(0.5)
        left = docker_defaults.worker_uid_processes(run["ns"])
    assert not left
    # the forged created_at changed nothing: the honest twin's total, late penalty included
    assert gs["score"] == pytest.approx(LATE_TOTAL), gs["output"][:600]
    assert json.loads((root / "submission_metadata.json").read_text()) == METADATA
    # the search ran as the student, and found nothing of the hidden suite
    found = (drop / "found.txt").read_text().split()
    assert found[0] == "PermissionError" and len(found) == 2, found  # /autograder is root's alone
    names = _hidden_names()
    assert names and not names & set(found)
    # and nothing shown to the student names a hidden test that the reference's feedback does not
    shown, ref_shown = json.dumps(gs), json.dumps(ref["gs"])
    assert not {n for n in names if n in shown} - {n for n in names if n in ref_shown}
    assert "Isolation: uid" in gs["output"]
    assert run["oom"] == 0
    print(f"Docker's defaults: reference {ref['wall']:.0f} s, peak {ref['peak_mb']:.0f} MB; "
          f"attack {run['wall']:.0f} s, peak {run['peak_mb']:.0f} MB")


def test_the_bundle_refuses_to_grade_as_root_at_process(docker_bundle: Path, open_tmp: Path) -> None:
    """Where the container's Python is root's alone (a pyenv under a 0700 /root), uid cannot start it:
    the bundle says so in one line and how to fix it, instead of running the student's code as root."""
    import docker_defaults

    root = _layout_late(open_tmp / "refused", docker_bundle, ROOT / "examples" / "reference")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(AUTOGRADER_ROOT=str(root), GK_PYTHON=setup_python(root))
    python = os.path.realpath(sys.executable)
    closed = "/root" if python.startswith("/root/") else os.path.dirname(python)
    proc = docker_defaults.run(f"chmod 700 {closed} && timeout 300 bash {root}/run_autograder", env=env,
                               timeout=pace.seconds(360), hide=(str(ROOT),), tmp=(str(root.parent.parent),),
                               private=(closed,))  # chmod in an overlay, never this machine's folder
    gs = json.loads((root / "results" / "results.json").read_text())
    assert gs["score"] == 0 and not gs["tests"], proc.stderr[-2000:]
    refused = [x for x in gs["output"].splitlines() if "uid isolation is not available here" in x]
    assert len(refused) == 2, gs["output"]  # the English line and the Korean one
    assert "--isolation process" in refused[0] and "apt-get install python3" in refused[0]
    assert "Traceback" not in gs["output"] and "Isolation: process" not in gs["output"]
