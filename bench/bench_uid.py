"""The cost of the `uid` level: a hidden grade under Docker's defaults, `uid` against `process`.

    python bench/bench_uid.py [--runs 3]
    python bench/bench_uid.py --teardown [--runs 5]   # the teardown's sweep alone, on this machine

Docker's defaults (root, Docker's default capabilities and seccomp rules, no namespaces) are
simulated as in the kit's tests (tests/docker_defaults.py; needs root, capsh, python3-seccomp).
Inside, `grade examples/reference --hidden` runs with `--isolation uid` and `--isolation process`,
interleaved so that a change of load hits both alike; each figure is the median of --runs runs:
the wall time and the peak PSS of the grade's whole process tree (bench/bench_footprint.py's
sampler).  The `uid` level adds a probe (once per `grade`), the staged copy, the seal (a few
chmods) and the teardown by uid per worker.

``--teardown`` times the sweep that teardown runs after killing the uid's processes (root needed):
the scan for world-writable folders (once per process), the sweep of a uid that left nothing, and of
one that left a file in every such folder, a 3,000-level tree and three System V IPC objects.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
from bench.record import record_name, write_record  # noqa: E402 - the figures, for docs/uid-level.md


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--teardown", action="store_true", help="time the teardown's sweep alone")
    args = p.parse_args()
    if args.teardown:
        return teardown(args.runs)
    import docker_defaults
    from bench_footprint import REFERENCE, run_sampled

    why = docker_defaults.unavailable()
    if why:
        print(f"cannot simulate Docker's defaults here: {why}")
        return 1
    load = os.getloadavg()[0]
    figures: dict[str, list[dict]] = {"process": [], "uid": []}
    with tempfile.TemporaryDirectory(prefix="gk-bench-uid-") as tmp:
        for i in range(args.runs):
            for mode in figures:
                grade = [sys.executable, "-m", "grader.cli", str(REFERENCE), "--hidden", "-q", "--isolation",
                         mode, "--out", f"{tmp}/{mode}{i}"]
                # Sampled from here, with every capability: inside, root could not read the worker's
                # /proc/PID/smaps_rollup (another uid, and no CAP_SYS_PTRACE).
                figures[mode].append(run_sampled(docker_defaults.command(shlex.join(grade))))
                res = json.loads(Path(f"{tmp}/{mode}{i}/results.json").read_text())
                assert res["isolation"] == mode and res["score"] == res["max_score"], (mode, res["score"])
    import torch

    med = {m: {k: statistics.median(r[k] for r in rows) for k in ("wall", "tree_pss")}
           for m, rows in figures.items()}
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, torch "
          f"{torch.__version__}; Docker's defaults simulated; median of {args.runs} runs; load average "
          f"{load:.1f} at start, {os.getloadavg()[0]:.1f} at the end (`python bench/bench_uid.py --runs "
          f"{args.runs}`).\n")
    print("| `grade examples/reference --hidden` | process | uid | difference |")
    print("|---|---:|---:|---:|")
    rows = []
    for key, label, unit in (("wall", "wall time", "s"), ("tree_pss", "peak PSS, whole tree", "MiB")):
        a, b = med["process"][key], med["uid"][key]
        fmt = ".1f" if unit == "s" else ".0f"
        rows.append((label, f"{a:{fmt}} {unit}", f"{b:{fmt}} {unit}", f"{b - a:+{fmt}} {unit}"))
        print("| " + " | ".join(rows[-1]) + " |")
    write_record(record_name("uid"), command=f"python bench/bench_uid.py --runs {args.runs}", runs=args.runs,
                 load=(load, os.getloadavg()[0]),
                 columns=("`grade examples/reference --hidden`, Docker's defaults", "process", "uid",
                          "difference"), rows=rows)
    return 0


def teardown(runs: int) -> int:
    import time

    from grader.sandbox import uid as uid_mod
    from grader.sandbox.launch import UID_BASE

    sys.path.insert(0, str(ROOT / "tests"))
    from test_uid_teardown import _as_uid, _deep_tree, _ipc

    if os.geteuid() != 0:
        print("needs root")
        return 1
    started = time.perf_counter()
    folders = uid_mod.writable_folders()
    scan = time.perf_counter() - started
    clean, dirty = [], []
    for i in range(runs):
        uid = UID_BASE + 350_000 + i
        started = time.perf_counter()
        assert uid_mod.sweep(uid) == []
        clean.append(time.perf_counter() - started)

        def plant(uid: int = uid) -> None:
            for folder in folders:
                if folder != "/dev/mqueue":
                    Path(folder, f"gk-bench-{uid}").write_text("x")
            _deep_tree(f"/tmp/gk-bench-deep-{uid}")
            _ipc()

        _as_uid(uid, plant)
        started = time.perf_counter()
        assert uid_mod.sweep(uid) == []
        dirty.append(time.perf_counter() - started)
    print(f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; median of {runs} "
          f"(`python bench/bench_uid.py --teardown --runs {runs}`)\n")
    rows = [(f"scan for world-writable folders ({len(folders)} found; once per process)",
             f"{scan * 1000:.0f} ms"),
            ("sweep, nothing left", f"{statistics.median(clean) * 1000:.1f} ms"),
            ("sweep, a file in each folder + a 3,000-level tree + 3 IPC objects",
             f"{statistics.median(dirty) * 1000:.0f} ms")]
    print("| the uid level's sweep | time |\n|---|---:|")
    print("\n".join(f"| {a} | {b} |" for a, b in rows))
    load = os.getloadavg()[0]
    write_record("uid-sweep", command=f"python bench/bench_uid.py --teardown --runs {runs}",
                 runs=runs, load=(load, load), columns=("the uid level's sweep", "time"), rows=rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
