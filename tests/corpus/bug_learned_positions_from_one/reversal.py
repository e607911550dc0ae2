"""Reference solution: the sequence-reversal experiment (none / sin / learned)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch
import torch.nn as nn
from embedding import TokenAndPosEmbedding

MODEL_KEYS = ("vocab_size", "d_model", "max_len", "n_layers", "n_heads")


def make_batch(
    batch_size: int, length: int, vocab_size: int = 10,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random ids (B, T) int64 and their reversal as targets."""
    ids = torch.randint(0, vocab_size, (batch_size, length), generator=generator, dtype=torch.int64)
    return ids, ids.flip(1)


class ReversalModel(nn.Module):
    """TokenAndPosEmbedding -> TransformerEncoder (no mask) -> Linear."""

    def __init__(
        self, vocab_size: int = 10, d_model: int = 64, max_len: int = 16,
        mode: str = "sin", n_layers: int = 2, n_heads: int = 4,
    ) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.mode = mode
        self.emb = TokenAndPosEmbedding(vocab_size, d_model, max_len, mode)
        # dropout 0 keeps runs deterministic and short; 2*d_model FFN is plenty here.
        layer = nn.TransformerEncoderLayer(
            d_model, n_heads, dim_feedforward=2 * d_model, dropout=0.0, batch_first=True
        )
        # Nested tensors only matter with padding masks; turning them off avoids a warning.
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        # No mask: every position must see the whole input to reverse it.
        return self.head(self.encoder(self.emb(ids)))


def train_reversal(
    mode: str, seed: int = 0, steps: int = 300, *, length: int = 8,
    batch_size: int = 64, **hyper: Any,
) -> tuple[ReversalModel, list[float]]:
    """Train on fresh random batches each step; returns (model in eval mode, losses)."""
    lr = float(hyper.pop("lr", 1e-3))
    unknown = set(hyper) - set(MODEL_KEYS)
    if unknown:
        raise TypeError(f"unknown hyperparameters: {sorted(unknown)}")
    torch.manual_seed(seed)  # model init
    gen = torch.Generator().manual_seed(seed)  # data, independent of init order
    model = ReversalModel(mode=mode, **hyper)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    losses: list[float] = []
    model.train()
    for _ in range(steps):
        ids, targets = make_batch(batch_size, length, model.vocab_size, gen)
        logits = model(ids)
        loss = loss_fn(logits.reshape(-1, model.vocab_size), targets.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    return model, losses


def evaluate(model: nn.Module, length: int, n_samples: int = 1000, seed: int = 1234) -> float:
    """Token accuracy on n_samples fresh sequences (own generator: no training data reuse)."""
    gen = torch.Generator().manual_seed(seed)
    vocab_size = getattr(model, "vocab_size", 10)
    ids, targets = make_batch(n_samples, length, vocab_size, gen)
    device = next(model.parameters()).device
    model.eval()
    with torch.no_grad():
        pred = model(ids.to(device)).argmax(-1).cpu()
    return (pred == targets).float().mean().item()


def run_experiment(
    modes: Iterable[str] = ("none", "sin", "learned"), seeds: Iterable[int] = (0, 1, 2),
    steps: int = 300, train_length: int = 8, eval_lengths: Iterable[int] = (8, 12),
) -> list[dict[str, Any]]:
    """One row per (mode, seed): mode, seed, steps, final_train_loss, acc_by_length."""
    eval_lengths = tuple(eval_lengths)
    # learned/sin need a row for every evaluated position.
    max_len = max(16, train_length, *eval_lengths)
    rows: list[dict[str, Any]] = []
    for mode in modes:
        for seed in seeds:
            model, losses = train_reversal(mode, seed, steps, length=train_length, max_len=max_len)
            rows.append({
                "mode": mode,
                "seed": seed,
                "steps": steps,
                "final_train_loss": losses[-1],
                "acc_by_length": {n: evaluate(model, n) for n in eval_lengths},
            })
    return rows


if __name__ == "__main__":
    for row in run_experiment():
        print(row)
