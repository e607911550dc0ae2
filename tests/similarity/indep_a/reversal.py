"""Student A: can a Transformer reverse a list without knowing positions?"""
import torch
from torch import nn

from embedding import TokenAndPosEmbedding

ALLOWED = {"lr", "vocab_size", "d_model", "max_len", "n_layers", "n_heads"}


def make_batch(batch_size, length, vocab_size=10, generator=None):
    tokens = torch.randint(vocab_size, size=(batch_size, length), generator=generator)
    return tokens.long(), torch.flip(tokens, dims=[1]).long()


class ReversalModel(nn.Module):
    def __init__(self, vocab_size=10, d_model=64, max_len=16, mode="sin", n_layers=2, n_heads=4):
        super().__init__()
        self.vocab_size = vocab_size
        self.emb = TokenAndPosEmbedding(vocab_size, d_model, max_len, mode=mode)
        block = nn.TransformerEncoderLayer(d_model=d_model, nhead=n_heads, dim_feedforward=4 * d_model,
                                           dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(block, num_layers=n_layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, ids):
        h = self.emb(ids)
        h = self.encoder(h)
        return self.head(h)


def train_reversal(mode, seed=0, steps=300, *, length=8, batch_size=64, **hyper):
    bad = sorted(set(hyper) - ALLOWED)
    if bad:
        raise TypeError("unexpected options: " + ", ".join(bad))
    settings = dict(hyper)
    rate = settings.pop("lr", 1e-3)
    torch.manual_seed(seed)
    net = ReversalModel(mode=mode, **settings)
    data_rng = torch.Generator()
    data_rng.manual_seed(seed)
    optimiser = torch.optim.Adam(net.parameters(), lr=rate)
    criterion = nn.CrossEntropyLoss()
    history = []
    net.train()
    step = 0
    while step < steps:
        x, y = make_batch(batch_size, length, net.vocab_size, generator=data_rng)
        optimiser.zero_grad(set_to_none=True)
        out = net(x)
        loss = criterion(out.flatten(0, 1), y.flatten())
        loss.backward()
        optimiser.step()
        history.append(float(loss.detach()))
        step += 1
    return net.eval(), history


@torch.no_grad()
def evaluate(model, length, n_samples=1000, seed=1234):
    model.eval()
    rng = torch.Generator().manual_seed(seed)
    vocab = getattr(model, "vocab_size", 10)
    x, y = make_batch(n_samples, length, vocab, generator=rng)
    where = next(model.parameters()).device
    guesses = model(x.to(where)).argmax(dim=-1).cpu()
    return guesses.eq(y).double().mean().item()


def run_experiment(modes=("none", "sin", "learned"), seeds=(0, 1, 2), steps=300, train_length=8,
                   eval_lengths=(8, 12)):
    lengths = list(eval_lengths)
    longest = max([16, train_length] + lengths)
    table = []
    for m in modes:
        for s in seeds:
            net, history = train_reversal(m, seed=s, steps=steps, length=train_length, max_len=longest)
            accuracy = {}
            for n in lengths:
                accuracy[n] = evaluate(net, n)
            table.append(dict(mode=m, seed=s, steps=steps, final_train_loss=history[-1],
                              acc_by_length=accuracy))
    return table


if __name__ == "__main__":
    for row in run_experiment(seeds=(0,)):
        print(row)
