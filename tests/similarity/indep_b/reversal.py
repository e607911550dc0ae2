# Student B -- the reversal experiment.
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from embedding import TokenAndPosEmbedding


def make_batch(batch_size: int, length: int, vocab_size: int = 10, generator=None):
    src = torch.randint(low=0, high=vocab_size, size=(batch_size, length), generator=generator,
                        dtype=torch.long)
    tgt = src[:, torch.arange(length - 1, -1, -1)]
    return src, tgt


class ReversalModel(nn.Module):
    def __init__(self, vocab_size: int = 10, d_model: int = 64, max_len: int = 16, mode: str = "sin",
                 n_layers: int = 2, n_heads: int = 4) -> None:
        super().__init__()
        self.emb = TokenAndPosEmbedding(vocab_size, d_model, max_len, mode)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(d_model, n_heads, d_model * 2, 0.0, batch_first=True),
            n_layers, enable_nested_tensor=False,
        )
        self.head = nn.Linear(d_model, vocab_size)
        self.vocab_size = vocab_size

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(self.emb(ids), mask=None))


def train_reversal(mode, seed=0, steps=300, *, length=8, batch_size=64, **hyper):
    lr = hyper.pop("lr", 0.001)
    for key in hyper:
        if key not in ("vocab_size", "d_model", "max_len", "n_layers", "n_heads"):
            raise TypeError(f"train_reversal() got an unexpected keyword argument {key!r}")
    torch.manual_seed(seed)
    model = ReversalModel(mode=mode, **hyper)
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr)
    curve = []
    model.train()
    for _step in range(steps):
        src, tgt = make_batch(batch_size, length, model.vocab_size, g)
        logits = model(src)
        loss = F.cross_entropy(logits.transpose(1, 2), tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        curve.append(loss.item())
    model.eval()
    return model, curve


def evaluate(model, length, n_samples=1000, seed=1234):
    g = torch.Generator().manual_seed(seed)
    src, tgt = make_batch(n_samples, length, getattr(model, "vocab_size", 10), g)
    dev = next(model.parameters()).device
    model.eval()
    with torch.no_grad():
        right = (model(src.to(dev)).argmax(-1).cpu() == tgt).sum().item()
    return right / tgt.numel()


def run_experiment(modes=("none", "sin", "learned"), seeds=(0, 1, 2), steps=300, train_length=8,
                   eval_lengths=(8, 12)):
    eval_lengths = tuple(eval_lengths)
    cap = max((16, train_length) + eval_lengths)
    results = []
    for mode in modes:
        for seed in seeds:
            model, curve = train_reversal(mode, seed, steps, length=train_length, max_len=cap)
            results.append({"mode": mode, "seed": seed, "steps": steps, "final_train_loss": curve[-1],
                            "acc_by_length": {L: evaluate(model, L) for L in eval_lengths}})
    return results
