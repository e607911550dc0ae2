"""This lesson's worker probes: the equivariance functions, the reversal harness, the scale and spy probes.

Shipped to the worker beside the kit's generic probes (grader/runtime/probes.py) as ``Lesson.probes``
(grader/engine/lesson_api.py): the sandbox copies this file into the worker's runtime folder under a
``gk_`` name, and the worker runs it in a fresh namespace for each call of one of its ``probe_<name>``
functions (``student.probe("reversal_component", ...)``), never as a module. So it is self-contained: it
imports only what the worker binds at start (torch, torch.nn, typing, __future__; grader/runtime/worker.py
``PROBE_MODULES``) and nothing of the grader. Each probe returns observations, never a verdict.

The grader process imports it as a module too: ``build_function`` builds the equivariance tests' expected
function from the same code the worker runs (suites/hidden/test_equivariance.py).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn


def probe_equivariance(worker: Any, kind: str, state: dict, x: torch.Tensor, perm: torch.Tensor,
                       config: dict) -> Any:
    """Call the student's equivariance_error on a function the grader describes."""
    fn = build_function(kind, state, config)
    return worker.resolve("embedding.equivariance_error")(fn, x, perm)


def build_function(kind: str, state: dict, config: dict) -> Any:
    """The (B, T, d) -> (B, T, d) functions used by the equivariance tests.

    The grader builds the same function from the same weights to compute the
    expected value; both sides share this code.
    """
    d, heads = int(config["d"]), int(config["heads"])
    attn = nn.MultiheadAttention(d, heads, batch_first=True)
    attn.load_state_dict(state)
    attn.eval()
    if kind == "attention":
        def fn(x: torch.Tensor) -> torch.Tensor:
            return attn(x, x, x, need_weights=False)[0]
    elif kind == "attention_with_positions":
        pe = config["pe"]

        def fn(x: torch.Tensor) -> torch.Tensor:
            y = x + pe[: x.shape[1]].to(x.dtype)
            return attn(y, y, y, need_weights=False)[0]
    else:
        raise ValueError(f"unknown function kind {kind!r}")
    return fn


# -- the reversal experiment (experiment.py; suites/*/test_reversal.py) --------------------
# The grader's own harness and spies: grader-written code that must run in the worker because it trains or
# drives the student's objects.


class _ComponentHarness(nn.Module):
    """The grader's reversal model around the student's embedding layer."""

    def __init__(self, emb: nn.Module, cfg: dict) -> None:
        super().__init__()
        d = int(cfg["d_model"])
        self.emb = emb
        layer = nn.TransformerEncoderLayer(d, int(cfg["n_heads"]), int(cfg["dim_feedforward"]), 0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, int(cfg["n_layers"]), enable_nested_tensor=False)
        self.head = nn.Linear(d, int(cfg["vocab_size"]))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(self.emb(ids)))


def _harness_accuracy(model: nn.Module, ids: torch.Tensor) -> float:
    model.eval()
    with torch.no_grad():
        acc = float((model(ids).argmax(-1) == ids.flip(1)).double().mean())
    model.train()
    return acc


def probe_reversal_component(worker: Any, mode: str, seed: int, cfg: dict, stop_ids: torch.Tensor,
                             eval_ids: dict, perm_ids: torch.Tensor | None = None,
                             perm: torch.Tensor | None = None) -> dict:
    """Train the grader's harness with the student's TokenAndPosEmbedding; report raw observations.

    The token table is re-initialised at the paper's scale (std d_model**-0.5) so
    that the embedding is judged on its positions, not on its init.  Training
    stops early once accuracy on ``stop_ids`` reaches the threshold (not for
    `none`, which trains its fixed budget).  Predictions on the grader's
    ``eval_ids`` come back; the grader computes the accuracies itself.
    """
    d, vocab = int(cfg["d_model"]), int(cfg["vocab_size"])
    torch.manual_seed(seed)
    emb = worker.resolve("embedding.TokenAndPosEmbedding")(vocab, d, int(cfg["max_len"]), mode=mode)
    tok = getattr(emb, "tok", None)
    if not isinstance(tok, nn.Embedding):
        raise AttributeError("the component check needs `self.tok`, an nn.Embedding(vocab_size, d_model)")
    with torch.no_grad():
        tok.weight.normal_(0.0, d ** -0.5)
    model = _ComponentHarness(emb, cfg)
    opt = torch.optim.Adam(model.parameters(), lr=float(cfg["lr"]))
    gen = torch.Generator().manual_seed(seed)
    max_steps = int(cfg["max_steps"][mode])
    losses: list[float] = []
    reached = None
    model.train()
    for step in range(1, max_steps + 1):
        ids = torch.randint(0, vocab, (int(cfg["batch_size"]), int(cfg["length"])), generator=gen)
        loss = nn.functional.cross_entropy(model(ids).reshape(-1, vocab), ids.flip(1).reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))  # detach: no "scalar of a tensor that requires grad" warning
        if (mode != "none" and step % int(cfg["check_every"]) == 0
                and _harness_accuracy(model, stop_ids) >= float(cfg["stop_threshold"])):
            reached = step
            break
    model.eval()
    preds, errors = {}, {}
    with torch.no_grad():
        for length, ids in eval_ids.items():
            try:
                preds[length] = model(ids).argmax(-1)
            except Exception as exc:  # e.g. a length past max_len: report, do not crash the probe
                errors[length] = f"{type(exc).__name__}: {exc}"[:300]
        perm_out = None
        if perm_ids is not None and perm is not None:
            perm_out = (model(perm_ids), model(perm_ids[:, perm]))
    return {"steps": len(losses), "losses": losses, "reached_at": reached, "preds": preds,
            "errors": errors, "perm_out": perm_out}


