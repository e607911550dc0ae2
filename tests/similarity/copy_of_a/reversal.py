"""My solution: can a Transformer reverse a list without knowing positions?"""
import torch
from torch import nn

from embedding import TokenAndPosEmbedding

OK_KEYS = {"lr", "vocab_size", "d_model", "max_len", "n_layers", "n_heads"}


# random sequences and their reversal
def make_batch(batch_size, length, vocab_size=10, generator=None):
    seq = torch.randint(vocab_size, size=(batch_size, length), generator=generator)
    return seq.long(), torch.flip(seq, dims=[1]).long()


class ReversalModel(nn.Module):
    def __init__(self, vocab_size=10, d_model=64, max_len=16, mode="sin", n_layers=2, n_heads=4):
        super().__init__()
        self.vocab_size = vocab_size
        self.emb = TokenAndPosEmbedding(vocab_size, d_model, max_len, mode=mode)
        enc_layer = nn.TransformerEncoderLayer(d_model=d_model, nhead=n_heads, dim_feedforward=4 * d_model,
                                           dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(enc_layer, num_layers=n_layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, ids):
        h = self.emb(ids)
        h = self.encoder(h)
        return self.head(h)


# training loop: zero_grad -> forward -> loss -> backward -> step
def train_reversal(mode, seed=0, steps=300, *, length=8, batch_size=64, **hyper):
    extra = sorted(set(hyper) - OK_KEYS)
    if extra:
        raise TypeError("unexpected options: " + ", ".join(extra))
    cfg = dict(hyper)
    learning_rate = cfg.pop("lr", 1e-3)
    torch.manual_seed(seed)
    model = ReversalModel(mode=mode, **cfg)
    gen = torch.Generator()
    gen.manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=learning_rate)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    model.train()
    i = 0
    while i < steps:
        x, y = make_batch(batch_size, length, model.vocab_size, generator=gen)
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        loss = loss_fn(logits.flatten(0, 1), y.flatten())
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        i += 1
    return model.eval(), losses


@torch.no_grad()
# accuracy on new random data
def evaluate(model, length, n_samples=1000, seed=1234):
    model.eval()
    g = torch.Generator().manual_seed(seed)
    v = getattr(model, "vocab_size", 10)
    x, y = make_batch(n_samples, length, v, generator=g)
    dev = next(model.parameters()).device
    pred = model(x.to(dev)).argmax(dim=-1).cpu()
    return pred.eq(y).double().mean().item()


def run_experiment(modes=("none", "sin", "learned"), seeds=(0, 1, 2), steps=300, train_length=8,
                   eval_lengths=(8, 12)):
    lens = list(eval_lengths)
    max_L = max([16, train_length] + lens)
    rows = []
    for m in modes:
        for s in seeds:
            model, losses = train_reversal(m, seed=s, steps=steps, length=train_length, max_len=max_L)
            accs = {}
            for n in lens:
                accs[n] = evaluate(model, n)
            rows.append(dict(mode=m, seed=s, steps=steps, final_train_loss=losses[-1],
                              acc_by_length=accs))
    return rows


if __name__ == "__main__":
    for row in run_experiment(seeds=(0,)):
        print(row)
