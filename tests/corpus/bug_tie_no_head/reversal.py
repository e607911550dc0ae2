"""Reversal experiment (sample submission)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from embedding import TokenAndPosEmbedding


def make_batch(batch_size, length, vocab_size=10, generator=None):
    ids = torch.randint(vocab_size, (batch_size, length), generator=generator)
    return ids, torch.flip(ids, dims=[1])


class ReversalModel(nn.Module):
    def __init__(self, vocab_size=10, d_model=64, max_len=16, mode="sin", n_layers=2, n_heads=4):
        super().__init__()
        self.vocab_size = vocab_size
        self.emb = TokenAndPosEmbedding(vocab_size, d_model, max_len, mode)
        block = nn.TransformerEncoderLayer(d_model, n_heads, dim_feedforward=4 * d_model,
                                           dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(block, n_layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, ids):
        return self.head(self.encoder(self.emb(ids)))


def train_reversal(mode, seed=0, steps=300, *, length=8, batch_size=64, **hyper):
    lr = hyper.pop("lr", 1e-3)
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    model = ReversalModel(mode=mode, **hyper)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for step in range(steps):
        ids, tgt = make_batch(batch_size, length, model.vocab_size, g)
        logits = model(ids)
        loss = F.cross_entropy(logits.flatten(0, 1), tgt.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return model.eval(), losses


@torch.no_grad()
def evaluate(model, length, n_samples=1000, seed=1234):
    model.eval()
    g = torch.Generator().manual_seed(seed)
    ids, tgt = make_batch(n_samples, length, model.vocab_size, g)
    correct = (model(ids).argmax(dim=-1) == tgt).sum().item()
    return correct / tgt.numel()


def run_experiment(modes=("none", "sin", "learned"), seeds=(0, 1, 2), steps=300,
                   train_length=8, eval_lengths=(8, 12)):
    results = []
    for mode in modes:
        for seed in seeds:
            model, losses = train_reversal(mode, seed, steps, length=train_length,
                                           max_len=max(16, *eval_lengths))
            accs = {L: evaluate(model, L) for L in eval_lengths}
            results.append(dict(mode=mode, seed=seed, steps=steps,
                                final_train_loss=losses[-1], acc_by_length=accs))
    return results
