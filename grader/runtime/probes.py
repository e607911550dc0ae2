"""Grader-written operations that run inside the worker, on student objects.

Each ``probe_<name>(worker, *args)`` returns observations (tensors, shapes,
names), never a verdict: the grader decides.  Everything here runs in the
untrusted process, so a hostile submission could tamper with it; the tests
therefore prefer behavioural observations (outputs for inputs the grader
chose) over self-reported structure, and use structure only to explain.
"""

from __future__ import annotations

import copy
from typing import Any

import torch
from torch import nn


def _tensor_info(t: torch.Tensor) -> dict:
    return {"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch."), "device": str(t.device)}


def probe_module_summary(worker: Any, module: nn.Module) -> dict:
    """Buffers, parameters, tensor attributes and children of a module tree."""
    if not isinstance(module, nn.Module):
        return {"is_module": False, "type": type(module).__name__}
    buffers = []
    for prefix, sub in module.named_modules():
        for name, buf in sub._buffers.items():
            if buf is None:
                continue
            full = f"{prefix}.{name}" if prefix else name
            buffers.append(dict(_tensor_info(buf), name=full,
                                persistent=name not in sub._non_persistent_buffers_set))
    params = [dict(_tensor_info(p), name=n) for n, p in module.named_parameters(remove_duplicate=False)]
    distinct = len({id(p) for p in module.parameters()})
    plain = []
    for prefix, sub in module.named_modules():
        for name, value in vars(sub).items():
            if isinstance(value, torch.Tensor) and not name.startswith("_"):
                plain.append(dict(_tensor_info(value), name=f"{prefix}.{name}" if prefix else name,
                                  is_parameter=isinstance(value, nn.Parameter)))
    children = {name: type(child).__name__ for name, child in module.named_children()}
    embedding_shapes = {name: [child.num_embeddings, child.embedding_dim]
                        for name, child in module.named_children() if isinstance(child, nn.Embedding)}
    return {
        "is_module": True,
        "type": type(module).__name__,
        "buffers": buffers,
        "parameters": params,
        "distinct_parameters": distinct,
        "plain_tensors": plain,
        "children": children,
        "embeddings": embedding_shapes,
        "training": module.training,
    }


def probe_same_object(worker: Any, obj: Any, path_a: str, path_b: str) -> bool:
    return _walk(obj, path_a) is _walk(obj, path_b)


def _walk(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def probe_set_tensor(worker: Any, module: nn.Module, path: str, value: torch.Tensor) -> None:
    """Copy ``value`` into the parameter or buffer at ``path`` (in place)."""
    with torch.no_grad():
        _walk(module, path).copy_(value)


def probe_device_check(worker: Any, module: nn.Module, ids: torch.Tensor, device: str) -> dict:
    """Move a copy of the module to ``device`` and run a forward on ids there.

    ``device`` is ``meta``, ``cuda`` (real GPU) or ``fakecuda``: the latter runs
    under FakeTensorMode, which simulates CUDA without a GPU and raises on
    mixed-device ops exactly like a real GPU would.
    """
    model = copy.deepcopy(module)
    if device == "fakecuda":
        from torch._subclasses.fake_tensor import FakeTensorMode

        with FakeTensorMode(allow_non_fake_inputs=True):
            model = model.to("cuda")
            out = model(ids.to("cuda"))
            return _result_info(model, out)
    model = model.to(device)
    with torch.no_grad():
        out = model(ids.to(device))
    return _result_info(model, out)


def _result_info(model: nn.Module, out: Any) -> dict:
    info = {"output": _tensor_info(out) if isinstance(out, torch.Tensor) else {"type": type(out).__name__}}
    info["buffers"] = {n: str(b.device) for n, b in model.named_buffers()}
    info["parameters"] = {n: str(p.device) for n, p in model.named_parameters()}
    return info


def probe_seed(worker: Any, seed: int) -> None:
    torch.manual_seed(seed)


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


# ---------------------------------------------------------------------------
# Reversal experiment (grader/lesson/experiment.py; suites/*/test_reversal.py).
# The grader's own harness and spies: grader-written code that must run here
# because it trains or drives the student's objects.
# ---------------------------------------------------------------------------


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
