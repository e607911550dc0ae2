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
            pass  # the table is rebuilt in forward, where the input is
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
            return x + sinusoidal_pe(T, self.d_model).to(device=x.device, dtype=x.dtype)
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
