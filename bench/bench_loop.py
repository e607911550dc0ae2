"""The student's loop: a re-grade after a one-line edit, cold and through the warm grader.

    python bench/bench_loop.py [--runs 5] [--out /tmp/loop.md]

In a student release of this kit (`grade release`, run from that copy with `python -m grader.cli`, as
a student's `grade` would be), with the reference solutions as the student's code, measures in one
run, each figure the median of --runs runs:

* `python -c "import torch"`, the floor;
* a re-grade after a one-line change in leetcode.py (a module the experiment does not call) and in
  embedding.py (one it does), cold (`--no-daemon`) and warm (the folder's daemon, after a warm-up);
* a warm re-grade after a save that changed nothing (every test's result reused, engine/reuse.py);
* the daemon's idle memory: RSS of the daemon, its zygote and the spare grader the zygote holds for the
  next request (shared pages counted in each), the anonymous part of that RSS (the processes' own
  memory, not library pages of the page cache; the spare's copy-on-write share of the zygote's counted
  again), and their PSS (shared pages divided among them); then RSS and PSS once the spare went (it
  waits SPARE_IDLE seconds for the next grade).

`grade` is run as the student's console script runs it: the release's kit on PYTHONPATH, its folder not
on the path (``python -P``); one warm grader serves the user's every folder (grader/daemon/).

Each warm row also says how many of the tests were reused rather than run.  ``--seed HEX`` grades with a
fixed seed (GK_GRADING_SEED) in place of the lesson's public seed that a student's `grade` draws from
(core/seeds.py); both are the same after any edit, so the figures should agree (docs/warm-grader.md).

Writes a Markdown table to --out and prints it, with the machine and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from grader.daemon.place import python_module  # noqa: E402 - the kit of this checkout

SOLUTIONS = ROOT / "solutions"
IDLE = "the daemon's idle memory (RSS of daemon + zygote + spare grader)"
IDLE_ANON = "of which anonymous (RssAnon: not library pages of the page cache)"
IDLE_PSS = "the same, PSS (shared pages divided among the processes that share them)"
IDLE_ALONE = "the daemon's idle memory once its spare went (GK_DAEMON_SPARE_IDLE after the last grade): RSS"
SPARE_IDLE = 60  # seconds (the bench's; a student's daemon keeps it 180 s: grader/daemon/server.py)


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.monotonic()
    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.monotonic() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return wall


def edit(path: Path, n: int) -> None:
    """A one-line change: the last line of the module, a new comment each time."""
    lines = path.read_text().splitlines()
    if lines and lines[-1].startswith("# edit "):
        lines.pop()
    path.write_text("\n".join([*lines, f"# edit {n}"]) + "\n")


def reused_share(reports: Path) -> float:
    """The share of the last grade's tests taken from the run before (results.json ``reused``)."""
    try:
        tests = json.loads((reports / "results.json").read_text(encoding="utf-8"))["tests"]
    except (OSError, ValueError, KeyError):
        return 0.0
    return sum(1 for t in tests if t.get("reused")) / max(1, len(tests))


def rss_mib(pid: int) -> float:
    return _kib(f"/proc/{pid}/status", "VmRSS:") / 1024


def pss_mib(pid: int) -> float:
    return _kib(f"/proc/{pid}/smaps_rollup", "Pss:") / 1024


def _kib(path: str, field: str) -> int:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def anon_mib(pid: int) -> float:
    return _kib(f"/proc/{pid}/status", "RssAnon:") / 1024


