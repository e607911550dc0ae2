"""Where the kit's test suite spends its CPU (issue 47): the README's test line, each test's CPU measured.

    python bench/bench_suite_cpu.py [--workers 3] [--top 12] [pytest args...]

Runs ``python -m pytest -n WORKERS`` as the README does, with this file as a pytest plugin: each xdist
worker moves itself into a cgroup of its own (cgroup v1 ``cpuacct``, or v2 ``cpu.stat``), which every
process it starts inherits, however it detaches (a grade's zygote and its forked workers, a Jupyter
kernel, a Dask cluster, a daemon). A test's CPU is its worker's group's usage from the test's start to its
end: ``os.times()`` would miss every process that is not waited for, and most of a grade is not.
Needs root and a writable cgroup hierarchy; elsewhere it says so and exits 2.

Prints the suite's wall time, its CPU in all, how many of the machine's cores it kept busy, and the
modules and tests that use the most CPU; writes bench/results/suite-cpu.json (docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pytest
from cgroup_cpu import CpuGroup, cannot_measure, remove  # bench/ is on the path: a script, or -p plugin

ROOT = Path(__file__).resolve().parents[1]
OUT_ENV = "GK_SUITE_CPU_OUT"  # the folder each worker writes its tests' lines to (set by main)


# -- the plugin, in each xdist worker -------------------------------------------------------------------


_usage: CpuGroup | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _usage
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and os.environ.get(OUT_ENV):
        _usage = CpuGroup(f"gk-suite-cpu-{worker}-{os.getpid()}")
        _usage.join(os.getpid())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # noqa: ANN201 (a hook wrapper)
    if _usage is None:
        yield
        return
    start, cpu = time.time(), _usage.seconds()
    yield
    line = {"id": item.nodeid.split("@")[0], "start": start, "wall": time.time() - start,
            "cpu": _usage.seconds() - cpu}
    with open(Path(os.environ[OUT_ENV]) / f"{os.environ['PYTEST_XDIST_WORKER']}.jsonl", "a") as fh:
        fh.write(json.dumps(line) + "\n")


# -- the bench --------------------------------------------------------------------------------------------


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {seconds % 60:02.0f} s"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=3, help="pytest -n (the README's: 3)")
    ap.add_argument("--top", type=int, default=12, help="modules and tests listed (default 12)")
    args, extra = ap.parse_known_args()
    why = cannot_measure()
    if why:
        print(f"bench_suite_cpu: cannot measure here: {why}")
        return 2
    with tempfile.TemporaryDirectory(prefix="gk-suite-cpu-") as out:
        env = dict(os.environ, **{OUT_ENV: out}, PYTHONPATH=os.pathsep.join(
            [str(ROOT / "bench"), *filter(None, [os.environ.get("PYTHONPATH")])]))
        command = [sys.executable, "-m", "pytest", "-n", str(args.workers), "-q", "-p", "bench_suite_cpu",
                   *extra]
        load = os.getloadavg()[0]
        started = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
        wall = time.monotonic() - started
        tests = [json.loads(line) for path in Path(out).glob("*.jsonl") for line in path.open()]
    remove("gk-suite-cpu-*")
    summary = next((line for line in reversed(done.stdout.splitlines()) if " in " in line), "")
    print(summary)
    if done.returncode != 0 or not tests:
        print(done.stdout[-3000:])
        return 1
    cpu = sum(t["cpu"] for t in tests)
    cores = os.cpu_count() or 1
    busy = cpu / (wall * cores)
    modules: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for t in tests:
        modules[t["id"].split("::")[0]][0] += t["cpu"]
        modules[t["id"].split("::")[0]][1] += 1
    print(f"suite: {_minutes(wall)} wall, {cpu:.0f} CPU-seconds in its tests, {busy:.0%} of {cores} cores "
          "busy")
    rows = [("the suite (wall)", _minutes(wall), ""),
            ("CPU used by its tests and every process they start", f"{cpu:.0f} s", "100%"),
            (f"of {cores} cores, kept busy", f"{busy:.0%}", "")]
    for name, (seconds, count) in sorted(modules.items(), key=lambda kv: -kv[1][0])[:args.top]:
        print(f"  {seconds:6.1f} s  {seconds / cpu:4.0%}  {name} ({count:.0f} tests)")
        rows.append((f"`{name}` ({count:.0f} tests)", f"{seconds:.0f} s", f"{seconds / cpu:.0%}"))
    print("tests:")
    for t in sorted(tests, key=lambda t: -t["cpu"])[:args.top]:
        print(f"  {t['cpu']:6.1f} s  {t['id']}")
    from bench.record import write_record

    write_record("suite-cpu", command=f"python bench/bench_suite_cpu.py --workers {args.workers}", runs=1,
                 load=(load, os.getloadavg()[0]), columns=("where the suite's CPU goes", "CPU", "share"),
                 rows=rows)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
