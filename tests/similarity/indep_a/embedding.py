"""Student A: embeddings with positions, written from the paper's formula."""
import math

import torch
from torch import nn


def sinusoidal_pe(max_len, d_model):
    if not isinstance(d_model, int) or d_model < 1 or d_model & 1:
        raise ValueError("d_model has to be even and > 0 (got %r)" % (d_model,))
    if max_len < 1:
        raise ValueError("max_len has to be > 0 (got %r)" % (max_len,))
    half = d_model // 2
    freqs = torch.pow(10000.0, -torch.arange(half, dtype=torch.float64) * 2.0 / d_model)
    positions = torch.arange(max_len, dtype=torch.float64)
    angles = torch.outer(positions, freqs)
    # stack (sin, cos) on a new last axis and flatten: sin, cos, sin, cos ...
    table = torch.stack((angles.sin(), angles.cos()), dim=-1).reshape(max_len, d_model)
    return table.float()


class TokenAndPosEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model, max_len, mode="sin"):
        super().__init__()
        builders = {"sin": self._fixed, "learned": self._trainable, "none": lambda: None}
        if mode not in builders:
            raise ValueError("mode must be sin, learned or none, not " + repr(mode))
        self.mode, self.d_model, self.max_len = mode, d_model, max_len
        self.tok = nn.Embedding(vocab_size, d_model)
        with torch.no_grad():
            self.tok.weight.normal_(0.0, 1.0 / math.sqrt(d_model))
        builders[mode]()

    def _fixed(self):
        self.register_buffer("pe", sinusoidal_pe(self.max_len, self.d_model), persistent=False)

    def _trainable(self):
        self.pos = nn.Embedding(self.max_len, self.d_model)

    def _positions(self, length, device):
        if length > self.max_len:
            raise IndexError(f"got {length} positions but max_len is {self.max_len}")
        if self.mode == "sin":
            return self.pe[:length]
        return self.pos.weight[:length]

    def forward(self, ids):
        scaled = self.tok(ids) * self.d_model ** 0.5
        if self.mode == "none":
            return scaled
        return scaled + self._positions(ids.shape[-1], ids.device).unsqueeze(0)


class TinyLM(nn.Module):
    def __init__(self, vocab_size, d_model, tie=True):
        super().__init__()
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        self.emb = nn.Embedding(vocab_size, d_model)
        if tie:
            self.emb.weight = self.head.weight

    def forward(self, ids):
        hidden = self.emb(ids)
        return self.head(hidden)


def count_params(model):
    unique = {}
    for tensor in model.parameters():
        unique.setdefault(id(tensor), tensor.numel())
    return int(sum(unique.values()))


def equivariance_error(fn, x, perm):
    with torch.no_grad():
        before = fn(x).index_select(1, perm)
        after = fn(x.index_select(1, perm))
    return float(torch.max(torch.abs(before - after)))