def memory(pid: int) -> tuple[float, float, float]:
    """RSS, PSS and anonymous RSS (MiB) of the daemon ``pid`` and every process below it (its zygote,
    the spare)."""
    kids, todo = [], [pid]
    while todo:
        found = subprocess.run(["ps", "-o", "pid=", "--ppid", str(todo.pop())], capture_output=True,
                               text=True).stdout.split()
        kids += [int(k) for k in found]
        todo += [int(k) for k in found]
    procs = [pid, *kids]
    return (sum(map(rss_mib, procs)), sum(map(pss_mib, procs)), sum(map(anon_mib, procs)))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--out", type=Path, default=Path("/tmp/loop.md"))
    p.add_argument("--seed", default=None, help="grade with this fixed seed (GK_GRADING_SEED)")
    args = p.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="gk-loop-") as tmp:
        copy = Path(tmp) / "release"
        subprocess.run([sys.executable, "-m", "grader.cli", "release", str(copy)], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
        for module in SOLUTIONS.iterdir():
            if module.is_file():  # not the __pycache__ a grade of the solutions leaves
                shutil.copy(module, copy / "exercises" / module.name)
        env = {k: v for k, v in os.environ.items() if k not in ("GK_NO_DAEMON", "PYTHONPATH")}
        env.update(GK_DAEMON="1", XDG_RUNTIME_DIR=str(Path(tmp) / "run"), GK_DAEMON_IDLE="600",
                   GK_DAEMON_SPARE_IDLE=str(SPARE_IDLE),
                   PYTHONPATH=str(copy))  # the release's kit, as its installed `grade` imports it
        if args.seed:
            env["GK_GRADING_SEED"] = args.seed
        (Path(tmp) / "run").mkdir()
        grade = [*python_module("grader.cli"), "-q"]
        torch_walls: list[float] = []  # measured between the grades, under the same load as they run
        walls: dict[tuple[str, str], list[float]] = {}
        reused: dict[tuple[str, str], list[float]] = {}  # the share of the tests a warm grade reused
        n = 0
        try:
            timed(grade, copy, env)  # starts the daemon
            deadline = time.monotonic() + 180
            folder = Path(tmp) / "run" / f"gk-daemon-{os.getuid()}"
            while not list(folder.glob("*.pid")) and time.monotonic() < deadline:
                time.sleep(0.2)
            timed(grade, copy, env)  # warm-up through it
            for _ in range(args.runs):
                torch_walls.append(timed([sys.executable, "-c", "import torch"], copy, env))
                for module in ("leetcode", "embedding", "unchanged"):
                    for mode, extra in (("cold", ["--no-daemon"]), ("warm", [])):
                        if module == "unchanged" and mode == "cold":
                            continue
                        n += 1
                        if module != "unchanged":
                            edit(copy / "exercises" / f"{module}.py", n)
                        walls.setdefault((module, mode), []).append(timed([*grade, *extra], copy, env))
                        reused.setdefault((module, mode), []).append(reused_share(copy / "reports"))
            time.sleep(8)  # the spare grader forked after the last grade has done its imports
            (pid_file,) = folder.glob("*.pid")
            pid = int(pid_file.read_text().split()[0])
            idle, idle_pss, idle_anon = memory(pid)
            time.sleep(SPARE_IDLE)  # the spare goes: the daemon and its zygote are left
            alone, alone_pss, _ = memory(pid)
        finally:
            subprocess.run([*grade, "--stop-daemon"], cwd=copy, env=env, capture_output=True)
    load_after = os.getloadavg()
    torch_wall = statistics.median(torch_walls)
    rows = [("bare `python -c \"import torch\"`", torch_wall, "1×", "")]
    goals = {"leetcode": 0.5, "embedding": 1.5}
    for module in ("leetcode", "embedding", "unchanged"):
        for mode in ("cold", "warm"):
            if (module, mode) not in walls:
                continue
            wall = statistics.median(walls[(module, mode)])
            goal = f"goal ≤ {goals[module]}×" if mode == "warm" and module in goals else ""
            share = statistics.mean(reused[(module, mode)])
            what = ("re-grade after a save that changed nothing" if module == "unchanged" else
                    f"re-grade after a one-line change in {module}.py")
            label = f"{what}, {mode}" + (f" ({share:.0%} of the tests reused)" if mode == "warm" else "")
            rows.append((label, wall, f"{wall / torch_wall:.2f}×", goal))
    import torch  # noqa: F401 - for its version only

    lines = [
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, torch "
        f"{torch.__version__}; median of {args.runs} runs; load average {load_before[0]:.1f} before, "
        f"{load_after[0]:.1f} after (`python bench/bench_loop.py --runs {args.runs}"
        f"{f' --seed {args.seed}' if args.seed else ''}`).",
        "",
        "| measure | wall | against import torch | |",
        "|---|---:|---:|---|",
        *[f"| {a} | {b:.2f} s | {c} | {d} |" for a, b, c, d in rows],
        f"| {IDLE} | {idle:.0f} MiB | | |",
        f"| {IDLE_ANON} | {idle_anon:.0f} MiB | | |",
        f"| {IDLE_PSS} | {idle_pss:.0f} MiB | | |",
        f"| {IDLE_ALONE} | {alone:.0f} MiB (PSS {alone_pss:.0f} MiB) | | |",
    ]
    table = "\n".join(lines) + "\n"
    args.out.write_text(table, encoding="utf-8")
    # The record docs/warm-grader.md renders (<!-- bench: NAME -->), one per seed mode and torch build.
    sys.path.insert(0, str(ROOT))
    from bench.record import record_name, write_record

    command = f"python bench/bench_loop.py --runs {args.runs}" + (f" --seed {args.seed}" if args.seed else "")
    columns = ("measure", "wall", "against import torch", "goal")
    write_record(record_name("loop-fixed-seed" if args.seed else "loop"), command=command, runs=args.runs,
                 load=(load_before[0], load_after[0]), columns=columns,
                 rows=[*[(a, f"{b:.2f} s", c, d) for a, b, c, d in rows],
                       (IDLE, f"{idle:.0f} MiB", "", ""), (IDLE_ANON, f"{idle_anon:.0f} MiB", "", ""),
                       (IDLE_PSS, f"{idle_pss:.0f} MiB", "", ""),
                       (IDLE_ALONE, f"{alone:.0f} MiB (PSS {alone_pss:.0f} MiB)", "", "")])
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
