"""The cluster path's cost per submission: `grade batch --cluster` on a local Dask cluster (a scheduler and
two worker processes, loopback) against `grade batch -j 2`, on the same files and suites.

    python bench/bench_cluster.py [--n 8] [--keyword EXPR] [--hidden] [--out /tmp/cluster_bench.md]

Both grade each submission in a sandboxed worker; the cluster path also starts a fresh `grade` process per
submission on its worker (as `--spawn` does: a worker cannot fork a preloaded grader), ships the submission,
the sealed hidden suite and the reports over the scheduler, and checks every worker's kit and lesson first.
Writes bench/results/cluster.json (docs/performance.md) and a Markdown table to --out. The figures depend on
the machine's load: the load average before and after is reported.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_batch import build_submissions, timed  # noqa: E402
from record import write_record  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--keyword", default="test_pe or test_tying")
    p.add_argument("--hidden", action="store_true", help="the hidden suite too (shipped sealed per task)")
    p.add_argument("--out", type=Path, default=Path("/tmp/cluster_bench.md"))
    args = p.parse_args()
    from distributed import LocalCluster

    flags = ["-k", args.keyword, "-q", "--no-similarity"] + ([] if args.hidden else ["--public-only"])
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="gk-bench-cluster-") as tmp:
        subs = Path(tmp) / "subs"
        subs.mkdir()
        build_submissions(subs, args.n)
        grade = [sys.executable, "-m", "grader.cli", "batch", str(subs)]
        local = timed([*grade, "--out", str(Path(tmp) / "local"), "-j", "2", *flags])
        started = time.monotonic()
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None, worker_dashboard_address=None) as cluster:
            start_cluster = time.monotonic() - started
            on_cluster = timed([*grade, "--out", str(Path(tmp) / "cluster"), "--cluster",
                                cluster.scheduler_address, *flags])
    load_after = os.getloadavg()[0]
    n = args.n
    rows = [
        ["`grade batch -j 2`", f"{local:.1f} s", f"{local / n:.2f} s", ""],
        ["`grade batch --cluster` (2 workers)", f"{on_cluster:.1f} s", f"{on_cluster / n:.2f} s",
         f"{(on_cluster - local) / n:+.2f} s"],
        ["starting the local cluster (once, not in the batch)", f"{start_cluster:.1f} s", "", ""],
    ]
    columns = ["run", "wall", "per submission", "cluster overhead per submission"]
    command = f"python bench/bench_cluster.py --n {n} --keyword '{args.keyword}'" + (
        " --hidden" if args.hidden else "")
    write_record("cluster", command=command, runs=1, load=(load_before, load_after), columns=columns,
                 rows=rows)
    table = "| " + " | ".join(columns) + " |\n|---|---:|---:|---:|\n" + "".join(
        "| " + " | ".join(r) + " |\n" for r in rows)
    args.out.write_text(table, encoding="utf-8")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
