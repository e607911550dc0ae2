"""How long `grade similarity` takes on a class: every pair of 200 submissions by default.

    python bench/bench_similarity.py [--students 200] [--runs 3]

The class is made from the kit's real code (the reference, examples/, the corpus's correct and buggy
variants, the two independent solutions of tests/similarity/): each student's embedding.py, reversal.py
and leetcode.py come from one of them each, plus a helpers.py of random functions (the part nobody
else wrote), with local names renamed and comments added; every twentieth student is a disguised copy
of an earlier one. It is
written as a batch folder (``<id>/batch.json`` and ``<id>/code/``, what `grade batch` keeps) and timed
end to end: reading the code, fingerprinting, all pairs, similarity.csv and similarity.html. Prints
the median and checks that every planted copy scores at least 0.95 and is flagged. (This class shares
more than a real one: it is built from few sources, mostly the reference's variants, so students who
drew the same few files are flagged too. It measures time; tests/test_similarity.py measures accuracy.)
"""

from __future__ import annotations

import argparse
import json
import keyword
import os
import random
import re
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.instructor.similarity import run  # noqa: E402
from grader.instructor.similarity.collect import submission_code  # noqa: E402

ASSIGNED = re.compile(r"^\s*([a-z_][a-z0-9_]*)\s*=[^=]", re.M)
WORDS = ["val", "tmp", "acc", "buf", "res", "cur", "idx", "tab", "vec", "out", "item", "data", "row", "arr"]


def bases() -> list[dict[str, str]]:
    corpus = ROOT / "tests" / "corpus"
    folders = [ROOT / "solutions", ROOT / "examples" / "reference", ROOT / "examples" / "buggy",
               *sorted(corpus.glob("ok_*")), *sorted(corpus.glob("bug_*")),
               ROOT / "tests" / "similarity" / "indep_a", ROOT / "tests" / "similarity" / "indep_b"]
    return [c for c in (submission_code(f) for f in folders) if c]


def disguise(code: dict[str, str], rng: random.Random) -> dict[str, str]:
    """Rename the locally assigned names and add a few comments, as a student would."""
    out = {}
    for name, text in code.items():
        local = {n for n in ASSIGNED.findall(text) if not keyword.iskeyword(n) and len(n) > 1}
        for n in sorted(local):
            if rng.random() < 0.7:
                text = re.sub(rf"(?<![\w.]){n}\b", f"{rng.choice(WORDS)}_{rng.randrange(100)}", text)
        lines = text.splitlines()
        for _ in range(rng.randrange(3, 8)):
            at = rng.randrange(len(lines) + 1)
            indent = re.match(r"\s*", lines[at - 1]).group() if 0 < at <= len(lines) else ""
            lines.insert(at, f"{indent}# note {rng.randrange(10**6)}")
        out[name] = "\n".join(lines) + "\n"
    return out


def own_code(rng: random.Random) -> str:
    """A few helper functions of random shape: the part of a submission nobody else wrote."""
    ops = ["+", "-", "*", "//", "%", "^", "|", "&"]
    funcs = []
    for f in range(rng.randrange(2, 5)):
        body = ["    acc = a"]
        for _ in range(rng.randrange(4, 9)):
            kind = rng.randrange(4)
            if kind == 0:
                body.append(f"    acc = (acc {rng.choice(ops)} {rng.randrange(2, 99)}) {rng.choice(ops)} b")
            elif kind == 1:
                body += [f"    for i in range({rng.randrange(2, 9)}):",
                         f"        acc = acc {rng.choice(ops)} (i {rng.choice(ops)} {rng.randrange(1, 9)})"]
            elif kind == 2:
                body += [f"    if acc {rng.choice(['<', '>', '==', '!='])} {rng.randrange(50)}:",
                         f"        acc = [acc, b, {rng.randrange(9)}][{rng.randrange(3)}]"]
            else:
                low, high = rng.randrange(1, 9), rng.randrange(9)
                body.append(f"    b = max(b, acc {rng.choice(ops)} {low}, {high})")
        funcs.append(f"def helper_{f}(a, b):\n" + "\n".join(body) + "\n    return acc\n")
    return "\n\n".join(funcs)


def make_class(root: Path, students: int, seed: int = 0) -> set[frozenset[str]]:
    rng = random.Random(seed)
    pool = bases()
    codes: dict[str, dict[str, str]] = {}
    planted: set[frozenset[str]] = set()
    for i in range(students):
        sid = f"s{i:03d}"
        if i >= 10 and i % 20 == 0:  # a copy of an earlier student, disguised again
            source = f"s{rng.randrange(i):03d}"
            codes[sid] = disguise(codes[source], rng)
            planted.add(frozenset((sid, source)))
        else:  # each file from a base of its own: classmates share a file now and then, not everything
            mixed = {}
            for name in ("embedding.py", "reversal.py", "leetcode.py"):
                having = [b for b in pool if name in b]
                mixed[name] = rng.choice(having)[name]
            mixed["helpers.py"] = own_code(rng)
            codes[sid] = disguise(mixed, rng)
    for sid, code in codes.items():
        (root / sid / "code").mkdir(parents=True)
        for name, text in code.items():
            (root / sid / "code" / name).write_text(text, encoding="utf-8")
        marker = {"name": sid, "student_id": sid, "status": "graded"}
        (root / sid / "batch.json").write_text(json.dumps(marker))
    return planted


def _cpu() -> float:
    """CPU time of this process and of the workers it has waited for (the fingerprinting pool)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--students", type=int, default=200)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gk-sim-bench-") as tmp:
        root = Path(tmp)
        planted = make_class(root, args.students)
        times, cpu = [], []
        for _ in range(args.runs):
            started, used = time.perf_counter(), _cpu()
            outcome = run(root)
            times.append(time.perf_counter() - started)
            cpu.append(_cpu() - used)
    by_pair = {frozenset((q.a, q.b)): q for q in outcome.pairs}
    found = sum(by_pair[p].similarity >= 0.95 and by_pair[p].flagged for p in planted)
    load = os.getloadavg()[0]
    print(f"{args.students} students, {len(outcome.pairs)} pairs, {len(outcome.flagged)} flagged; "
          f"{found}/{len(planted)} planted copies flagged at similarity >= 0.95")
    print(f"median of {args.runs} runs: {statistics.median(times):.2f} s (min {min(times):.2f} s), "
          f"{statistics.median(cpu):.2f} CPU-seconds (every process); {os.cpu_count()} cores, "
          f"load average {load:.1f}")
    return 0 if found == len(planted) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
