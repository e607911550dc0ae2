"""The cost of the `uid` level: a hidden grade under Docker's defaults, `uid` against `process`.

    python bench/bench_uid.py [--runs 3]

Docker's defaults (root, Docker's default capabilities and seccomp rules, no namespaces) are
simulated as in the kit's tests (tests/docker_defaults.py; needs root, capsh, python3-seccomp).
Inside, `grade examples/reference --hidden` runs with `--isolation uid` and `--isolation process`,
interleaved so that a change of load hits both alike; each figure is the median of --runs runs:
the wall time and the peak PSS of the grade's whole process tree (bench/bench_footprint.py's
sampler).  The `uid` level adds a probe (once per `grade`), the staged copy, the seal (a few
chmods) and the teardown by uid per worker.
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


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
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
    for key, label, unit in (("wall", "wall time", "s"), ("tree_pss", "peak PSS, whole tree", "MiB")):
        a, b = med["process"][key], med["uid"][key]
        fmt = ".1f" if unit == "s" else ".0f"
        print(f"| {label} | {a:{fmt}} {unit} | {b:{fmt}} {unit} | {b - a:+{fmt}} {unit} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
