"""My solution: token embeddings plus positions, from the formula in the paper."""
import math

import torch
from torch import nn


# PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...)
def sinusoidal_pe(max_len, d_model):
    if not isinstance(d_model, int) or d_model < 1 or d_model & 1:
        raise ValueError("d_model has to be even and > 0 (got %r)" % (d_model,))
    if max_len < 1:
        raise ValueError("max_len has to be > 0 (got %r)" % (max_len,))
    n_pairs = d_model // 2
    inv_freq = torch.pow(10000.0, -torch.arange(n_pairs, dtype=torch.float64) * 2.0 / d_model)
    pos_idx = torch.arange(max_len, dtype=torch.float64)
    phase = torch.outer(pos_idx, inv_freq)
    # stack (sin, cos) on a new last axis and flatten: sin, cos, sin, cos ...
    pe_table = torch.stack((phase.sin(), phase.cos()), dim=-1).reshape(max_len, d_model)
    return pe_table.float()


# token embedding + position information
class TokenAndPosEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model, max_len, mode="sin"):
        super().__init__()
        makers = {"sin": self._make_sin, "learned": self._make_learned, "none": lambda: None}
        if mode not in makers:
            raise ValueError("mode must be sin, learned or none, not " + repr(mode))
        self.mode, self.d_model, self.max_len = mode, d_model, max_len
        self.tok = nn.Embedding(vocab_size, d_model)
        with torch.no_grad():
            self.tok.weight.normal_(0.0, 1.0 / math.sqrt(d_model))
        makers[mode]()

    def _make_sin(self):
        self.register_buffer("pe", sinusoidal_pe(self.max_len, self.d_model), persistent=False)

    def _make_learned(self):
        self.pos = nn.Embedding(self.max_len, self.d_model)

    def _pos_rows(self, seq_len, device):
        if seq_len > self.max_len:
            raise IndexError(f"got {seq_len} positions but max_len is {self.max_len}")
        if self.mode == "sin":
            return self.pe[:seq_len]
        return self.pos.weight[:seq_len]

    def forward(self, ids):
        tok_vec = self.tok(ids) * self.d_model ** 0.5
        if self.mode == "none":
            return tok_vec
        return tok_vec + self._pos_rows(ids.shape[-1], ids.device).unsqueeze(0)


class TinyLM(nn.Module):
    def __init__(self, vocab_size, d_model, tie=True):
        super().__init__()
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        self.emb = nn.Embedding(vocab_size, d_model)
        if tie:
            self.emb.weight = self.head.weight

    def forward(self, ids):
        h = self.emb(ids)
        return self.head(h)


# count each parameter once (tied weights!)
def count_params(model):
    by_id = {}
    for param in model.parameters():
        by_id.setdefault(id(param), param.numel())
    return int(sum(by_id.values()))


def equivariance_error(fn, x, perm):
    with torch.no_grad():
        lhs = fn(x).index_select(1, perm)
        rhs = fn(x.index_select(1, perm))
    return float(torch.max(torch.abs(lhs - rhs)))