def probe_embedding_scale(worker: Any, vocab: int, d_model: int, max_len: int, mode: str, seed: int) -> dict:
    """Entry size of the scaled token vectors and of the position rows, at the student's own init."""
    torch.manual_seed(seed)
    emb = worker.resolve("embedding.TokenAndPosEmbedding")(vocab, d_model, max_len, mode=mode)
    with torch.no_grad():
        tokens = emb.tok.weight.double() * d_model ** 0.5
        out = emb(torch.zeros(1, max_len, dtype=torch.int64)).double()[0]
        positions = out - tokens[0]
    return {"token_std": float(tokens.std()), "position_std": float(positions.std()),
            "position_absmax": float(positions.abs().max())}


class _SpyModel(nn.Module):
    """A stand-in model for `evaluate`: records what it is fed, predicts each input token (copy).

    Copying is right only where x[t] == x[T-1-t], so an honest evaluate reports
    about 0.1; in training mode it answers noise, as dropout would perturb a real model.
    """

    def __init__(self, vocab: int) -> None:
        super().__init__()
        self.vocab_size = vocab
        self.dummy = nn.Parameter(torch.zeros(1))
        self.seen: list[torch.Tensor] = []
        self.training_flags: list[bool] = []
        self.grad_flags: list[bool] = []

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        ids = torch.as_tensor(ids)
        self.seen.append(ids.detach().to("cpu", torch.int64).clone())
        self.training_flags.append(bool(self.training))
        self.grad_flags.append(torch.is_grad_enabled())
        logits = nn.functional.one_hot(ids.to(torch.int64), self.vocab_size).to(self.dummy.dtype) * 5.0
        if self.training:
            logits = torch.randn(logits.shape, device=logits.device) * 5.0
        return logits.to(self.dummy.device) + self.dummy * 0


def probe_spy_model(worker: Any, vocab: int) -> nn.Module:
    return _SpyModel(vocab)


def probe_spy_report(worker: Any, spy: nn.Module) -> dict:
    seen = [t for t in spy.seen if t.dim() == 2]
    widths = sorted({int(t.shape[1]) for t in seen})
    rows = sum(int(t.shape[0]) for t in seen)
    same_width = [t for t in seen if widths and t.shape[1] == widths[0]]
    ids = torch.cat(same_width)[:20000] if same_width else torch.zeros(0, 0, dtype=torch.int64)
    return {"calls": len(spy.seen), "widths": widths, "rows": rows, "ids": ids,
            "training_flags": list(spy.training_flags), "grad_flags": list(spy.grad_flags),
            "other_shapes": [list(t.shape) for t in spy.seen if t.dim() != 2][:5]}


# -- the LeetCode log's claims, measured (leetlog/code/costmeter.py, leetlog/code/claims.py) ---------


