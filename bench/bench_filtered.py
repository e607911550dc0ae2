"""A cold filtered grade (`grade -k TASK --no-daemon`, what `check('task')` costs without the warm grader)
against a bare `import torch`, in one run.

    python bench/bench_filtered.py [--runs 3] [--task sinusoidal_pe]

Each figure is the median of --runs runs: the wall time and the CPU-seconds of the command and every
process it starts (read from a cpuacct cgroup of its own, so the zygote, the grader it forks and the
workers all count; root and cgroup v1 or v2 needed for the CPU column). Writes
bench/results/filtered-grade.json, rendered into docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.cgroup_cpu import CpuGroup, cannot_measure, remove  # noqa: E402
from bench.record import write_record  # noqa: E402


def measure(name: str, argv: list[str], env: dict[str, str]) -> tuple[float, float | None]:
    """(wall seconds, CPU-seconds of the whole process tree or None) of one run of ``argv``."""
    group = None if cannot_measure() else CpuGroup(f"gk-bench-filtered-{os.getpid()}-{name}")
    join = f"echo $$ > {group.path / 'cgroup.procs'} && " if group is not None else ""
    started = time.monotonic()
    done = subprocess.run(["bash", "-c", join + 'exec "$@"', "bash", *argv], env=env, cwd=ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - started
    if done.returncode not in (0, 1):  # 1: the filtered grade's score is below the full one
        raise SystemExit(f"{name}: exit {done.returncode}: {done.stderr[-2000:]}")
    if group is None:
        return wall, None
    time.sleep(0.3)  # a worker torn down after `grade` returned still counts
    cpu = group.seconds()
    for pid in group.pids():
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    remove(group.path.name)
    return wall, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--task", default="sinusoidal_pe")
    args = ap.parse_args()
    env = dict(os.environ, GK_LESSON="embedding-pe", GK_DAEMON="0")
    load = os.getloadavg()[0]
    rows: list[tuple[str, list[float], list[float | None]]] = []
    with tempfile.TemporaryDirectory(prefix="gk-bench-filtered-") as tmp:
        commands = {
            '`python -c "import torch"`': [sys.executable, "-c", "import torch"],
            f"`grade examples/reference -k {args.task} --no-daemon`": [
                sys.executable, "-m", "grader.cli", str(ROOT / "examples" / "reference"), "-k", args.task,
                "--no-daemon", "-q", "--out", str(Path(tmp) / "out")],
        }
        runs: dict[str, list[tuple[float, float | None]]] = {name: [] for name in commands}
        for _ in range(args.runs):  # interleaved: a change in the machine's speed touches both alike
            for name, argv in commands.items():
                runs[name].append(measure(str(len(runs[name])), argv, env))
        for name, got in runs.items():
            rows.append((name, [w for w, _ in got], [c for _, c in got]))
    base_wall = statistics.median(rows[0][1])
    cpus = [c for c in rows[0][2] if c is not None]
    base_cpu = statistics.median(cpus) if cpus else None
    table = []
    for name, walls, cpu_list in rows:
        wall = statistics.median(walls)
        known = [c for c in cpu_list if c is not None]
        cpu = statistics.median(known) if known else None
        cpu_text = f"{cpu:.2f} CPU-s ({cpu / base_cpu:.2f}×)" if cpu is not None and base_cpu else "n/a"
        table.append((name, f"{wall:.2f} s ({wall / base_wall:.2f}×)", cpu_text))
        print(f"{name}: {table[-1][1]} wall, {cpu_text}")
    write_record("filtered-grade", command=f"python bench/bench_filtered.py --runs {args.runs} --task "
                 f"{args.task}", runs=args.runs, load=(load, os.getloadavg()[0]),
                 columns=("command", "wall (against import torch)", "CPU of every process (against it)"),
                 rows=table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
