"""The warm grader (grader/daemon/): who it serves, and a real one graded through and stopped."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pace
import pytest

from grader.daemon import client, place, server
from tests.conftest import CORPUS


def test_used_only_where_asked_and_never_in_ci(monkeypatch):
    assert not client.wanted({"GK_NO_DAEMON": "1", "GK_DAEMON": "1"}, interactive=True)
    assert not client.wanted({"CI": "true"}, interactive=True)
    assert not client.wanted({"GITHUB_ACTIONS": "true", "GK_DAEMON": "1"}, interactive=True)
    assert not client.wanted({}, interactive=False)  # a script, a test: cold unless asked
    assert client.wanted({"GK_DAEMON": "1"}, interactive=False)
    assert client.wanted({}, interactive=True)
    assert not client.wanted({"GK_DAEMON": "0"}, interactive=True)  # a student's "never"


def test_a_wrong_folder_starts_no_warm_grader(tmp_path, monkeypatch):
    """`grade` answers a path that does not exist itself (cli.missing_target), before run_warm could
    start a warm grader; a folder with something to grade goes on."""
    from grader.cli import build_parser, missing_target

    monkeypatch.chdir(tmp_path)
    parse = build_parser("en", None).parse_args
    assert "`exercises` does not exist" in (missing_target(parse([])) or "")  # nothing here to grade
    assert "`nowhere` does not exist" in (missing_target(parse(["nowhere"])) or "")
    (tmp_path / "exercises").mkdir()
    assert missing_target(parse([])) is None and missing_target(parse(["exercises"])) is None


def test_stop_daemon_needs_no_lesson(tmp_path):
    """`grade --stop-daemon` typed anywhere (here a folder naming no lesson, two lessons installed)
    stops the warm grader or says none runs: it never asks which lesson."""
    run_dir = Path(tempfile.mkdtemp(prefix="gkd-"))
    env = {k: v for k, v in os.environ.items() if k not in ("GK_NO_DAEMON", "GK_LESSON")}
    env.update(XDG_RUNTIME_DIR=str(run_dir))
    try:
        for lang, said in (("en", "grade: no warm grader runs"), ("ko", "실행 중인 상주 채점기가 없습니다")):
            done = subprocess.run([*place.python_module("grader.cli"), "--stop-daemon", "--lang", lang],
                                  cwd=tmp_path, env=env, capture_output=True, text=True,
                                  timeout=pace.seconds(60))
            assert done.returncode == 0 and done.stderr.strip().endswith(said), done.stderr
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def test_refuses_the_hidden_suite_and_serves_any_folder():
    assert server.refuses({"cwd": "/a", "argv": []}) is None
    assert server.refuses({"cwd": "/b", "argv": []}) is None  # one warm grader for every folder
    assert server.refuses({"cwd": "rel", "argv": []}) == "no folder"
    for flag in (["--hidden"], ["--hidden-from=x.zip"], ["--ci"], ["--no-daemon"], ["--hidd"], ["--no-d"]):
        assert server.refuses({"cwd": "/a", "argv": ["exercises", *flag]}) == "a cold-only flag"


def test_socket_private_and_named_by_flags_not_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    a = place.socket_path("/x", ["policy_a"])
    assert stat.S_IMODE(a.parent.stat().st_mode) == 0o700
    assert a == place.socket_path("/y", ["policy_a"]) != place.socket_path("/x", ["policy_b"])
    tree = tmp_path / "kit"
    tree.mkdir()
    (tree / "m.py").write_text("x = 1\n")
    before = place.stamp([str(tree)])
    (tree / "m.py").write_text("x = 22\n")
    assert place.stamp([str(tree)]) != before
    # the kit changed keeping size and mtime: seen all the same (by content)
    info = (tree / "m.py").stat()
    again = place.stamp([str(tree)])
    (tree / "m.py").write_text("x = 33\n")
    os.utime(tree / "m.py", ns=(info.st_atime_ns, info.st_mtime_ns))
    assert (tree / "m.py").stat().st_mtime_ns == info.st_mtime_ns
    assert place.stamp([str(tree)]) != again


def _results(folder: Path) -> list[tuple]:
    data = json.loads((folder / "reports" / "results.json").read_text())
    return [data["score"], [(t["id"], t["status"], t["messages"]) for t in data["tests"]]]


def _below(pids: list[int]) -> list[str]:
    """The children of those of ``pids`` still running."""
    return [c for p in pids if Path(f"/proc/{p}").exists() for c in subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(p)], capture_output=True, text=True).stdout.split()]


def test_a_warm_grade_equals_a_cold_one_and_leaves_nothing(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "exercises").mkdir()
    for f in (CORPUS / "bug_no_scale").iterdir():
        if f.name != "expect.json":
            (work / "exercises" / f.name).write_bytes(f.read_bytes())
    # a short folder: a Unix socket's path has at most 107 bytes, and pytest's tmp_path under xdist is long
    run_dir = Path(tempfile.mkdtemp(prefix="gkd-"))
    env = {k: v for k, v in os.environ.items() if k not in ("GK_NO_DAEMON", "CI", "GITHUB_ACTIONS")}
    # The spare must outlive the moments between one grade and the next request (a `grade` starting) and
    # then go, which this test waits for: a few seconds on a quiet machine, more on a busy one.
    env.update(GK_DAEMON="1", XDG_RUNTIME_DIR=str(run_dir), GK_DAEMON_IDLE="300",
               GK_DAEMON_SPARE_IDLE=f"{pace.seconds(8):g}")
    # `grade` as a student's console script runs it: the folder is not on its path
    grade = place.python_module("grader.cli")
    folder = run_dir / f"gk-daemon-{os.getuid()}"
    pid, zygotes = 0, []
    # A student's repository with a `grader/` package of its own (a release ships one at its top): no
    # process of the warm grader (daemon, zygote, spare, forked grader) may import it.
    marker = run_dir / "planted-ran"
    (work / "grader").mkdir()
    (work / "grader" / "__init__.py").write_text(
        f"import os\nopen({str(marker)!r}, 'a').write(str(os.getpid()) + '\\n')\n")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*grade, *args], cwd=work, env=env, capture_output=True, text=True)

    try:
        cold = run("-q", "--lang", "en")
        cold_results = _results(work)
        deadline = time.monotonic() + pace.seconds(120)
        while not list(folder.glob("*.pid")) and time.monotonic() < deadline:
            time.sleep(0.2)
        (pid_file,) = folder.glob("*.pid")
        sock = pid_file.with_suffix(".sock")
        assert stat.S_IMODE(sock.stat().st_mode) == 0o600
        pid = int(pid_file.read_text().split()[0])
        note = "grade: a warm grader now keeps torch loaded for 5 min"  # the run that started it says so
        assert [line for line in cold.stderr.splitlines() if line.startswith(note)]
        cold.stderr = "".join(line for line in cold.stderr.splitlines(True) if not line.startswith(note))
        warm = run("-q", "--lang", "en")
        assert pid_file.read_text().split()[1] == "1"  # served by the daemon
        assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
        assert _results(work) == cold_results
        # the next one is served by the grader forked after that one, its imports done (a spare)
        again = run("-q", "--lang", "en")
        assert pid_file.read_text().split()[1] == "2"
        assert (again.returncode, again.stdout, again.stderr) == (cold.returncode, cold.stdout, cold.stderr)
        assert _results(work) == cold_results
        ps = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
        zygotes = [int(p) for p in ps.stdout.split()]
        assert zygotes
        for parent in list(zygotes):  # and what they hold: the spare grader waiting for the next request
            ps = subprocess.run(["ps", "-o", "pid=", "--ppid", str(parent)], capture_output=True, text=True)
            zygotes += [int(p) for p in ps.stdout.split()]
        assert len(zygotes) > 1
        # with no grade for GK_DAEMON_SPARE_IDLE seconds the spare goes: the zygote alone is left
        spare_gone = time.monotonic() + pace.seconds(180)
        while time.monotonic() < spare_gone and _below(zygotes):
            time.sleep(0.5)
        assert not _below(zygotes)
        assert "stopped" in run("--stop-daemon").stderr
        assert not marker.exists()  # nothing of the graded folder ran
    finally:
        run("--stop-daemon")
    assert list(folder.iterdir()) == []
    shutil.rmtree(run_dir, ignore_errors=True)
    deadline = time.monotonic() + pace.seconds(10)
    while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() for p in [pid, *zygotes]):
        time.sleep(0.1)
    alive = [p for p in [pid, *zygotes] if Path(f"/proc/{p}/status").exists()
             and "zombie" not in Path(f"/proc/{p}/status").read_text()]
    assert alive == []


def test_watch_shows_score_change_and_three_failures_within_the_width(tmp_path):
    from grader.daemon import watch

    results = tmp_path / "results.json"
    tests = [{"task": f"t{i}", "status": "failed", "messages": {"en": "x " * 80, "ko": "실패"}}
             for i in range(5)]
    results.write_text(json.dumps({"score": 3, "max_score": 10, "tests": [{"status": "passed"}, *tests]}))
    output = "Score 3/10\n+2 since the last run (04:06): t9 now passes\n"
    lines = watch.summary(output, results, "en", 40)
    assert lines[0] == "3 / 10"
    assert lines[1].startswith("+2 since the last run")
    assert [line.split(":")[0] for line in lines[2:5]] == ["✗ t0", "✗ t1", "✗ t2"]
    assert lines[5] == "… +2"
    assert all(len(line) <= 40 for line in lines)
    assert watch.summary(output, results, "ko", 40)[2] == "✗ t0: 실패"


def test_watch_sees_a_save(tmp_path):
    from grader.daemon import watch

    (tmp_path / "m.py").write_text("a = 1\n")
    before = watch.snapshot(tmp_path)
    time.sleep(0.01)
    (tmp_path / "m.py").write_text("a = 22\n")
    assert watch.snapshot(tmp_path) != before


def test_runtime_files_are_never_written_through_a_swapped_folder_or_a_link(tmp_path):
    """The folder is opened once and checked; after that, swapping it for one holding links named like the
    daemon's files (another user's $XDG_RUNTIME_DIR kept by `su` without `-`) reaches nothing."""
    base = tmp_path / "rt"
    base.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_text("root's own\n")
    os.chmod(victim, 0o600)
    folder = place.RuntimeDir(base)
    try:
        base.rename(tmp_path / "rt.old")
        base.mkdir(mode=0o700)
        for name in ("d.pid", "d.reuse"):
            (base / name).symlink_to(victim)
        folder.write("d.pid", b"123\n")
        folder.write("d.reuse", b"store")
        assert victim.read_text() == "root's own\n"
        assert (tmp_path / "rt.old" / "d.pid").read_bytes() == b"123\n"  # in the folder that was checked
        assert folder.read("d.reuse") == b"store"
        # a link inside the checked folder is never read through, and a write replaces it
        (tmp_path / "rt.old" / "l").symlink_to(victim)
        assert folder.read("l") is None
        folder.write("l", b"new")
        assert victim.read_text() == "root's own\n"
        assert not (tmp_path / "rt.old" / "l").is_symlink()
    finally:
        folder.close()
    (tmp_path / "link").symlink_to(base)
    with pytest.raises(OSError):  # a link in place of the folder
        place.RuntimeDir(tmp_path / "link")
    os.chmod(base, 0o755)
    with pytest.raises(OSError):  # a folder others may enter
        place.RuntimeDir(base)


def _fake_daemon(run_dir: Path, answer: bytes) -> subprocess.Popen:
    """A process listening where the user's daemon would, that says ``answer`` and then stops (SIGSTOP),
    as a stopped daemon does."""
    code = (
        "import os, signal, socket, sys\n"
        "from grader.daemon import place\n"
        "folder = place.RuntimeDir()\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        "s.bind(folder.address(place.socket_name(['k'])))\n"
        "s.listen(1)\n"
        "print('up', flush=True)\n"
        "c, _ = s.accept()\n"
        f"c.sendall({answer!r})\n"
        "os.kill(os.getpid(), signal.SIGSTOP)\n"
    )
    env = {**os.environ, "XDG_RUNTIME_DIR": str(run_dir)}
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "up\n"
    return proc


def test_a_stopped_daemon_is_ended_and_the_grade_runs_cold(monkeypatch, capsys):
    run_dir = Path(tempfile.mkdtemp(prefix="gks-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run_dir))
    monkeypatch.setenv("GK_DAEMON_DEADLINE", "1")
    fake = _fake_daemon(run_dir, b"")
    try:
        assert client.serve(["-q", "--lang", "en"], ["k"], "grader.cli:grade_one") is None  # then cold
        assert fake.wait(timeout=pace.seconds(60)) == -signal.SIGKILL  # ended, though stopped
        assert "no sign of life for 1 s" in capsys.readouterr().err
        assert not place.RuntimeDir().exists(place.socket_name(["k"]))  # the next run starts a new one
    finally:
        fake.kill()
        shutil.rmtree(run_dir, ignore_errors=True)


def test_sigterm_ends_grade_when_its_daemon_is_stopped():
    """The daemon accepted the grade, then stopped: the SIGTERM `grade` forwards is never acted on, so
    `grade` ends its daemon and dies of that signal (before, only SIGKILL ended it)."""
    run_dir = Path(tempfile.mkdtemp(prefix="gks-"))
    fake = _fake_daemon(run_dir, b"ok\n")
    env = {**os.environ, "XDG_RUNTIME_DIR": str(run_dir), "GK_DAEMON_DEADLINE": "600"}
    code = ("import sys\nfrom grader.daemon import client\n"
            "print('asking', flush=True)\n"
            "sys.exit(client.serve(['-q'], ['k'], 'grader.cli:grade_one'))\n")
    grade = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert grade.stdout is not None and grade.stdout.readline() == "asking\n"
        while not server.stopped(fake.pid):  # it said "ok" and stopped
            time.sleep(0.05)
        time.sleep(0.5)  # `grade` waits for the exit status now
        grade.send_signal(signal.SIGTERM)
        assert grade.wait(timeout=pace.seconds(120)) == -signal.SIGTERM
        assert fake.wait(timeout=pace.seconds(60)) == -signal.SIGKILL
    finally:
        grade.kill()
        fake.kill()
        shutil.rmtree(run_dir, ignore_errors=True)


def test_torch_reinstalled_under_the_daemon_retires_it(tmp_path, monkeypatch):
    """torch's installed RECORD (every file's hash) is in the stamp: a reinstall or upgrade is seen, even
    one that keeps the version string."""
    from importlib import metadata

    info = tmp_path / "torch-9.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 9.0\n")
    (info / "RECORD").write_text("torch/a.py,sha256=aaaa,10\n")
    monkeypatch.setattr(metadata, "distribution", lambda name: metadata.PathDistribution(info))
    before = place.installed_record()
    (info / "RECORD").write_text("torch/a.py,sha256=bbbb,10\n")
    assert place.installed_record() != before
