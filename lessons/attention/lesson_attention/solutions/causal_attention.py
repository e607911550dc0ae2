"""Scaled dot-product attention with a causal mask: reference solution.

The contract (lesson_attention/NOTES.md, exercises/causal_attention.py): a mask is a bool tensor where True
means "blocked" (a query may not look at that key), as in ``nn.MultiheadAttention``'s ``attn_mask``.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn


def causal_mask(T: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(T, T) bool, True above the diagonal: position t may look at 0..t, never at t+1..T-1."""
    if not isinstance(T, int) or T <= 0:
        raise ValueError(f"causal_mask: T must be a positive int, got {T!r}")
    return torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(q k^T / sqrt(d_k)) v over the last two axes; returns (output, weights)."""
    d_k = q.shape[-1]
    if k.shape[-1] != d_k:
        raise ValueError(f"q and k must share d_k: q has {d_k}, k has {k.shape[-1]}")
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        # A query whose keys are all blocked: softmax of all -inf is NaN; it attends to nothing instead.
        weights = weights.masked_fill(mask, 0.0)
    return weights @ v, weights


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention in which position t sees positions 0..t only."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        if n_heads <= 0 or d_model <= 0 or d_model % n_heads:
            raise ValueError(f"d_model ({d_model}) must be a positive multiple of n_heads ({n_heads})")
        self.d_model, self.n_heads = d_model, n_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        """(B, T, d_model) -> (B, n_heads, T, d_head): head h holds columns h*d_head..(h+1)*d_head-1."""
        B, T, _ = x.shape
        return x.view(B, T, self.n_heads, self.d_model // self.n_heads).transpose(1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, _ = x.shape
        q, k, v = self._split(self.q_proj(x)), self._split(self.k_proj(x)), self._split(self.v_proj(x))
        out, _ = scaled_dot_product_attention(q, k, v, causal_mask(T, device=x.device))
        return self.out_proj(out.transpose(1, 2).reshape(B, T, self.d_model))
