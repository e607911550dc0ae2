"""Embedding + Positional Encoding — 실습 파일 / exercise file.

[한국어]
이 파일의 함수와 클래스를 구현하세요. 이름과 인자는 바꾸지 마세요(채점기가 이 이름으로 부릅니다).
각 본문의 `raise NotImplementedError(...)`를 지우고 코드를 채우면 됩니다.
아직 안 푼 항목은 "시도하지 않음"으로 처리됩니다.
채점: 저장소 루트에서 `grade` 를 실행하면 ./exercises 를 공개 테스트로 채점합니다.
(강사용: `grade 경로 --hidden` 은 숨은 테스트까지 채점합니다.)

[English]
Implement the functions and classes below. Keep the names and arguments: the
grader calls them by name. Replace each `raise NotImplementedError(...)` with
your code; anything still raising counts as "not attempted".
Grading: run `grade` from the repository root to grade ./exercises with the
public tests (instructors: `grade PATH --hidden` adds the hidden tests).
"""
from __future__ import annotations

import math  # noqa: F401  (you will need it: math.sqrt, math.log)
from collections.abc import Callable

import math
import torch
import torch.nn as nn


def sinusoidal_pe(max_len, d_model):
    pe = torch.zeros(max_len, d_model)
    pos = torch.arange(max_len).unsqueeze(1).float()
    div = torch.exp(torch.arange(0, d_model, 2).float()
                    * (-math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    return pe


class TokenAndPosEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model, max_len, mode="sin"):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model
        self.mode = mode
        if mode == "sin":
            self.register_buffer("pe", sinusoidal_pe(max_len, d_model))
        elif mode == "learned":
            self.pos = nn.Embedding(max_len, d_model)
        elif mode == "none":
            pass

    def forward(self, ids):
        T = ids.size(1)
        x = self.tok(ids) * math.sqrt(self.d_model)
        if self.mode == "sin":
            x = x + self.pe[:T]
        elif self.mode == "learned":
            x = x + self.pos(torch.arange(T, device=ids.device))
        return x


class TinyLM(nn.Module):
    def __init__(self, vocab_size, d_model, tie=True):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        if tie:
            self.head.weight = self.emb.weight


def count_params(model: nn.Module) -> int:
    """서로 다른 파라미터의 원소 수 합 / number of scalars in distinct parameters.

    [한국어]
    공유된(tied) 파라미터는 한 번만 셉니다. TinyLM(1000, 64, tie=True) -> 64000,
    tie=False -> 128000. 반환은 파이썬 int.

    [English]
    A shared (tied) parameter counts once: TinyLM(1000, 64, tie=True) -> 64000,
    untied -> 128000. Returns a Python int.
    """
    raise NotImplementedError("weight_tying: count each distinct parameter once")


def equivariance_error(
    fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, perm: torch.Tensor
) -> float:
    """순열 동변성 오차 / permutation-equivariance error.

    [한국어]
    fn: (B, T, d) -> (B, T, d). x: (B, T, d). perm: 길이 T의 순열(int64).
    fn(x)[:, perm] 와 fn(x[:, perm]) 의 최대 절대 차이를 파이썬 float로 반환.
    출력도 perm으로 섞어야 비교가 맞습니다. torch.no_grad() 안에서 계산하세요.
    위치 없는 어텐션은 약 0, 위치를 더하면 0에서 멀어집니다.

    [English]
    Returns max |fn(x)[:, perm] - fn(x[:, perm])| as a Python float (permute
    the output too before comparing); compute under torch.no_grad(). About 0
    for attention without positions, far from 0 once positions are added.
    """
    raise NotImplementedError("equivariance: compare fn(x)[:, perm] with fn(x[:, perm])")


if __name__ == "__main__":
    pe = sinusoidal_pe(16, 8)
    print(pe.shape)
