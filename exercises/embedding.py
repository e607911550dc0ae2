"""Embedding + Positional Encoding — 실습 파일 / exercise file.

[한국어]
이 파일의 함수와 클래스를 구현하세요. 이름과 인자는 바꾸지 마세요(채점기가 이 이름으로 부릅니다).
각 본문의 `raise NotImplementedError(...)`를 지우고 코드를 채우면 됩니다.
아직 안 푼 항목은 "시도하지 않음"으로 처리됩니다.
채점: 저장소 루트에서 `grade`를 실행하면 ./exercises를 공개 테스트로 채점합니다.
숨은 테스트는 제출할 때 실행됩니다.

[English]
Implement the functions and classes below. Keep the names and arguments: the
grader calls them by name. Replace each `raise NotImplementedError(...)` with
your code; anything still raising counts as "not attempted".
Grading: run `grade` from the repository root to grade ./exercises with the
public tests; the hidden tests run when you submit.
"""
from __future__ import annotations

import math  # noqa: F401  (you will need it: math.sqrt, math.log)
from collections.abc import Callable

import torch
import torch.nn as nn


def sinusoidal_pe(max_len: int, d_model: int) -> torch.Tensor:
    """사인파 위치 인코딩 표 / the fixed sinusoidal positional-encoding table.

    [한국어]
    반환: float32 텐서, 모양 (max_len, d_model).
        PE[p, 2i]   = sin(p / 10000**(2i / d_model))
        PE[p, 2i+1] = cos(p / 10000**(2i / d_model))
    sin과 cos는 열이 번갈아(짝수 열 sin, 홀수 열 cos) 들어갑니다. 앞 절반 sin,
    뒤 절반 cos로 이어 붙이면(concat) 틀립니다.
    오류: d_model이 홀수이거나 0 이하, 또는 max_len이 0 이하이면 ValueError.
    메시지에 잘못된 값을 넣으세요. d_model이 짝수여야 하는 이유: sin/cos가
    같은 주파수 2i를 한 쌍으로 쓰므로 열 개수가 짝이 맞아야 합니다.
    힌트: float64로 계산한 뒤 마지막에 float32로 바꾸면 큰 p에서도 정확합니다.

    [English]
    Returns a float32 tensor of shape (max_len, d_model) with the formula above:
    sin and cos interleaved (even columns sin, odd columns cos), not
    concatenated. Raises ValueError, naming the bad value, when d_model is odd
    or not positive, or max_len is not positive. d_model must be even because
    each frequency 2i fills one sin column and one cos column.
    Hint: compute in float64 and cast to float32 at the end.
    """
    raise NotImplementedError("sinusoidal_pe: build the interleaved sin/cos table")


