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
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from grader.instructor import gradescope_bundle as gsb

ROOT = Path(__file__).resolve().parents[1]
CG = Path("/sys/fs/cgroup")
HIDDEN = ROOT / "grader" / "suites" / "hidden"


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
        env.update(AUTOGRADER_ROOT=str(root), GK_PYTHON=sys.executable)
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
                           "--public-only"], cwd=ROOT, capture_output=True, text=True, timeout=60)
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
    gsb.build_bundle(bundle, hidden=True, lang="en")
    config_timeout = gsb.GRADESCOPE_TIMEOUT
    declared = run_in_container(layout(tmp_path / "declared", bundle, ROOT / "examples" / "reference"),
                                gsb.REQUIRES["memory_mb"], gsb.REQUIRES["cpus"], int(config_timeout))
    gs = declared["gs"]
    full = sum(t["max_score"] for t in gs["tests"])
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
