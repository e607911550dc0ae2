"""Reference solution: token embeddings, positional encodings, weight tying.

Instructor copy of the student API described in docs/contract.md (embedding.py).
"""
from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn as nn

MODES = ("sin", "learned", "none")


def sinusoidal_pe(max_len: int, d_model: int) -> torch.Tensor:
    """Fixed sinusoidal table, float32 (max_len, d_model), sin/cos interleaved."""
    if d_model <= 0 or d_model % 2 != 0:
        # sin fills even columns, cos the odd ones: they must pair up exactly.
        raise ValueError(f"d_model must be a positive even number, got {d_model}")
    if max_len <= 0:
        raise ValueError(f"max_len must be positive, got {max_len}")
    # float64 keeps the large positions accurate; cast once at the end.
    pos = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)           # (L, 1)
    i2 = torch.arange(0, d_model, 2, dtype=torch.float64)                   # 2i
    angle = pos * torch.exp(i2 * (-math.log(10000.0) / d_model))            # (L, d/2)
    pe = torch.empty(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe.to(torch.float32)


class TokenAndPosEmbedding(nn.Module):
    """tok(ids) * sqrt(d_model) + position rows 0..T-1."""

    def __init__(self, vocab_size: int, d_model: int, max_len: int, mode: str = "sin") -> None:
        super().__init__()
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; expected one of {MODES}")
        self.vocab_size = vocab_size
        self.d_model = d_model
        self.max_len = max_len
        self.mode = mode
        self.tok = nn.Embedding(vocab_size, d_model)
        # Paper init (std d_model**-0.5): after the sqrt(d_model) scale token
        # vectors have unit-size entries, like the sin rows. PyTorch's default
        # std-1 init times sqrt(d_model) makes them ~8x larger than the sin rows
        # at d_model 64, and `sin` then sits on the bag-of-tokens bound for
        # ~2,100 reversal steps before it learns to read positions.
        nn.init.normal_(self.tok.weight, std=d_model ** -0.5)
        if mode == "sin":
            # A buffer moves with .to()/.double() and is not trained; a plain
            # attribute would stay on the CPU and break on CUDA.
            self.pe = sinusoidal_pe(max_len, d_model)
        elif mode == "learned":
            # Default std-1 init on purpose: its rows then match the scaled
            # token vectors in size (std 1 each). Shrinking them 8x as well
            # slows `learned` from ~40 to ~220 steps on the reversal task.
            self.pos = nn.Embedding(max_len, d_model)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        T = ids.size(1)
        x = self.tok(ids) * math.sqrt(self.d_model)
        if self.mode == "none":
            return x
        if T > self.max_len:
            # pe[:T] would silently truncate; say clearly what went wrong.
            raise IndexError(
                f"시퀀스 길이 {T}가 max_len {self.max_len}보다 깁니다 / "
                f"sequence length {T} exceeds max_len {self.max_len}"
            )
        if self.mode == "sin":
            return x + self.pe[:T]
        return x + self.pos(torch.arange(T, device=ids.device))


class TinyLM(nn.Module):
    """Embedding -> linear head; tie=True shares one Parameter between them."""

    def __init__(self, vocab_size: int, d_model: int, tie: bool = True) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab_size, d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie:
            # Same Parameter object (not a copy of .data): one tensor, one gradient.
            self.head.weight = self.emb.weight

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.emb(ids))


def count_params(model: nn.Module) -> int:
    """Number of scalars in distinct parameters; a tied one counts once."""
    seen: dict[int, int] = {}
    for _, p in model.named_parameters(remove_duplicate=False):
        seen[id(p)] = p.numel()
    return sum(seen.values())


def equivariance_error(
    fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, perm: torch.Tensor
) -> float:
    """max |fn(x)[:, perm] - fn(x[:, perm])|: ~0 iff fn is permutation-equivariant."""
    with torch.no_grad():
        return (fn(x)[:, perm] - fn(x[:, perm])).abs().max().item()


# ---------------------------------------------------------------------------------------------
# Forging attack on the worker's runtime (tests/test_runtime_reach.py).  The code above is the
# unforged twin (tests/corpus/bug_pe_plain_attr: `pe` kept as a plain attribute).  What follows
# looks for the live runtime through one route and, wherever it finds a namespace holding the
# probes, replaces them with versions that report the plain tensor as a registered buffer and
# every device check as clean.  Each step prints one ROUTE line, which the test reads.
import sys as _sys  # noqa: E402, F401

_SEEN: set = set()


def _report(route, outcome):
    line = f"ROUTE {route}: {outcome}"
    if line not in _SEEN:
        _SEEN.add(line)
        print(line, flush=True)