def probe_practice_cost(worker: Any, target: str, counted: str, function: str, calls: list, stop_after: int,
                        budget: int) -> list:
    """Run the practice function's counted copy (leetlog/code/costmeter.counted_source: the student's own
    code with counters written in, since the guard denies sys.settrace) at each of ``calls`` in turn; per
    call its steps, deepest recursion, peak traced bytes and how it ended. The copy is compiled beside the
    student's module, in a copy of its namespace: its constants and imports are the module's, nothing of it
    changes.
    Stops after a call that ended otherwise than 'ok' or took ``stop_after`` steps."""
    import collections
    import copy
    import sys
    import tracemalloc

    # the module of the function: the one a partial binds, a decorator (@lru_cache) wraps, or whose class's
    # __call__ it is ('my_pow = Power()')
    found = worker.resolve(target)
    found = getattr(found, "func", found)
    for _ in range(32):  # wrappers unwrapped; an object whose __getattr__ answers anything stops here
        if not hasattr(found, "__wrapped__"):
            break
        found = found.__wrapped__
    home = dict(getattr(found, "__globals__", None) or type(found).__call__.__globals__)
    state = {"steps": 0, "depth": 0, "deepest": 0}

    class Stop(BaseException):  # not an Exception: a student's `except Exception` does not swallow it
        pass

    def tick() -> None:
        state["steps"] += 1
        if state["steps"] > budget:
            raise Stop

    def loop(items: Any) -> Any:
        for item in items:
            tick()
            yield item

    def made(value: Any) -> Any:  # a value the code made, or a method's receiver: its length, or an
        kind = type(value)  # int's 64-bit words past the first (each one written)
        if kind is int:
            state["steps"] += value.bit_length() >> 6
        # a float is no container: not asked (hasattr's AttributeError would be bytes the code never took)
        elif kind not in (float, bool, complex) and hasattr(kind, "__len__"):
            state["steps"] += len(value)
        return value

    def elems(value: Any) -> Any:  # what a built-in goes over: a container by its length (itself
        kind = type(value)  # passed on: np.prod takes no generator for an array), anything else (a
        # generator, map, itertools.repeat, a class of the student's own: its __len__ may lie) item by item
        if hasattr(kind, "__len__") and kind.__module__ != home.get("__name__"):
            return made(value)
        return loop(value) if hasattr(kind, "__iter__") else value

    def fill(target: Any, cut: slice, value: Any) -> Any:  # target[cut] = value: the elements written,
        kind = type(value)  # one value for each (a container's length, an iterator's items as
        if hasattr(kind, "__iter__") and not hasattr(kind, "__len__"):
            return loop(value)  # it is consumed) or one for all (numpy's sieve[i * i::i] = False)
        sized = hasattr(type(target), "__len__")
        written = len(range(len(target))[cut]) if sized else 0
        state["steps"] += max(written, len(value) if hasattr(kind, "__len__") else 0)
        return value

    def enter() -> None:
        tick()
        state["depth"] += 1
        state["deepest"] = max(state["deepest"], state["depth"])

    def scan(value: Any) -> Any:  # what `in` searches: a sequence's items (a set or dict hashes)
        if isinstance(value, (list, tuple, str, bytes, bytearray, collections.deque)):
            state["steps"] += len(value)
        return value

    def leave(*done: Any) -> Any:  # a lambda's value passes through: _gk_exit(_gk_enter(), body)
        state["depth"] -= 1
        return done[-1] if done else None

    home.update(_gk_loop=loop, _gk_tick=tick, _gk_enter=enter, _gk_exit=leave, _gk_elems=elems,
                _gk_made=made, _gk_scan=scan, _gk_fill=fill)
    code = compile(counted, "<leetcode.py, counted>", "exec")
    containers = {dict, list, set, collections.defaultdict, collections.OrderedDict, collections.Counter,
                  collections.deque}

    def run(args: list) -> dict:
        # a fresh copy for each call, and of the module's containers as they were: a cache (@cache) or a
        # memo filled at the last size would hide this one's work
        fresh = {k: copy.copy(v) if type(v) in containers else v for k, v in home.items()}
        exec(code, fresh)
        state.update(steps=0, depth=0, deepest=0)
        status = "ok"
        # Python's own recursion limit, as the sizes assume: a module that raises it would run a recursion
        # n deep at every size (and past the worker's time) instead of stopping at RecursionError
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(min(limit, 1_000))
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        try:
            fresh[function](*args)
        except Stop:
            status = "budget"
        except RecursionError:
            status = "recursion"
        except Exception as exc:
            status = type(exc).__name__
        finally:
            peak = tracemalloc.get_traced_memory()[1] - base
            tracemalloc.stop()
            sys.setrecursionlimit(limit)
        return {"steps": state["steps"], "depth": state["deepest"], "peak": max(peak, 0), "status": status}

    out = []
    for args in calls:
        done = run(args)
        if done["status"] == "ok":
            # tracemalloc traces every thread: what another one allocates meanwhile (the worker's own)
            # only adds to a peak, so the smaller of two runs is the call's (steps and depth are exact)
            done["peak"] = min(done["peak"], run(args)["peak"])
        out.append(done)
        if done["status"] != "ok" or done["steps"] >= stop_after:
            break
    return out
