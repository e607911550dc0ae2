"""Batch throughput: `grade batch` at -j 1 and -j 2 against 20 single `grade` calls.

    python bench/bench_batch.py [--n 20] [--keyword EXPR | --full] [--hidden] [--out /tmp/batch_bench.md]

Builds N submissions (the reference, the buggy example and the corpus's buggy
folders, cycled), then times, on the same files and the same suites:

* N single `grade PATH -q` calls, one after the other (what a shell loop does);
* `grade batch --out DIR -j 1` and `-j 2` (fresh output folders; nothing skipped).

Writes a Markdown table (for the README) to --out and prints it. The numbers
depend on the machine's load: the load average before and after is reported.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_KEYWORD = "test_pe or test_tying or test_equivariance"


def build_submissions(dest: Path, n: int) -> list[Path]:
    sources = [ROOT / "examples" / "reference", ROOT / "examples" / "buggy"]
    sources += sorted(p for p in (ROOT / "tests" / "corpus").glob("bug_*") if p.is_dir())
    out = []
    for i in range(n):
        src = sources[i % len(sources)]
        target = dest / f"s{i:02d}_{src.name}"
        shutil.copytree(src, target, ignore=shutil.ignore_patterns("expect.json", "__pycache__"))
        out.append(target)
    return out


def timed(argv: list[str]) -> float:
    started = time.monotonic()
    proc = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return time.monotonic() - started


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=20)
    p.add_argument("--keyword", default=DEFAULT_KEYWORD,
                   help="pytest -k for every mode (default: %(default)s)")
    p.add_argument("--full", action="store_true", help="the whole public suite (no -k)")
    p.add_argument("--hidden", action="store_true", help="add the hidden suite")
    p.add_argument("--out", type=Path, default=Path("/tmp/batch_bench.md"))
    args = p.parse_args()
    keyword = None if args.full else args.keyword
    grade_flags = (["--hidden"] if args.hidden else []) + (["-k", keyword] if keyword else [])
    batch_flags = ([] if args.hidden else ["--public-only"]) + (["-k", keyword] if keyword else [])
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="gk-bench-") as tmp:
        subs = Path(tmp) / "subs"
        subs.mkdir()
        paths = build_submissions(subs, args.n)
        rows: list[tuple[str, float]] = []
        single = 0.0
        for i, path in enumerate(paths):
            single += timed([sys.executable, "-m", "grader.cli", str(path), "--out", f"{tmp}/single/{i}",
                             "-q", *grade_flags])
            print(f"single {i + 1}/{args.n}: {single:.1f} s so far", file=sys.stderr)
        rows.append((f"{args.n} × `grade PATH` (one after the other)", single))
        for jobs in (1, 2):
            wall = timed([sys.executable, "-m", "grader.cli", "batch", str(subs), "--out",
                          f"{tmp}/batch{jobs}", "-j", str(jobs), "-q", *batch_flags])
            print(f"batch -j {jobs}: {wall:.1f} s", file=sys.stderr)
            rows.append((f"`grade batch -j {jobs}`", wall))
    load_after = os.getloadavg()
    suites = ("public + hidden" if args.hidden else "public") + (f", `-k \"{keyword}\"`" if keyword else "")
    lines = [
        f"Batch throughput, {args.n} submissions ({suites}); {os.cpu_count()} cores; "
        f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after.",
        "",
        "| mode | wall time (s) | s / submission | submissions / min | speed-up |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, wall in rows:
        lines.append(f"| {label} | {wall:.1f} | {wall / args.n:.1f} | {60 * args.n / wall:.1f} "
                     f"| {single / wall:.2f}× |")
    table = "\n".join(lines) + "\n"
    args.out.write_text(table, encoding="utf-8")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
