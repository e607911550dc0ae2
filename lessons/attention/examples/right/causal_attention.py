"""A right submission, written the way a student might (not the reference's code)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def causal_mask(T, device=None):
    if type(T) is not int or T < 1:
        raise ValueError(f"T must be a positive integer (got {T})")
    rows = torch.arange(T, device=device)
    return rows[None, :] > rows[:, None]


def scaled_dot_product_attention(q, k, v, mask=None):
    if q.size(-1) != k.size(-1):
        raise ValueError(f"d_k mismatch: q has {q.size(-1)} and k has {k.size(-1)}")
    scores = torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    weights = torch.nan_to_num(F.softmax(scores, dim=-1), nan=0.0)
    return torch.einsum("...qk,...kd->...qd", weights, v), weights


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        if n_heads < 1 or d_model % n_heads != 0:
            raise ValueError(f"n_heads={n_heads} does not divide d_model={d_model}")
        self.n_heads = n_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        B, T, C = x.shape
        h = self.n_heads

        def split(t):
            return t.reshape(B, T, h, C // h).permute(0, 2, 1, 3)

        out, _ = scaled_dot_product_attention(split(self.q_proj(x)), split(self.k_proj(x)),
                                              split(self.v_proj(x)), causal_mask(T, device=x.device))
        return self.out_proj(out.permute(0, 2, 1, 3).reshape(B, T, C))
