# Student B -- lesson 3 homework (positional encoding).
from __future__ import annotations

import math

import torch
import torch.nn as nn


def sinusoidal_pe(max_len: int, d_model: int) -> torch.Tensor:
    for label, value in (("max_len", max_len), ("d_model", d_model)):
        if value <= 0:
            raise ValueError(f"{label}={value}: must be positive")
    if d_model % 2 == 1:
        raise ValueError(f"d_model={d_model}: must be even for sin/cos pairs")
    out = torch.zeros((max_len, d_model), dtype=torch.float64)
    for col in range(0, d_model, 2):
        rate = 1.0 / (10000.0 ** (col / d_model))
        wave = torch.arange(max_len, dtype=torch.float64) * rate
        out[:, col] = torch.sin(wave)
        out[:, col + 1] = torch.cos(wave)
    return out.to(dtype=torch.float32)


class TokenAndPosEmbedding(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, max_len: int, mode: str = "sin") -> None:
        super().__init__()
        if mode == "sin":
            self.register_buffer("pe", sinusoidal_pe(max_len, d_model)[None])   # (1, L, d)
        elif mode == "learned":
            self.pos = nn.Embedding(max_len, d_model)
        elif mode != "none":
            raise ValueError(f"mode={mode!r} is not one of 'sin', 'learned', 'none'")
        self.tok = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.tok.weight, mean=0.0, std=1.0 / math.sqrt(d_model))
        self.scale = math.sqrt(d_model)
        self.limit = max_len
        self.mode = mode

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        batch, steps = ids.shape
        h = self.tok(ids).mul(self.scale)
        if self.mode != "none" and steps > self.limit:
            raise IndexError(f"input length {steps} > max_len {self.limit}")
        if self.mode == "sin":
            h = h + self.pe[:, :steps, :]
        elif self.mode == "learned":
            where = torch.arange(steps, device=ids.device).expand(batch, steps)
            h = h + self.pos(where)
        return h


class TinyLM(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, tie: bool = True) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab_size, d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie:
            self.head.weight = self.emb.weight

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.emb(ids))


def count_params(model: nn.Module) -> int:
    # named_parameters() already skips a tensor it has seen once
    return sum(p.numel() for _, p in model.named_parameters())


def equivariance_error(fn, x: torch.Tensor, perm: torch.Tensor) -> float:
    with torch.no_grad():
        diff = fn(x)[:, perm] - fn(x[:, perm])
    return diff.abs().amax().item()
