"""Every score-preserving transformation on every submission of the corpus: the full sweep.

    python bench/bench_transforms.py [--cases bug_wrong_base,solutions] [--public] [--out /tmp/sweep.json]

For each submission (tests/corpus/*, examples/reference, examples/buggy, solutions/), grades it as
it is and then transformed (tests/transforms.py), one transformation at a time and all source edits
together, and compares every test's status and the score.  Prints one line per difference and the
figure: transformed gradings, differences, wall time.  Exits 1 when anything differs.  The
reversal experiment's long training is left out (``-k "not reversal_experiment"``): the
transformations that touch reversal.py are still graded by its other tests.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from tests.transforms import CONTAINERS, SOURCE_EDITS, build, load, parses  # noqa: E402

KEYWORD = "not reversal_experiment"
# (name, build options): each transformation alone, then the source edits together, saved the Windows way.
SPECS: list[tuple[str, dict]] = (
    [(edit, {"edits": (edit,)}) for edit in SOURCE_EDITS]
    + [("utf-8-bom+crlf", {"encoding": "utf-8-bom", "newline": "crlf"}),
       ("cp949-cookie+crlf", {"encoding": "cp949-cookie", "newline": "crlf"}),
       ("utf-8+cr", {"newline": "cr"})]
    + [(c, {"container": c}) for c in CONTAINERS if c != "folder"]
    + [("all-edits+bom+crlf+zip-macos", {"edits": tuple(SOURCE_EDITS), "encoding": "utf-8-bom",
                                         "newline": "crlf", "container": "zip-macos", "seed": 7})]
)


def corpus_cases() -> dict[str, Path]:
    """Name -> submission folder: the corpus (expect.json), the examples and the reference."""
    cases = {p.name: p for p in sorted((ROOT / "tests" / "corpus").iterdir()) if (p / "expect.json").exists()}
    cases.update({"examples-reference": ROOT / "examples" / "reference",
                  "examples-buggy": ROOT / "examples" / "buggy", "solutions": ROOT / "solutions"})
    return cases


def materialise(case: Path, into: Path) -> Path:
    """A case folder as graded: one whose expect.json says ``copy_of`` is a copy of the kit's folder."""
    expect = case / "expect.json"
    copy_of = json.loads(expect.read_text()).get("copy_of") if expect.exists() else None
    if not copy_of:
        return case
    into.mkdir(parents=True, exist_ok=True)
    for source in (ROOT / copy_of).glob("*.py"):  # as tests/test_corpus.py grades it
        shutil.copy(source, into / source.name)
    return into


# What the grader says of a module whose import fails (grader/core/feedback.py).
IMPORT_FAILED = ("could not be imported", "never finished")


def applies(files: dict[str, bytes], spec: dict, base: dict | None = None) -> bool:
    """Whether a transformation keeps the program for these files.

    CP949 holds no em dash or emoji: a file with one cannot be saved that way.  A notebook runs
    cell by cell, each top-level statement under a time limit: a file that does not import as a
    whole (a SyntaxError, an import cycle, a loop at import, as the grading ``base`` says) is not the
    same program pasted into cells, so notebooks take only files that import.
    """
    texts = [d.decode("utf-8") for n, d in files.items() if n.endswith(".py")]
    if spec.get("encoding") == "cp949-cookie":
        try:
            [t.encode("cp949") for t in texts]
        except UnicodeEncodeError:
            return False
    if not str(spec.get("container", "")).startswith("notebook"):
        return True
    failed = base is not None and any(word in t["messages"]["en"]
                                      for t in base["tests"] for word in IMPORT_FAILED)
    return all(parses(t) for t in texts) and not _import_cycle(files) and not failed


def _import_cycle(files: dict[str, bytes]) -> bool:
    import ast

    graph: dict[str, set[str]] = {}
    for name, data in files.items():
        if name.endswith(".py"):
            tree = ast.parse(data.decode("utf-8"))
            nodes = list(ast.walk(tree))
            graph[name[:-3]] = {n.module for n in nodes if isinstance(n, ast.ImportFrom) and n.module}
            graph[name[:-3]] |= {a.name for n in nodes if isinstance(n, ast.Import) for a in n.names}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(n == goal or (n in graph and n not in seen and reaches(n, goal, seen | {n}))
                   for n in graph.get(start, ()))
    return any(reaches(m, m, {m}) for m in graph)


def verdict(results: dict) -> tuple[dict[str, str], float]:
    """What must not change: each test's status, and the score."""
    return {t["id"]: t["status"] for t in results["tests"]}, float(results["score"])


def differences(before: tuple[dict[str, str], float], after: tuple[dict[str, str], float]) -> list[str]:
    (a, score_a), (b, score_b) = before, after
    out = [f"{test}: {a.get(test)} -> {b.get(test)}"
           for test in sorted(set(a) | set(b)) if a.get(test) != b.get(test)]
    if score_a != score_b:
        out.append(f"score {score_a} -> {score_b}")
    return out


def main(argv: list[str] | None = None) -> int:
    from tests.conftest import grade

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--public", action="store_true",
                        help="the public suite only (default: public + hidden)")
    parser.add_argument("--out", type=Path, help="write the differences and the figure as JSON")
    parser.add_argument("--skip", default="", help="comma-separated case names to leave out")
    args = parser.parse_args(argv)
    cases = corpus_cases()
    if args.cases:
        cases = {k: v for k, v in cases.items() if k in args.cases.split(",")}
    cases = {k: v for k, v in cases.items() if k not in args.skip.split(",")}
    started, graded, found, skipped = time.monotonic(), 0, [], 0
    with tempfile.TemporaryDirectory(prefix="gk-sweep-") as tmp:
        for name, folder in cases.items():
            case = materialise(folder, Path(tmp) / name / "case")
            files = load(case)
            results = grade(case, hidden=not args.public, keyword=KEYWORD)
            base = verdict(results)
            for label, spec in SPECS:
                if not applies(files, spec, results):
                    skipped += 1
                    continue
                dest = Path(tmp) / name / label
                dest.mkdir(parents=True)
                after = verdict(grade(build(files, dest, **spec), hidden=not args.public, keyword=KEYWORD))
                graded += 1
                for line in differences(base, after):
                    found.append({"case": name, "transformation": label, "difference": line})
                    print(f"DIFF {name} [{label}] {line}", flush=True)
            print(f"{name}: done ({graded} transformed gradings, {len(found)} differences so far)",
                  flush=True)
    wall = time.monotonic() - started
    figure = {"cases": len(cases), "transformed_gradings": graded, "not_applicable": skipped,
              "differences": len(found),
              "wall_s": round(wall, 1)}
    print(json.dumps(figure))
    if args.out:
        args.out.write_text(json.dumps({"figure": figure, "differences": found}, indent=2), encoding="utf-8")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
