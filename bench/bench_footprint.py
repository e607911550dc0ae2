"""The grade against `import torch`: time, batch fixed cost and memory, in one run.

    python bench/bench_footprint.py [--runs 3] [--batch-sizes 4 12] [--out /tmp/footprint.md]

Prints, each figure the median of --runs runs:

* `python -c "import torch"` (the floor every grade pays once);
* `grade examples/reference --hidden` wall time, and its ratio to `import torch`;
* the fixed cost per submission inside `grade batch -j 2`, for submissions that fail
  at import (every module raises at once): the slope between two batch sizes, so the
  batch's own start is left out; and its ratio to `import torch`;
* the peak PSS (proportional set size: shared pages split between the processes that
  share them) of one hidden grade's whole process tree, of its parts (`grade` itself,
  the grader the zygote forks, the zygote, the workers together), of a bare
  `import torch` and of `import torch` plus one optimizer (torch._dynamo, which any
  training imports), sampled every 20 ms from /proc/PID/smaps_rollup.

Writes a Markdown table to --out and prints it, with the machine and the load, and the same figures to
bench/results/footprint-<build>.json (rendered into docs/performance.md by the site's build).
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
sys.path.insert(0, str(ROOT))
from bench.record import record_name, write_record  # noqa: E402
from grader.sandbox.launch import UID_BASE  # noqa: E402 - workers run as uids from here

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


def role(pid: int, root: int) -> str:
    """What a process of the tree is: `grade` itself, the zygote, the grader (the zygote's fork that
    grades, or `grade` itself when it grades in-process), a worker, or a helper (launcher, PID 1)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        uid = os.stat(f"/proc/{pid}").st_uid
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return "gone"
    if uid >= UID_BASE:
        return "worker"
    if pid == root:
        return "grade"
    if b"gk_zygote.py" in cmdline:
        return "grader" if cwd != "/" else "zygote-or-launcher"
    return "helper"


def run_timed(argv: list[str]) -> float:
    """Run argv unobserved (the sampler below reads /proc often enough to take CPU from it); its wall time."""
    started = time.monotonic()
    done = subprocess.run(argv, cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): "
                         f"{done.stderr.decode(errors='replace')[-2000:]}")
    return wall


def run_sampled(argv: list[str]) -> dict[str, float]:
    """Run argv; its wall time, the peak PSS of its tree, and of its `grade`, grader and zygote processes."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = {"tree": 0.0, "self": 0.0, "grader": 0.0, "zygote": 0.0, "workers": 0.0}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            pids = tree(proc.pid)
            pss = {p: pss_mib(p) for p in pids}
            roles = {p: role(p, proc.pid) for p in pids}
            peak["tree"] = max(peak["tree"], sum(pss.values()))
            peak["self"] = max(peak["self"], pss.get(proc.pid, 0.0))
            graders = [p for p, r in roles.items() if r == "grader"] or [proc.pid]
            peak["grader"] = max(peak["grader"], pss.get(graders[0], 0.0))
            zygotes = [p for p in pids if roles[p] == "zygote-or-launcher" and p in children(proc.pid, pids)]
            peak["zygote"] = max(peak["zygote"], sum(pss[p] for p in zygotes))
            peak["workers"] = max(peak["workers"], sum(v for p, v in pss.items() if roles[p] == "worker"))
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
    return {"wall": wall, "tree_pss": peak["tree"], "self_pss": peak["self"], "grader_pss": peak["grader"],
            "zygote_pss": peak["zygote"], "workers_pss": peak["workers"]}


def children(pid: int, among: list[int]) -> set[int]:
    out = set()
    for p in among:
        try:
            with open(f"/proc/{p}/stat", "rb") as fh:
                if int(fh.read().rsplit(b")", 1)[1].split()[1]) == pid:
                    out.add(p)
        except (OSError, IndexError, ValueError):
            continue
    return out


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
    # Times from unobserved runs, memory from sampled ones; one kind after the other, alternating.
    torch_walls, torch_runs, grade_walls, grades = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="gk-footprint-") as tmp:
        grade = [py, "-m", "grader.cli", str(REFERENCE), "--hidden", "-q", "--out"]
        for i in range(args.runs):
            torch_walls.append(run_timed([py, "-c", "import torch"]))
            grade_walls.append(run_timed([*grade, f"{tmp}/t{i}"]))
        trainer = []  # torch + the torch._dynamo its first optimizer imports: what a training worker holds
        for i in range(args.runs):
            torch_runs.append(run_sampled([py, "-c", "import torch, time; time.sleep(0.3)"]))
            trainer.append(run_sampled([py, "-c", "import torch, time; torch.optim.Adam(torch.nn.Linear(2, 2)"
                                        ".parameters()); time.sleep(0.3)"]))
            grades.append(run_sampled([*grade, f"{tmp}/g{i}"]))
        small, large = args.batch_sizes
        walls: dict[int, list[float]] = {small: [], large: []}
        for size in (small, large):
            subs = broken_submissions(Path(tmp) / f"broken{size}", size)
            for i in range(args.runs):
                walls[size].append(run_timed([py, "-m", "grader.cli", "batch", str(subs), "--out",
                                              f"{tmp}/b{size}-{i}", "-j", "2", "-q"]))
    per_sub = (median(walls[large]) - median(walls[small])) / (large - small)
    torch_wall, grade_wall = median(torch_walls), median(grade_walls)
    load_after = os.getloadavg()
    rows = [
        ("`python -c \"import torch\"`", f"{torch_wall:.2f} s", "1×"),
        ("`grade examples/reference --hidden`", f"{grade_wall:.2f} s",
         f"{grade_wall / torch_wall:.1f}× (target ≤ 3×)"),
        (f"fixed cost per submission failing at import, `grade batch -j 2` (slope {small}→{large})",
         f"{per_sub:.2f} s", f"{per_sub / torch_wall:.2f}× (target ≤ 0.25×)"),
        ("peak PSS, whole tree of one hidden grade", f"{median([g['tree_pss'] for g in grades]):.0f} MiB",
         "target ≤ 768 MiB"),
        ("peak PSS, `grade` itself (starts the zygote, waits)",
         f"{median([g['self_pss'] for g in grades]):.0f} MiB", ""),
        ("peak PSS, the grader (the zygote's fork that grades)",
         f"{median([g['grader_pss'] for g in grades]):.0f} MiB", ""),
        ("peak PSS, the zygote", f"{median([g['zygote_pss'] for g in grades]):.0f} MiB", ""),
        ("peak PSS, the workers together (up to three at once)",
         f"{median([g['workers_pss'] for g in grades]):.0f} MiB", ""),
        ("peak PSS, bare `import torch`", f"{median([r['self_pss'] for r in torch_runs]):.0f} MiB",
         "the floor"),
        ("peak PSS, `import torch` + one `torch.optim.Adam` (imports torch._dynamo, as any training does)",
         f"{median([r['self_pss'] for r in trainer]):.0f} MiB", "the floor of a process that trains"),
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
    command = f"python bench/bench_footprint.py --runs {args.runs}"
    path = write_record(record_name("footprint"), command=command, runs=args.runs,
                        load=(load_before[0], load_after[0]),
                        columns=("measure", "value", "against import torch"), rows=rows)
    print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
