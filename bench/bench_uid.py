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
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))


def inner(runs: int, out: Path) -> None:
    """Inside the simulated container: the gradings, written to ``out`` as JSON."""
    import tempfile

    from bench_footprint import REFERENCE, run_sampled

    figures: dict[str, list[dict]] = {"process": [], "uid": []}
    with tempfile.TemporaryDirectory(prefix="gk-bench-uid-") as tmp:
        for i in range(runs):
            for mode in figures:
                argv = [sys.executable, "-m", "grader.cli", str(REFERENCE), "--hidden", "-q", "--isolation",
                        mode, "--out", f"{tmp}/{mode}{i}"]
                figures[mode].append(run_sampled(argv))
                res = json.loads(Path(f"{tmp}/{mode}{i}/results.json").read_text())
                assert res["isolation"] == mode and res["score"] == res["max_score"], (mode, res["score"])
    out.write_text(json.dumps(figures))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--inner", type=Path, default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.inner:
        inner(args.runs, args.inner)
        return 0
    import docker_defaults

    why = docker_defaults.unavailable()
    if why:
        print(f"cannot simulate Docker's defaults here: {why}")
        return 1
    import shlex
    import tempfile

    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "figures.json"
        cmd = shlex.join([sys.executable, str(Path(__file__).resolve()), "--runs", str(args.runs),
                          "--inner", str(out)])
        done = docker_defaults.run(cmd, timeout=3600, cwd=str(ROOT))
        if done.returncode != 0:
            print(done.stdout[-2000:], done.stderr[-2000:])
            return 1
        figures = json.loads(out.read_text())
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
