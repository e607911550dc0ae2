"""What the worker's audit hook (grader/runtime/guard.py) costs, on the work a worker does.

    python bench/bench_guard.py [--runs 5]

Each run is a fresh Python that loads the runtime exactly as a worker does (gk_worker's
``prepare``), then, with and without the hook installed, times: the grader's reversal
harness training the reference embedding (``probe_reversal_component``, the lesson's probe, mode sin,
a fixed 300 steps: the experiment's heaviest kind of call), and importing a dozen standard-library
modules that nothing had imported yet (imports are where the hook sees most events).
Prints the medians and the difference.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, os, sys, time
runtime_dir, guard_on = sys.argv[1], sys.argv[2] == "1"
sys.path.insert(0, "@ROOT@")
ns = {"__name__": "gk_boot", "__file__": os.path.join(runtime_dir, "gk_worker.py")}
exec(open(ns["__file__"]).read(), ns)
runtime = ns["prepare"](runtime_dir)
import _thread, types
from solutions.embedding import TokenAndPosEmbedding
from lesson_embedding_pe import experiment as X
if guard_on:  # as for student code: installed for another (serve) thread
    runtime["guard"]["install"](_thread.get_ident() + 1, runtime["trusted_roots"])
probes = {"__name__": "gk_probe"}
exec(runtime["lesson_probes_code"], probes)  # the harness is the lesson's (lesson_embedding_pe/probes.py)
view = types.SimpleNamespace(resolve=lambda name: TokenAndPosEmbedding)
cfg = dict(X.HARNESS, max_steps={"sin": 300}, stop_threshold=2.0)
ids = {8: X.fresh_batch(64, 8, seed=1)}
t = time.perf_counter()
probes["probe_reversal_component"](view, "sin", 0, cfg, X.fresh_batch(64, 8, seed=2), ids)
train = time.perf_counter() - t
t = time.perf_counter()
for name in ("wave", "tarfile", "ftplib", "imaplib", "smtplib", "mailbox", "plistlib", "telnetlib", "uuid",
             "xml.dom.minidom", "http.cookiejar", "calendar"):
    __import__(name)
imports = time.perf_counter() - t
print(json.dumps({"train": train, "imports": imports}))
"""


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    sys.path.insert(0, str(ROOT))
    from grader.sandbox.launch import make_runtime
    from lesson_embedding_pe import LESSON

    with tempfile.TemporaryDirectory(prefix="gk-bench-guard-") as tmp:
        runtime = make_runtime(Path(tmp) / "runtime", LESSON.probes)
        code = CHILD.replace("@ROOT@", str(ROOT))
        results: dict[str, list[dict]] = {"off": [], "on": []}
        for _ in range(args.runs):
            for label, flag in (("off", "0"), ("on", "1")):
                out = subprocess.run([sys.executable, "-I", "-c", code, str(runtime), flag],
                                     capture_output=True, text=True, check=True,
                                     env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
                results[label].append(json.loads(out.stdout.strip().splitlines()[-1]))
    for what in ("train", "imports"):
        off = statistics.median(r[what] for r in results["off"])
        on = statistics.median(r[what] for r in results["on"])
        print(f"{what:8s} without hook {off:.3f} s, with hook {on:.3f} s: {100 * (on - off) / off:+.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
