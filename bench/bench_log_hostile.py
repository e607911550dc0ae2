"""How long the LeetCode log reader takes on hostile logs: the reference log with one run of a character
sequence of about 60,000 characters put into its first claim (a run of blanks, '<br>', unclosed '<!--',
nested braces, 'O(' after 'O(' ...), and the reference log followed by about 60,000 characters of lines
under distinct made-up labels (each one matched against the known labels for a slip of the keyboard),
against the reference log itself, in one run.

    python bench/bench_log_hostile.py [--repeat 3]

A reader whose work grows with the square of a run (a pattern that retries a run of blanks at each of
its blanks; a field's text cleaned again for each of its lines) took minutes on such a log; a log is
read up to 64,000 characters (review.READ_AT_MOST), so each row's ratio bounds what a student's file can
cost the grader. Writes bench/results/log-hostile.json.
"""

from __future__ import annotations

import argparse
import os
import random
import string
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.record import write_record  # noqa: E402
from lesson_embedding_pe.leetlog import review_log  # noqa: E402

RUNS = (" ", "\t", "<br>", "<!--", "{", "\\mathcal{", "O(", "O(n log", "$O(", "(", "|", "**", "- ", "Time: ")
SIZE = 60_000  # characters of the run, just under the reader's limit


def made_up_labels(size: int) -> list[str]:
    """'- qhxvtmrz: x' lines of distinct letters-only labels, 8 to 24 long, about ``size`` characters."""
    rng, lines = random.Random(0), []
    while sum(map(len, lines)) < size:
        lines.append(f"- {''.join(rng.choices(string.ascii_lowercase, k=rng.randint(8, 24)))}: x")
    return lines


def seconds(text: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        review_log(text)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    log = (ROOT / "examples" / "reference" / "LEETCODE_LOG.md").read_text(encoding="utf-8")
    load0 = os.getloadavg()[0]
    review_log(log)  # the catalog's bounds parsed and cached once, as in a grader that has read a log
    base = seconds(log, args.repeat)
    rows = [["(the reference log)", f"{len(log):,}", f"{base:.3f}", "1"]]
    for run in RUNS:
        text = log.replace("O(log n)", "O(log n) " + run * (SIZE // len(run)), 1)
        took = seconds(text, args.repeat)
        rows.append([repr(run), f"{len(text):,}", f"{took:.3f}", f"{took / base:.0f}"])
    text = log + "\n" + "\n".join(made_up_labels(SIZE))
    took = seconds(text, args.repeat)
    rows.append(["lines under distinct made-up labels",
                 f"{len(text):,}", f"{took:.3f}", f"{took / base:.0f}"])
    columns = ["run put into the first claim", "log characters", "seconds (best of runs)", "× reference"]
    for row in [columns, *rows]:
        print(" | ".join(row))
    write_record("log-hostile", command=f"python bench/bench_log_hostile.py --repeat {args.repeat}",
                 runs=args.repeat, load=(load0, os.getloadavg()[0]), columns=columns, rows=rows)


if __name__ == "__main__":
    main()
