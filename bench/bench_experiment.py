"""Steps and seconds to 0.95 token accuracy on reversal, per mode: lesson's init against the paper's.

    python bench/bench_experiment.py [--seeds 0 1 2] [--max-steps 3500] [--out /tmp/experiment_bench.md]

The model is the reference ReversalModel (d_model 64, 2 layers, 4 heads); only
the token table's init differs: the lesson's (nn.Embedding default, std 1)
or the paper's (std d_model**-0.5).  Two recipes: the lesson's (Adam lr 1e-3,
batch 64, what the student's own experiment uses) and the grader's component
harness (lr 3e-3, batch 32, lesson_embedding_pe/experiment.py HARNESS).  One thread per run,
accuracy checked every 10 steps on 500 fresh length-8 sequences; `none` never
reaches the threshold, so it reports where it stalls against the bound.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lesson_embedding_pe import experiment as X  # noqa: E402
from lesson_embedding_pe import reference  # noqa: E402

RECIPES = {"lesson": ("lesson (lr 1e-3, batch 64)", 1e-3, 64),
           "harness": ("grader harness (lr 3e-3, batch 32)", 3e-3, 32)}


def run(mode: str, init: str, lr: float, batch: int, seed: int, max_steps: int) -> dict:
    ref = reference.load().reversal
    torch.manual_seed(seed)
    model = ref.ReversalModel(mode=mode)
    if init == "lesson":
        nn.init.normal_(model.emb.tok.weight, std=1.0)
    gen = torch.Generator().manual_seed(seed)
    eval_ids = X.fresh_batch(500, 8, seed=10_000 + seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    started, reached, acc = time.perf_counter(), None, 0.0
    for step in range(1, max_steps + 1):
        ids = torch.randint(0, 10, (batch, 8), generator=gen)
        loss = nn.functional.cross_entropy(model(ids).reshape(-1, 10), ids.flip(1).reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            model.eval()
            with torch.no_grad():
                acc = X.accuracy(model(eval_ids), eval_ids)
            model.train()
            if acc >= X.THRESHOLD:
                reached = step
                break
            if mode == "none" and step >= 200:
                break
    return {"steps": reached, "seconds": time.perf_counter() - started, "acc": acc, "trained": step}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--max-steps", type=int, default=3500)
    parser.add_argument("--recipes", nargs="+", choices=sorted(RECIPES), default=["lesson", "harness"])
    parser.add_argument("--out", type=Path, default=None)
    opts = parser.parse_args(argv)
    torch.set_num_threads(1)
    lines = [
        "Reversal, length 8, vocab 10, d_model 64; steps (and seconds, 1 thread) to token accuracy "
        f">= {X.THRESHOLD}; "
        f"bag-of-tokens bound {X.bound(8):.3f} (length 8). Seeds {opts.seeds}, cap {opts.max_steps} steps.",
        "",
        "| recipe | mode | paper init (std d_model**-0.5) | lesson init (std 1) |",
        "|---|---|---|---|",
    ]
    for key in opts.recipes:
        recipe, lr, batch = RECIPES[key]
        for mode in ("sin", "learned", "none"):
            cells = []
            for init in ("paper", "lesson"):
                rows = [run(mode, init, lr, batch, s, opts.max_steps) for s in opts.seeds]
                cells.append(_cell(mode, rows))
                print(recipe, mode, init, rows, flush=True)
            lines.append(f"| {recipe} | {mode} | {cells[0]} | {cells[1]} |")
    lines += ["", f"Command: `python bench/bench_experiment.py --seeds {' '.join(map(str, opts.seeds))} "
                  f"--max-steps {opts.max_steps} --recipes {' '.join(opts.recipes)}`; "
                  f"torch {torch.__version__}, CPU."]
    table = "\n".join(lines)
    print(table)
    if opts.out:
        opts.out.write_text(table + "\n", encoding="utf-8")


def _cell(mode: str, rows: list[dict]) -> str:
    secs = statistics.mean(r["seconds"] for r in rows)
    if mode == "none" or any(r["steps"] is None for r in rows):
        accs = ", ".join(f"{r['acc']:.2f}@{r['trained']}" for r in rows)
        return f"not reached: acc {accs} ({secs:.1f} s)"
    steps = [r["steps"] for r in rows]
    return f"{statistics.mean(steps):.0f} steps ({min(steps)}-{max(steps)}), {secs:.1f} s"


if __name__ == "__main__":
    main()
