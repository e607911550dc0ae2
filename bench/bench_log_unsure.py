"""How often the LeetCode log reader is unsure (issue 33), on generated logs and on the kit's own.

    python bench/bench_log_unsure.py [--logs 600]

Generated: ``--logs`` logs from tests/loggen.py (derandomized, so the figures repeat), complete and
with one field left out, over every layout, label set, container, language, connective and reason
order. The kit's corpus: every LEETCODE_LOG.md in the repository (the blank template left out, copies counted
once) and the complete logs the log tests are written around (tests/test_leetlog.py,
tests/test_log_reader.py). A log is *unsure* when at least one of its checks is (a TA reads it); a
complexity said in words ('log n time') is unsure by design, so the generated figure is also given
for the logs whose complexities are all written as O(...). Prints the figures and checks the
properties the tests hold: no complete log marked down, no field left out given for free.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from bench.record import write_record  # noqa: E402 - the figures, for docs/leetcode-log.md
from lesson_embedding_pe.leetlog import review_log  # noqa: E402
from lesson_embedding_pe.leetlog.review import MAX_POINTS  # noqa: E402
from tests.loggen import Spec, claim, render, specs  # noqa: E402


def _unsure(review: object) -> bool:
    return any(f.severity == "unsure" for f in review.findings)  # type: ignore[attr-defined]


def _in_words(spec: Spec) -> bool:
    return any(not claim(p, k, spec).startswith("O(") for p in spec.problems for k in ("time", "space"))


def generated(count: int) -> dict[str, int]:
    tally = {
        "logs": 0,
        "complete": 0,
        "unsure": 0,
        "bigo_logs": 0,
        "bigo_unsure": 0,
        "marked_down": 0,
        "given_free": 0,
        "unsure_other": 0,
    }

    @settings(
        max_examples=count,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(specs())
    def one(spec: Spec) -> None:
        r = review_log(render(spec))
        tally["logs"] += 1
        tally["unsure"] += _unsure(r)
        tally["unsure_other"] += any(
            f.severity == "unsure" and f.code != "unsure_no_bigo" for f in r.findings
        )
        if not _in_words(spec):
            tally["bigo_logs"] += 1
            tally["bigo_unsure"] += _unsure(r)
        if spec.drop is None:
            tally["complete"] += 1
            tally["marked_down"] += r.points < MAX_POINTS or any(f.severity == "error" for f in r.findings)
        else:
            sure = any(f.severity == "error" and f.problem == 1 and f.field == spec.drop for f in r.findings)
            tally["given_free"] += not sure or r.points >= MAX_POINTS

    one()
    return tally


def kit_corpus() -> tuple[dict[str, str], int]:
    """(name -> log text, how many files): the repository's LEETCODE_LOG.md files other than the blank
    template (each distinct text once) and the tests' logs."""
    logs: dict[str, str] = {}
    seen: set[str] = set()
    files = 0
    template = (ROOT / "exercises" / "LEETCODE_LOG.md").read_text(encoding="utf-8")
    for path in sorted(ROOT.glob("**/LEETCODE_LOG.md")):
        if ".git" in path.parts or "site" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        files += text != template
        if text != template and text not in seen:
            seen.add(text)
            logs[str(path.relative_to(ROOT))] = text
    import tests.test_leetlog as t
    import tests.test_log_reader as r

    for name in (
        "ENGLISH",
        "KOREAN",
        "HEADINGS_LOG",
        "TABLE_LOG",
        "PROSE_KO",
        "PROSE_EN",
        "PROSE_KO_HEADED",
        "NOTEBOOK_LATEX_LOG",
        "LESSON_WORDING",
    ):
        logs[f"tests/test_leetlog.py:{name}"] = getattr(t, name)
    for name, text in r.FAMILIES.items():
        logs[f"tests/test_log_reader.py:{name}"] = text
    return logs, files


def seen_files(corpus: dict[str, str]) -> list[str]:
    return [name for name in corpus if name.endswith("LEETCODE_LOG.md")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logs", type=int, default=600, help="generated logs (default 600)")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    start = time.perf_counter()
    g = generated(args.logs)
    took = time.perf_counter() - start
    print(
        f"generated logs: {g['logs']} ({g['complete']} complete, {g['logs'] - g['complete']} with one field "
        f"left out) in {took:.1f} s"
    )
    print(
        f"  unsure: {g['unsure']} of {g['logs']} ({g['unsure'] / g['logs']:.0%}); with every complexity "
        f"as O(...): {g['bigo_unsure']} of {g['bigo_logs']} ({g['bigo_unsure'] / max(g['bigo_logs'], 1):.0%})"
    )
    print(f"  unsure for another reason than a complexity in words: {g['unsure_other']} of {g['logs']}")
    print(
        f"  complete logs marked down: {g['marked_down']}; fields left out given for free: {g['given_free']}"
    )
    corpus, files = kit_corpus()
    unsure = {name: text for name, text in corpus.items() if _unsure(review_log(text))}
    print(
        f"kit's corpus: {len(corpus)} distinct logs ({files} LEETCODE_LOG.md files, "
        f"{len(corpus) - len(seen_files(corpus))} from the tests), unsure: {len(unsure)} "
        f"({len(unsure) / len(corpus):.0%})"
    )
    for name in unsure:
        print(f"  unsure: {name}")
    share = f"{g['unsure'] / g['logs']:.0%}"
    rows = [
        ("generated logs (complete / one field left out)", f"{g['logs']} ({g['complete']} / "
         f"{g['logs'] - g['complete']})"),
        ("complete logs marked down", str(g["marked_down"])),
        ("fields left out given for free", str(g["given_free"])),
        ("unsure, logs whose complexities are all O(...)", f"{g['bigo_unsure']} of {g['bigo_logs']}"),
        ("unsure, all generated logs (each for a complexity said in words)", f"{g['unsure']} ({share})"),
        ("unsure for another reason", str(g["unsure_other"])),
        (f"the kit's own logs ({files} files, {len(corpus)} distinct), unsure", str(len(unsure))),
    ]
    write_record("log-unsure", command=f"python bench/bench_log_unsure.py --logs {args.logs}", runs=1,
                 load=(load, os.getloadavg()[0]), columns=("the log reader", "logs"), rows=rows)
    return 1 if g["marked_down"] or g["given_free"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