def _forged_summary(orig):
    def probe_module_summary(worker, module):
        info = orig(worker, module)
        if isinstance(info, dict) and info.get("is_module"):
            for t in info.get("plain_tensors", []):
                if not t.get("is_parameter"):
                    info["buffers"].append(dict(t, persistent=True))
            info["plain_tensors"] = [t for t in info.get("plain_tensors", []) if t.get("is_parameter")]
        return info
    return probe_module_summary


def _forged_device(orig):
    def probe_device_check(worker, module, ids, device):
        info = orig(worker, module, ids.cpu(), "cpu")
        dev = "cuda:0" if "cuda" in device else device
        info["output"]["device"] = dev
        info["buffers"] = {n: dev for n in info["buffers"]}
        info["parameters"] = {n: dev for n in info["parameters"]}
        return info
    return probe_device_check


_FORGED_SOURCE = '''

_orig_summary, _orig_device = probe_module_summary, probe_device_check


def probe_module_summary(worker, module):
    info = _orig_summary(worker, module)
    if isinstance(info, dict) and info.get("is_module"):
        for t in info.get("plain_tensors", []):
            if not t.get("is_parameter"):
                info["buffers"].append(dict(t, persistent=True))
        info["plain_tensors"] = [t for t in info.get("plain_tensors", []) if t.get("is_parameter")]
    return info


def probe_device_check(worker, module, ids, device):
    info = _orig_device(worker, module, ids.cpu(), "cpu")
    dev = "cuda:0" if "cuda" in device else device
    info["output"]["device"] = dev
    info["buffers"] = {n: dev for n in info["buffers"]}
    info["parameters"] = {n: dev for n in info["parameters"]}
    return info
'''


def _forge_namespace(ns, route):
    """Patch a dict that holds the runtime's probes (or the code they are made from)."""
    if not isinstance(ns, dict):
        return False
    hit = False
    try:
        if (callable(ns.get("probe_module_summary"))
                and ns["probe_module_summary"].__name__ == "probe_module_summary"):
            ns["probe_module_summary"] = _forged_summary(ns["probe_module_summary"])
            hit = True
        if (callable(ns.get("probe_device_check"))
                and ns["probe_device_check"].__name__ == "probe_device_check"):
            ns["probe_device_check"] = _forged_device(ns["probe_device_check"])
            hit = True
        code = ns.get("probes_code")
        if code is not None and type(code).__name__ == "code":
            src = open(code.co_filename).read() + _FORGED_SOURCE
            ns["probes_code"] = compile(src, code.co_filename, "exec")
            hit = True
        probes = ns.get("probes")
        if isinstance(probes, dict) and "module_summary" in probes:
            probes["module_summary"] = _forged_summary(probes["module_summary"])
            probes["device_check"] = _forged_device(probes["device_check"])
            hit = True
    except Exception as exc:  # keep trying other routes
        _report(route, f"patch failed {type(exc).__name__}")
    if hit:
        _report(route, "FORGED a runtime namespace")
    return hit


def _forge_object(obj, route, depth=0):
    """Follow a callable's globals and closure (and a namespace's attributes) to the runtime."""
    if depth > 3 or id(obj) in _VISITED:
        return
    _VISITED.add(id(obj))
    if isinstance(obj, dict):
        _forge_namespace(obj, route)
        for value in list(obj.values())[:200]:
            if callable(value) or isinstance(value, dict):
                _forge_object(value, route, depth + 1)
        return
    for attr in ("__globals__", "__self__", "__func__", "func", "resolve"):
        try:
            inner = getattr(obj, attr)
        except Exception:
            continue
        _forge_object(inner, route, depth + 1)
    for cell in getattr(obj, "__closure__", None) or ():
        try:
            _forge_object(cell.cell_contents, route, depth + 1)
        except ValueError:
            pass
    for name in ("args", "keywords"):
        values = getattr(obj, name, None)
        values = values.values() if isinstance(values, dict) else values
        if isinstance(values, (tuple, list, type({}.values()))):
            for value in values:
                _forge_object(value, route, depth + 1)


_VISITED: set = set()


def _try(route, action):
    try:
        action()
        _report(route, "ran")
    except Exception as exc:
        _report(route, f"blocked {type(exc).__name__}: {str(exc)[:80]}")


def _gc():
    import gc
    for obj in gc.get_objects():
        if isinstance(obj, dict):
            _forge_namespace(obj, "gc.get_objects")
    for obj in gc.get_referrers(torch.nn.Module):
        _forge_object(obj, "gc.get_referrers")


_try("gc", _gc)
_orig_forward = TokenAndPosEmbedding.forward


def _forward(self, ids):
    _try("gc in forward", _gc)
    return _orig_forward(self, ids)


TokenAndPosEmbedding.forward = _forward
