"""`grade` graded by a fork of the zygote (grader/sandbox/host.py): one torch for the whole tree, the same
grade as in-process, and nothing of the grader's environment in the template student code is forked from.

The real `grade` program runs as a subprocess; the process tree and the memory of its processes are read
from /proc while it grades.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pace
import pytest

from grader.sandbox import reap
from grader.sandbox.launch import UID_BASE, namespaces_status

KIT = Path(__file__).resolve().parent.parent
NAMESPACES, WHY_NOT = namespaces_status()
# A uid-level grade seals the shared checkout (takes its 'other' bits off) while it runs, and a
# grade at another level beside it on the same checkout cannot read it: these run on one xdist
# worker, one after another (pyproject's --dist loadgroup).
pytestmark = [pytest.mark.skipif(not NAMESPACES, reason=f"no zygote without namespaces: {WHY_NOT}"),
              pytest.mark.xdist_group("kit-seal")]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "GK_NO_HOST"}
    env["PYTHONPATH"] = os.pathsep.join([str(KIT), *filter(None, [env.get("PYTHONPATH")])])
    env.update(extra)
    return env


def _grade(*args: str, cwd: Path, **env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "grader.cli", *args], cwd=cwd, env=_env(**env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _slow_reference(tmp: Path, seconds: float, *, released: bool = False) -> Path:
    """The reference, whose embedding.py sleeps at import: the grade stays up while it is looked at. Where
    ``released``, the sleep ends as soon as the test has looked (``_release``): its niceness changes, which
    the import can read without anything the tamper scan would flag (signal handlers, files the sandbox
    hides)."""
    sub = tmp / "slow"
    shutil.copytree(KIT / "examples" / "reference", sub)
    path = sub / "embedding.py"
    if released:
        wait = ("def _hold(seconds):\n    import os\n    import time\n"
                "    nice, end = os.getpriority(os.PRIO_PROCESS, 0), time.monotonic() + seconds\n"
                "    while os.getpriority(os.PRIO_PROCESS, 0) == nice and time.monotonic() < end:\n"
                "        time.sleep(0.05)\n\n\n"
                f"_hold({seconds})\n")
    else:
        wait = f"import time\ntime.sleep({seconds})\n"
    path.write_text(wait + path.read_text())
    return sub


def _release(front: int, done: threading.Event) -> threading.Thread:
    """Until ``done``, nudge the niceness of every sandboxed process below `grade` by one, up and down in
    turn (at 19 an upward nudge changes nothing; the next one does): a ``released`` import that sleeps
    sees it change and goes on, and the rest of the grade runs at once rather than after the full sleep."""
    def nudge() -> None:
        step = 1
        while not done.wait(0.3):
            for pid in reap.descendants(front):
                if (reap.uid_of(pid) or 0) >= UID_BASE:
                    try:
                        os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, pid) + step)
                    except OSError:  # gone meanwhile
                        pass
            step = -step
    thread = threading.Thread(target=nudge, daemon=True)
    thread.start()
    return thread


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _cwd(pid: int) -> str | None:
    """Where ``pid`` works; None once it is gone (a worker's launcher lives a moment)."""
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


def _tree(front: int, deadline: float) -> tuple[int, int, list[int]]:
    """(zygote, the grader it forked, workers) below `grade`, once a worker runs."""
    while time.monotonic() < deadline:
        below = reap.descendants(front)
        zygotes = [p for p in reap.children_of(front) if "gk_zygote.py" in _cmdline(p)]
        if zygotes:
            zygote = zygotes[0]
            graders = [p for p in reap.children_of(zygote) if _cwd(p) not in ("/", None)]
            workers = [p for p in below if (reap.uid_of(p) or 0) >= UID_BASE]
            if graders and workers:
                return zygote, graders[0], workers
        time.sleep(0.05)
    raise AssertionError("no zygote, forked grader and worker appeared below `grade`")


def _holds(pid: int, needles: tuple[bytes, ...]) -> set[bytes] | None:
    """Which of ``needles`` the writable mappings of ``pid`` (heap, stack, anonymous memory) hold; None if
    the process is gone (a worker's short-lived helper)."""
    found: set[bytes] = set()
    try:
        maps, mem = open(f"/proc/{pid}/maps"), open(f"/proc/{pid}/mem", "rb", buffering=0)
    except (ProcessLookupError, FileNotFoundError):
        return None
    with maps, mem:
        try:
            lines = maps.readlines()
        except ProcessLookupError:
            return None
        for line in lines:
            fields = line.split()
            if "w" not in fields[1] and not (len(fields) > 5 and fields[5] == "[stack]"):
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            try:
                mem.seek(start)
                chunk = mem.read(end - start)
            except (OSError, OverflowError, ValueError):
                continue
            found.update(n for n in needles if n in chunk)
    return found


def test_the_zygote_and_workers_never_hold_the_graders_secrets(tmp_path: Path) -> None:
    key, secret = (f"gk-sentinel-{secrets.token_hex(12)}" for _ in range(2))
    sub = _slow_reference(tmp_path, pace.seconds(25), released=True)
    # The import sleeps while the scan reads every writable page of the tree: on a loaded machine that
    # can pass the default 30 s import budget, which would cost a point that is no part of this test.
    # Only the tests of the sleeping file: what is scanned is the tree while it imports; the rest of the
    # grade only shows that the tree graded soundly.
    proc = _grade(str(sub), "--out", str(tmp_path / "out"), "-q", "--import-timeout", "180", "-k",
                  "embedding", cwd=tmp_path, GK_HIDDEN_KEY=key, GK_COURSE_SECRET=secret)
    needles = (key.encode(), secret.encode())
    scanned = threading.Event()
    try:
        zygote, grader, workers = _tree(proc.pid, time.monotonic() + pace.seconds(60))
        assert reap.children_of(proc.pid) == [zygote]  # `grade` itself only waits: the fork grades
        assert not any(n in Path(f"/proc/{zygote}/environ").read_bytes() for n in needles)
        # the control first: the grader lives only as long as the worker's import sleeps, and on a busy
        # machine scanning the zygote and workers (torch's pages) first could outlast it
        control = _holds(grader, needles)
        seen = {pid: _holds(pid, needles) for pid in (zygote, *workers)}
        assert control == set(needles), "the scan must find what the grader does hold"
        assert seen[zygote] == set() and set() in [seen[w] for w in workers]  # scanned while alive
        assert not [pid for pid, held in seen.items() if held], "the grader's secrets are below it"
        _release(proc.pid, scanned)  # looked at: the sleeping import may go on
    finally:
        try:
            out, err = proc.communicate(timeout=pace.seconds(180))
        finally:
            scanned.set()
    assert proc.returncode == 0, err
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    lost = [(t["id"], t["status"], t.get("message")) for t in results["tests"] if t["status"] != "passed"]
    assert results["score"] == results["max_score"] > 0, (results.get("error"), lost)


def _summary(results: dict) -> list[tuple]:
    return [(t["id"], t["status"], t["score"], json.dumps(t.get("message"), sort_keys=True))
            for t in results["tests"]]


def test_hosted_grade_is_the_in_process_grade(tmp_path: Path) -> None:
    buggy = KIT / "examples" / "buggy"
    # Room on a loaded machine: a call that passes its time limit in one of the two runs only (the
    # in-process one imports torch beside its workers) would cost a point that is no part of this test.
    room = ("--call-timeout", "120", "--import-timeout", "180")
    hosted = _grade(str(buggy), "--out", str(tmp_path / "hosted"), "-q", *room, cwd=tmp_path)
    h_out, h_err = hosted.communicate(timeout=pace.seconds(600))
    here = _grade(str(buggy), "--out", str(tmp_path / "here"), "-q", *room, cwd=tmp_path, GK_NO_HOST="1")
    o_out, o_err = here.communicate(timeout=pace.seconds(600))
    assert hosted.returncode == here.returncode == 0, (h_err, o_err)
    a, b = (json.loads((tmp_path / d / "results.json").read_text()) for d in ("hosted", "here"))
    differ = [(x[:3], y[:3]) for x, y in zip(_summary(a), _summary(b), strict=False) if x != y]
    assert a["score"] == b["score"] < a["max_score"], differ
    assert _summary(a) == _summary(b)
    assert a["replay"]["seed"] == b["replay"]["seed"]


def test_interrupting_grade_stops_everything_it_started(tmp_path: Path) -> None:
    sub = _slow_reference(tmp_path, 30)
    proc = _grade(str(sub), "--out", str(tmp_path / "out"), "-q", cwd=tmp_path)
    zygote, grader, workers = _tree(proc.pid, time.monotonic() + pace.seconds(60))
    proc.send_signal(signal.SIGINT)  # what Ctrl-C sends `grade` (its forked grader is in another session)
    proc.communicate(timeout=pace.seconds(60))
    assert proc.returncode == 128 + signal.SIGINT
    deadline = time.monotonic() + pace.seconds(10)
    while time.monotonic() < deadline and any(reap.is_alive(p) for p in (zygote, grader, *workers)):
        time.sleep(0.1)
    assert not [p for p in (zygote, grader, *workers) if reap.is_alive(p)]


def test_a_usage_error_is_told_by_grade_itself(tmp_path: Path) -> None:
    proc = _grade("--no-such-flag", cwd=tmp_path)
    out, err = proc.communicate(timeout=pace.seconds(60))
    assert proc.returncode == 2 and "unrecognized arguments: --no-such-flag" in err


def test_a_grader_that_fails_at_once_ends_grade_at_once(tmp_path: Path) -> None:
    """`grade` hands on its reason and status 122 (and is not left waiting: an exit that comes before the
    fork's pid is kept for it, grader/sandbox/zygote.py ``early_exits``)."""
    script = ("import sys\nfrom grader.sandbox import host\nfrom grader.sandbox.launch import SandboxPolicy\n"
              "host.__name__ = 'gk_no_such_module'\n"
              "sys.exit(host.run_hosted(['examples/reference'], SandboxPolicy(), 'grader.cli:main'))\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=KIT, env=_env(), capture_output=True,
                          text=True, timeout=pace.seconds(120))
    assert done.returncode == 122, done.stderr
    assert "cannot start the grader" in done.stderr and "gk_no_such_module" in done.stderr
