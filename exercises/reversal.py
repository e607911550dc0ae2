"""순서 뒤집기 실험 / the sequence-reversal experiment.

[한국어]
위치 정보가 없으면("none") 순서 뒤집기를 풀 수 있을까요? embedding.py의
TokenAndPosEmbedding 위에 Transformer 인코더를 올려 "none", "sin", "learned"
세 모드를 같은 시드로 비교합니다. 아래 이름과 인자는 바꾸지 마세요.
"none"이 멈추는 값은 수업의 10% 예상이 아니라 bag-of-tokens 상한입니다: 모델은
자기 토큰과, 어떤 토큰이 몇 번 나왔는지(multiset)만 알기 때문에 나머지 T-1개 중
가장 많이 나온 토큰을 고르는 것이 최선이며, vocab 10에서 T=8은 약 0.317, T=12는
약 0.266입니다.
채점: 저장소 루트에서 `grade`를 실행하면 ./exercises를 공개 테스트로 채점합니다.
숨은 테스트는 제출할 때 실행됩니다.

[English]
Can a Transformer reverse a sequence without positions? Compare "none", "sin"
and "learned" with the same seeds. Keep the names below. "none" stops at the
bag-of-tokens bound, not at the lesson's 10% guess: it knows its own token and
the multiset of all tokens, so its best guess is the most common of the other
T-1 tokens (about 0.317 at T=8 and 0.266 at T=12 with vocab 10).
Grading: run `grade` from the repository root (public tests on ./exercises);
the hidden tests run when you submit.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch
import torch.nn as nn
from embedding import TokenAndPosEmbedding  # noqa: F401  (used by ReversalModel)


def make_batch(
    batch_size: int, length: int, vocab_size: int = 10,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """랜덤 배치 / one random batch.

    [한국어]
    ids: int64 (batch_size, length), 값은 [0, vocab_size) 균등. generator가
    주어지면 torch.randint(..., generator=generator)로 그것을 쓰세요.
    targets = ids.flip(1) (뒤집은 순서). 반환 (ids, targets).

    [English]
    ids: int64 (batch_size, length), uniform in [0, vocab_size), drawn with
    `generator` when given; targets = ids.flip(1). Returns (ids, targets).
    """
    raise NotImplementedError("reversal_experiment: make_batch")


class ReversalModel(nn.Module):
    """TokenAndPosEmbedding -> nn.TransformerEncoder -> nn.Linear.

    [한국어]
    self.emb = TokenAndPosEmbedding(vocab_size, d_model, max_len, mode)
    self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model,
        n_heads, batch_first=True, dropout=0.0, ...), n_layers)
    self.head = nn.Linear(d_model, vocab_size); self.vocab_size도 저장하세요.
    forward(ids: (B, T) int64) -> (B, T, vocab_size) 로짓. 마스크는 쓰지
    마세요(causal mask를 쓰면 앞 위치가 뒤 토큰을 못 봐서 뒤집기를 못 합니다).

    [English]
    Store self.emb, self.encoder, self.head and self.vocab_size. forward(ids:
    (B, T) int64) returns logits (B, T, vocab_size). Use batch_first=True and
    no mask: with a causal mask early positions cannot see the tokens they
    must output.
    """

    def __init__(
        self, vocab_size: int = 10, d_model: int = 64, max_len: int = 16,
        mode: str = "sin", n_layers: int = 2, n_heads: int = 4,
    ) -> None:
        super().__init__()
        raise NotImplementedError("reversal_experiment: build emb, encoder, head")

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("reversal_experiment: head(encoder(emb(ids)))")


def train_reversal(
    mode: str, seed: int = 0, steps: int = 300, *, length: int = 8,
    batch_size: int = 64, **hyper: Any,
) -> tuple[ReversalModel, list[float]]:
    """학습 / training.

    [한국어]
    torch.manual_seed(seed)로 모델 초기화를, torch.Generator().manual_seed(seed)로
    데이터를 고정하세요(같은 seed -> 같은 losses). 매 스텝 make_batch로 새 배치를
    만들고 CrossEntropyLoss, Adam(lr 기본 1e-3)으로 정확히 `steps`번
    학습합니다. hyper로 lr, d_model, n_layers, n_heads, max_len, vocab_size를
    바꿀 수 있습니다. 반환: (eval 모드의 모델, 스텝마다의 손실 float 리스트).
    힌트: 논문 초기화(std d_model**-0.5)면 sin/learned가 수백 스텝 안에 거의
    100%가 됩니다. 기본 초기화면 sin이 약 2,100 스텝 동안 0.317 근처에 머뭅니다.

    [English]
    Seed the model init with torch.manual_seed(seed) and the data with a
    torch.Generator seeded with `seed`: the same seed gives the same losses.
    Train exactly `steps` steps on fresh batches (CrossEntropyLoss, Adam, lr
    1e-3 by default; hyper may set lr, d_model, n_layers, n_heads, max_len,
    vocab_size). Returns (model in eval mode, list of one float loss per step).
    """
    raise NotImplementedError("reversal_experiment: train_reversal")


def evaluate(model: nn.Module, length: int, n_samples: int = 1000, seed: int = 1234) -> float:
    """검증 정확도 / token accuracy on fresh sequences.

    [한국어]
    seed로 만든 별도 generator로 n_samples개의 새 시퀀스(길이 length)를 만들어
    model.eval(), torch.no_grad() 아래에서 토큰 단위 정확도(0~1 float)를 잽니다.

    [English]
    Draw n_samples fresh sequences of `length` from a generator seeded with
    `seed`; return token accuracy (float in [0, 1]) under model.eval() and
    torch.no_grad().
    """
    raise NotImplementedError("reversal_experiment: evaluate")


def run_experiment(
    modes: Iterable[str] = ("none", "sin", "learned"), seeds: Iterable[int] = (0, 1, 2),
    steps: int = 300, train_length: int = 8, eval_lengths: Iterable[int] = (8, 12),
) -> list[dict[str, Any]]:
    """전체 실험 / the whole experiment.

    [한국어]
    (mode, seed)마다 길이 train_length로 학습하고 eval_lengths의 각 길이로
    평가합니다. 행: {"mode", "seed", "steps", "final_train_loss",
    "acc_by_length": {길이: 정확도}}. max_len은 max(eval_lengths) 이상으로 잡아야
    길이 12 평가에서 IndexError가 나지 않습니다.

    [English]
    One row per (mode, seed): mode, seed, steps, final_train_loss and
    acc_by_length {length: accuracy}. Make max_len >= max(eval_lengths).
    """
    raise NotImplementedError("reversal_experiment: run_experiment")
