"""Where grading time goes: one command, one table (issue: speed).

    python bench/bench_grade.py [--runs 3] [--batch] [--out /tmp/grade_bench.md]

Measures, each figure the median of --runs runs with its range:

* `grade solutions --hidden`: wall time, peak memory of the grader process and of
  the largest child (the worker), with isolation `namespaces` and `process` side
  by side, and their ratio;
* where the time goes: interpreter start and imports of the grader, the worker's
  start (python + torch), each task's tests (sum of test durations), the experiment;
* the fixed cost per submission: `grade` on a submission that fails at once (its
  modules raise at import), and on an unreadable one;
* with --batch: `bench/bench_batch.py` (20 submissions at -j 1 and -j 2 against
  20 single `grade` calls).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASURE = """
import json, resource, sys, time
t = time.monotonic()
from grader.cli import main
code = main(sys.argv[1:])
kb = lambda who: resource.getrusage(who).ru_maxrss
print(json.dumps({"code": code, "wall": time.monotonic() - t,
                  "self_mb": kb(resource.RUSAGE_SELF) / 1024, "child_mb": kb(resource.RUSAGE_CHILDREN) / 1024}))
"""  # noqa: E501


def run_grade(args: list[str]) -> dict:
    """One `grade` in a fresh process; its wall time from outside, its peak memory from inside."""
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", MEASURE, *args], cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - started
    if not proc.stdout.strip():
        raise SystemExit(f"grade {' '.join(args)} failed: {proc.stderr[-2000:]}")
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    info["outer_wall"] = wall
    return info


def med(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def machine() -> str:
    import torch

    load = os.getloadavg()
    return (f"{platform.node()}: {os.cpu_count()} CPUs, {platform.platform(terse=True)}, Python "
            f"{platform.python_version()}, torch {torch.__version__}, load average {load[0]:.2f} at start")


def time_imports(runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.monotonic()
        subprocess.run([sys.executable, "-c",
                        "import grader.engine.runner, torch, pytest, grader.core.testkit"],
                       cwd=ROOT, check=True)
        out.append(time.monotonic() - t)
    return out


def time_worker_start(runs: int) -> list[float]:
    from grader.sandbox.client import WorkerClient
    from grader.sandbox.launch import SandboxPolicy

    out = []
    for _ in range(runs):
        t = time.monotonic()
        with WorkerClient(ROOT / "solutions", policy=SandboxPolicy()) as c:
            c.ensure_module("embedding")
            out.append(time.monotonic() - t)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--batch", action="store_true", help="also run bench/bench_batch.py")
    p.add_argument("--out", type=Path, default=Path("/tmp/grade_bench.md"))
    args = p.parse_args(argv)
    lines = [f"Machine: {machine()}", f"Command: `python bench/bench_grade.py --runs {args.runs}`", ""]

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        grades: dict[str, list[dict]] = {"namespaces": [], "process": []}
        for _ in range(args.runs):  # interleaved so load drifts hit both alike
            for iso in grades:
                grades[iso].append(run_grade(["solutions", "--hidden", "-q", "--isolation", iso,
                                              "--out", str(out / iso)]))
        results = json.loads((out / "namespaces" / "results.json").read_text())

        broken = out / "broken"
        broken.mkdir()
        for module in ("embedding", "reversal", "leetcode"):
            (broken / f"{module}.py").write_text("raise RuntimeError('broken on purpose')\n")
        (out / "garbage.txt").write_text("not a submission")
        fixed = [run_grade([str(broken), "--hidden", "-q", "--out", str(out / "b")])
                 for _ in range(args.runs)]
        unreadable = [run_grade([str(out / "garbage.txt"), "-q", "--out", str(out / "u")])
                      for _ in range(args.runs)]

    ns, pr = grades["namespaces"], grades["process"]
    ratio = statistics.median(r["outer_wall"] for r in ns) / statistics.median(r["outer_wall"] for r in pr)
    lines += [
        "| measure | namespaces | process |",
        "|---|---|---|",
        f"| `grade solutions --hidden` wall (s) | {med([r['outer_wall'] for r in ns])} "
        f"| {med([r['outer_wall'] for r in pr])} |",
        f"| score | {results['score']:g} / {results['max_score']:g} | |",
        f"| grader process peak RSS (MB) | {med([r['self_mb'] for r in ns])} "
        f"| {med([r['self_mb'] for r in pr])} |",
        f"| largest child (worker) peak RSS (MB) | {med([r['child_mb'] for r in ns])} "
        f"| {med([r['child_mb'] for r in pr])} |",
        f"| sandbox overhead (namespaces / process) | {ratio:.2f}x | |",
        "",
        "| where the time goes (namespaces run) | seconds |",
        "|---|---|",
        "| interpreter start + imports of the grader (grader, torch, pytest) "
        f"| {med(time_imports(args.runs))} |",
        f"| worker start (python + torch) and first import, alone | {med(time_worker_start(args.runs))} |",
    ]
    by_task: dict[str, float] = {}
    for t in results["tests"]:
        by_task[t["task"]] = by_task.get(t["task"], 0.0) + t["duration"]
    for task, secs in sorted(by_task.items(), key=lambda kv: -kv[1]):
        lines.append(f"| tests of `{task}` (sum of durations) | {secs:.2f} |")
    exp = results.get("artifacts", {}).get("experiment", {}).get("seconds", {})
    for part, secs in exp.items():
        lines.append(f"| experiment: {part} runs (inside the tests above) | {secs:.2f} |")
    lines += [
        f"| total inside `grade` (results.json duration) | {results.get('duration', 0):.2f} |",
        "",
        "| fixed cost per submission | seconds |",
        "|---|---|",
        "| `grade --hidden` on a submission whose modules raise at import "
        f"| {med([r['outer_wall'] for r in fixed])} |",
        f"| `grade` on an unreadable submission (exit 2) | {med([r['outer_wall'] for r in unreadable])} |",
    ]
    table = "\n".join(lines) + "\n"
    print(table)
    args.out.write_text(table)
    if args.batch:
        subprocess.run([sys.executable, str(ROOT / "bench" / "bench_batch.py")], cwd=ROOT, check=False)
    return 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.exit(main())