class TokenAndPosEmbedding(nn.Module):
    """토큰 임베딩 + 위치 정보 / token embedding plus position information.

    [한국어]
    mode: "sin"(고정 사인 표), "learned"(학습형 위치 표), "none"(위치 없음).
    그 밖의 값은 ValueError.
    - self.tok = nn.Embedding(vocab_size, d_model)
    - "sin": self.register_buffer("pe", sinusoidal_pe(max_len, d_model)).
      그냥 속성(self.pe = ...)으로 두면 .to("cuda") 때 함께 옮겨지지 않아
      device 오류가 납니다. nn.Parameter로 두면 학습되어 버립니다.
    - "learned": self.pos = nn.Embedding(max_len, d_model).
    - "none": 둘 다 없음.
    - self.d_model, self.max_len, self.mode를 저장하세요.
    forward(ids): ids는 (B, T) int64, 반환은 (B, T, d_model).
        tok(ids) * sqrt(d_model) + 위치 0..T-1의 행.
        위치 번호는 ids.device 위에 만드세요(torch.arange(T, device=ids.device)).
        "sin"/"learned"에서 T > max_len이면 두 숫자(T와 max_len)를 모두 담은
        IndexError를 직접 raise하세요. pe[:T]는 조용히 잘리므로 검사가
        필요합니다. T == max_len은 정상, "none"은 길이 제한이 없습니다.
    초기화 힌트: 논문처럼 nn.init.normal_(self.tok.weight, std=d_model**-0.5)를
        쓰세요. 기본 초기화(표준편차 1)에 sqrt(d_model)을 곱하면 d_model 64에서
        토큰 벡터가 사인 행보다 약 8배 커져, 뒤집기 실험에서 "sin"이 약 2,100 스텝
        동안 bag-of-tokens 상한(T=8에서 약 0.317; 수업의 10% 예상이 아님)에
        머뭅니다.

    [English]
    mode is "sin", "learned" or "none"; anything else raises ValueError.
    "sin" registers the table as a buffer named `pe` (a plain attribute does not
    follow .to("cuda") and fails with a device error; a Parameter would be
    trained). "learned" uses self.pos = nn.Embedding(max_len, d_model).
    forward(ids: (B, T) int64) -> (B, T, d_model) float:
    tok(ids) * sqrt(d_model) + position rows 0..T-1, positions made on
    ids.device. In "sin"/"learned", T > max_len raises IndexError whose message
    contains both T and max_len; T == max_len works; "none" takes any length.
    The module must still work after .to(device) and .double() (float64 out).
    Init hint: use the paper's init, std d_model**-0.5. The default std-1 init
    times sqrt(d_model) makes token vectors ~8x larger than the sin rows at
    d_model 64, so "sin" sits on the bag-of-tokens bound (~0.317 at T=8, not the
    lesson's 10% guess) for ~2,100 reversal steps.
    """

    def __init__(self, vocab_size: int, d_model: int, max_len: int, mode: str = "sin") -> None:
        super().__init__()
        raise NotImplementedError("TokenAndPosEmbedding: create tok and pe / pos for the mode")

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("TokenAndPosEmbedding: tok(ids) * sqrt(d_model) + positions")


class TinyLM(nn.Module):
    """임베딩 -> 출력층, weight tying / embedding -> output head with weight tying.

    [한국어]
    self.emb = nn.Embedding(vocab_size, d_model)
    self.head = nn.Linear(d_model, vocab_size, bias=False)  # weight 모양 (vocab_size, d_model)
    tie=True이면 self.head.weight = self.emb.weight처럼 Parameter 객체 자체를
    대입하세요. .data 복사나 clone()은 값만 같은 별개의 텐서라 tying이 아닙니다
    (둘이 따로 학습되고 파라미터 수도 줄지 않음).
    forward(ids: (B, T) int64) -> 로짓 (B, T, vocab_size) = head(emb(ids)).

    [English]
    tie=True: head.weight must *be* emb.weight, the same Parameter object
    (assign it); copying .data or clone() only copies values and is not tying.
    forward(ids: (B, T) int64) returns logits (B, T, vocab_size) = head(emb(ids)).
    """

    def __init__(self, vocab_size: int, d_model: int, tie: bool = True) -> None:
        super().__init__()
        raise NotImplementedError("weight_tying: build emb and head, share the Parameter when tie=True")

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("weight_tying: return head(emb(ids))")


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
    fn(x)[:, perm]과 fn(x[:, perm])의 최대 절대 차이를 파이썬 float로 반환.
    출력도 perm으로 섞어야 비교가 맞습니다. torch.no_grad() 안에서 계산하세요.
    위치 없는 어텐션은 약 0, 위치를 더하면 0에서 멀어집니다.

    [English]
    Returns max |fn(x)[:, perm] - fn(x[:, perm])| as a Python float (permute
    the output too before comparing); compute under torch.no_grad(). About 0
    for attention without positions, far from 0 once positions are added.
    """
    raise NotImplementedError("equivariance: compare fn(x)[:, perm] with fn(x[:, perm])")
