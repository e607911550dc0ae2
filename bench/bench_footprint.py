"""The grade against `import torch`: time, batch fixed cost and memory, in one run (issue 15).

    python bench/bench_footprint.py [--runs 3] [--batch-sizes 4 12] [--out /tmp/footprint.md]

Prints, each figure the median of --runs runs:

* `python -c "import torch"` (the floor every grade pays once);
* `grade examples/reference --hidden` wall time, and its ratio to `import torch`;
* the fixed cost per submission inside `grade batch -j 2`, for submissions that fail
  at import (every module raises at once): the slope between two batch sizes, so the
  batch's own start is left out; and its ratio to `import torch`;
* the peak PSS (proportional set size: shared pages split between the processes that
  share them) of one hidden grade's whole process tree (grader, zygote, workers,
  their init helpers), of the grader process alone, and of a bare `import torch`,
  sampled every 20 ms from /proc/PID/smaps_rollup.

Writes a Markdown table to --out and prints it, with the machine and the load.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "examples" / "reference"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def pss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as fh:
                    ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(name))
    found, todo = [root], [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            found.append(pid)
            todo.append(pid)
    return found


def run_sampled(argv: list[str]) -> dict[str, float]:
    """Run argv; its wall time, and the peak PSS of its tree and of its own process."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = {"tree": 0.0, "self": 0.0}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            pids = tree(proc.pid)
            peak["tree"] = max(peak["tree"], sum(pss_mib(p) for p in pids))
            peak["self"] = max(peak["self"], pss_mib(proc.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = proc.communicate()
    wall = time.monotonic() - started
    done.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): "
                         f"{err.decode(errors='replace')[-2000:]}")
    return {"wall": wall, "tree_pss": peak["tree"], "self_pss": peak["self"]}


def broken_submissions(dest: Path, n: int) -> Path:
    """n copies of the reference whose every module raises at import."""
    dest.mkdir(parents=True)
    for i in range(n):
        target = dest / f"s{i:02d}"
        shutil.copytree(REFERENCE, target)
        for path in target.glob("*.py"):
            path.write_text("raise RuntimeError('broken on purpose')\n" + path.read_text())
    return dest


def median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--batch-sizes", type=int, nargs=2, default=(4, 12))
    p.add_argument("--out", type=Path, default=Path("/tmp/footprint.md"))
    args = p.parse_args()
    load_before = os.getloadavg()
    py = sys.executable
    torch_runs = [run_sampled([py, "-c", "import torch, time; time.sleep(0.3)"]) for _ in range(args.runs)]
    torch_wall = median([r["wall"] for r in torch_runs]) - 0.3
    with tempfile.TemporaryDirectory(prefix="gk-footprint-") as tmp:
        grades = [run_sampled([py, "-m", "grader.cli", str(REFERENCE), "--hidden", "--out", f"{tmp}/g{i}",
                               "-q"])
                  for i in range(args.runs)]
        small, large = args.batch_sizes
        walls: dict[int, list[float]] = {small: [], large: []}
        for size in (small, large):
            subs = broken_submissions(Path(tmp) / f"broken{size}", size)
            for i in range(args.runs):
                walls[size].append(run_sampled([py, "-m", "grader.cli", "batch", str(subs), "--out",
                                                f"{tmp}/b{size}-{i}", "-j", "2", "-q"])["wall"])
    per_sub = (median(walls[large]) - median(walls[small])) / (large - small)
    grade_wall = median([g["wall"] for g in grades])
    load_after = os.getloadavg()
    rows = [
        ("`python -c \"import torch\"`", f"{torch_wall:.2f} s", "1×"),
        ("`grade examples/reference --hidden`", f"{grade_wall:.2f} s",
         f"{grade_wall / torch_wall:.1f}× (target ≤ 3×)"),
        (f"fixed cost per submission failing at import, `grade batch -j 2` (slope {small}→{large})",
         f"{per_sub:.2f} s", f"{per_sub / torch_wall:.2f}× (target ≤ 0.25×)"),
        ("peak PSS, whole tree of one hidden grade", f"{median([g['tree_pss'] for g in grades]):.0f} MiB",
         "target ≤ 768 MiB"),
        ("peak PSS, the grader process alone", f"{median([g['self_pss'] for g in grades]):.0f} MiB",
         ""),
        ("peak PSS, bare `import torch`", f"{median([r['self_pss'] for r in torch_runs]):.0f} MiB",
         "the floor"),
    ]
    import torch  # noqa: F401 - for its version only

    lines = [
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"torch {torch.__version__}; "
        f"median of {args.runs} runs; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after "
        f"(`python bench/bench_footprint.py --runs {args.runs}`).",
        "",
        "| measure | value | against import torch |",
        "|---|---:|---|",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
    ]
    table = "\n".join(lines) + "\n"
    args.out.write_text(table, encoding="utf-8")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
