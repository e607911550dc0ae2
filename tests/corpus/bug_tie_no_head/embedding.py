"""My solution for the embedding exercise (a correct sample submission)."""
import math

import torch
import torch.nn as nn


def sinusoidal_pe(max_len: int, d_model: int) -> torch.Tensor:
    if d_model <= 0 or d_model % 2 == 1:
        raise ValueError(f"d_model must be even and > 0 (got {d_model})")
    if max_len <= 0:
        raise ValueError(f"max_len must be > 0 (got {max_len})")
    table = []
    for pos in range(max_len):
        row = []
        for i in range(d_model // 2):
            angle = pos / math.pow(10000, 2 * i / d_model)
            row.append(math.sin(angle))  # even column 2i
            row.append(math.cos(angle))  # odd column 2i+1
        table.append(row)
    return torch.tensor(table, dtype=torch.float64).float()


class TokenAndPosEmbedding(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, max_len: int, mode: str = "sin") -> None:
        super().__init__()
        if mode not in ("sin", "learned", "none"):
            raise ValueError(f"mode must be sin, learned or none, not {mode}")
        self.d_model, self.max_len, self.mode = d_model, max_len, mode
        self.tok = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.tok.weight, mean=0.0, std=1 / math.sqrt(d_model))
        if mode == "sin":
            # not saved in state_dict: it can always be recomputed
            self.register_buffer("pe", sinusoidal_pe(max_len, d_model), persistent=False)
        elif mode == "learned":
            self.pos = nn.Embedding(max_len, d_model)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        B, T = ids.shape
        out = self.tok(ids) * self.d_model ** 0.5
        if self.mode != "none" and T > self.max_len:
            raise IndexError(f"length {T} > max_len {self.max_len}")
        if self.mode == "sin":
            out = out + self.pe[:T].unsqueeze(0)
        elif self.mode == "learned":
            positions = torch.arange(T, device=ids.device).unsqueeze(0).expand(B, T)
            out = out + self.pos(positions)
        return out


class TinyLM(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, tie: bool = True) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab_size, d_model)
        self.tie = tie
        self.head = None if tie else nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h = self.emb(ids)
        if self.tie:
            return torch.nn.functional.linear(h, self.emb.weight)
        return self.head(h)


def count_params(model: nn.Module) -> int:
    total = 0
    seen = set()
    for p in model.parameters():
        if id(p) not in seen:
            seen.add(id(p))
            total += p.numel()
    return total


def equivariance_error(fn, x: torch.Tensor, perm: torch.Tensor) -> float:
    with torch.no_grad():
        a = fn(x)[:, perm]
        b = fn(x[:, perm])
    return float((a - b).abs().max())
