"""The sandbox's overhead: the same grading with isolation `namespaces` and `process`, side by side.

    python bench/bench_sandbox.py [--runs 3] [--suite-runs 3] [--submission solutions]

Two measurements, each the median of N runs, the two modes interleaved so that
a change in the machine's load hits both alike:

- worker start: launch the worker, import torch there, answer one request
  (what every submission, and every restart after a crash or a timeout, pays);
- grading: the public suite on the reference solution, end to end.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(KIT))

from grader.engine.runner import GradeOptions, grade_path  # noqa: E402
from grader.sandbox.cgroup import Cgroup  # noqa: E402
from grader.sandbox.client import WorkerClient  # noqa: E402
from grader.sandbox.launch import SandboxPolicy, namespaces_status  # noqa: E402


def worker_start(sub: Path, isolation: str) -> float:
    started = time.perf_counter()
    with WorkerClient(sub, policy=SandboxPolicy(isolation=isolation)) as client:
        assert client.request({"op": "call", "target": "leetcode.count_primes"}, (10,), {}) == 4
        return time.perf_counter() - started


def grading(sub: Path, isolation: str, keyword: str | None) -> tuple[float, float, float]:
    started = time.perf_counter()
    results = grade_path(sub, GradeOptions(policy=SandboxPolicy(isolation=isolation), keyword=keyword))
    assert results["isolation"] == isolation, results["isolation"]
    return time.perf_counter() - started, results["score"], results["max_score"]


def machine() -> list[str]:
    import torch

    cgroup = Cgroup.create(f"gk-bench-{os.getpid()}", 1 << 30, 10)
    if cgroup is not None:
        cgroup.remove()
    return [
        f"machine : {platform.machine()}, {os.cpu_count()} CPUs, Linux {platform.release()}",
        f"load    : {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min) at start",
        f"python  : {platform.python_version()}   torch: {torch.__version__}",
        "cgroup  : "
        f"{f'memory cgroup v{cgroup.version} per worker' if cgroup else 'none writable (RLIMIT_AS only)'}",
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3, help="worker starts per mode (median)")
    p.add_argument("--suite-runs", type=int, default=3, help="gradings per mode (median)")
    p.add_argument("--submission", default=str(KIT / "solutions"))
    p.add_argument("-k", dest="keyword", default="not test_log",
                   help="pytest -k filter for the grading (default: all but the LeetCode log checks)")
    args = p.parse_args(argv)
    ok, why = namespaces_status()
    if not ok:
        print(f"namespaces isolation is not available here ({why}): nothing to compare.")
        return 1
    modes = ("process", "namespaces")
    for line in machine():
        print(line)
    sub = Path(args.submission)
    starts: dict[str, list[float]] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory() as tmp:
        staging = Path(tmp)
        (staging / "leetcode.py").write_text((KIT / "solutions" / "leetcode.py").read_text())
        for _ in range(args.runs):
            for mode in modes:
                starts[mode].append(worker_start(staging, mode))
    grades: dict[str, list[float]] = {m: [] for m in modes}
    score = ""
    for _ in range(args.suite_runs):
        for mode in modes:
            seconds, got, out_of = grading(sub, mode, args.keyword)
            grades[mode].append(seconds)
            score = f"{got:g}/{out_of:g}"
    print()
    print(f"{'median of runs':<34}{'process':>10}{'namespaces':>12}{'overhead':>11}")
    for label, data in ((f"worker start + one call (x{args.runs})", starts),
                        (f"grade {sub.name} [{args.keyword}] (x{args.suite_runs})", grades)):
        a, b = statistics.median(data["process"]), statistics.median(data["namespaces"])
        print(f"{label:<34}{a:>9.2f}s{b:>11.2f}s{b - a:>+10.2f}s")
    print(f"\nscore in both modes: {score}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
