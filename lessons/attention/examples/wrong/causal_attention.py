"""A wrong submission with the lesson's three classic mistakes, one per graded unit:
the diagonal masked (off by one), no 1/sqrt(d_k) scale, and forward attending to the future."""

import torch
import torch.nn as nn


def causal_mask(T, device=None):
    if T <= 0:
        raise ValueError(f"T must be positive, got {T}")
    return torch.triu(torch.ones(T, T, dtype=torch.bool, device=device))  # diagonal=0: blocks itself too


def scaled_dot_product_attention(q, k, v, mask=None):
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q has d_k={q.shape[-1]} but k has {k.shape[-1]}")
    scores = q @ k.transpose(-2, -1)  # forgot / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
    return weights @ v, weights


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"{d_model} is not divisible by {n_heads}")
        self.h = n_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        B, T, C = x.shape
        dh = C // self.h
        q, k, v = (p(x).view(B, T, self.h, dh).transpose(1, 2) for p in (self.q_proj, self.k_proj, self.v_proj))
        weights = torch.softmax(q @ k.transpose(-2, -1) / dh**0.5, dim=-1)  # no causal mask
        return self.out_proj((weights @ v).transpose(1, 2).reshape(B, T, C))
