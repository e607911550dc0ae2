"""Scaled dot-product attention + causal mask — 실습 파일 / exercise file.

[한국어]
이 파일의 함수와 클래스를 구현하세요. 이름과 인자는 바꾸지 마세요(채점기가 이 이름으로 부릅니다).
각 본문의 `raise NotImplementedError(...)`를 지우고 코드를 채우면 됩니다.
아직 안 푼 항목은 "시도하지 않음"으로 처리됩니다. 개념 설명은 lesson_attention/NOTES.md에 있습니다.
마스크 규칙: bool 텐서에서 True는 "막힘"(그 key를 볼 수 없음)입니다(nn.MultiheadAttention의
attn_mask와 같은 뜻).

[English]
Implement the functions and the class below. Keep the names and arguments: the
grader calls them by name. Replace each `raise NotImplementedError(...)` with
your code; anything still raising counts as "not attempted".
lesson_attention/NOTES.md explains the ideas. The mask rule: in a bool mask, True
means "blocked" (the query may not look at that key), as in nn.MultiheadAttention's
attn_mask.
"""

from __future__ import annotations

import math  # noqa: F401  (you will need it: math.sqrt)

import torch
import torch.nn as nn


def causal_mask(T: int, device: torch.device | str | None = None) -> torch.Tensor:
    """인과(causal) 마스크 / the causal mask.

    [한국어]
    반환: bool 텐서, 모양 (T, T), `device` 위에. mask[i, j]는 j > i일 때 True(막힘),
    j <= i일 때 False입니다. 즉 위치 i는 자기 자신과 과거(0..i)만 봅니다.
    대각선(j == i)은 막으면 안 됩니다: 그러면 0번 위치는 볼 것이 하나도 없습니다.
    오류: T가 양의 정수가 아니면 ValueError(메시지에 T 값을 넣으세요).
    힌트: torch.triu(..., diagonal=1). float 마스크(0/-inf)가 아니라 bool을 반환하세요.

    [English]
    Returns a bool tensor of shape (T, T) on `device`: mask[i, j] is True
    (blocked) when j > i and False when j <= i, so position i sees itself and
    the past (0..i). Do not block the diagonal (j == i): position 0 would then
    see nothing at all. Raises ValueError, naming T, when T is not a positive int.
    Hint: torch.triu(..., diagonal=1). Return bool, not a float mask of 0/-inf.
    """
    raise NotImplementedError("causal_mask: True above the diagonal")


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """스케일드 닷프로덕트 어텐션 / scaled dot-product attention.

    [한국어]
    입력: q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v). 앞의 축(배치, 헤드)은 몇 개든 됩니다.
    mask: None, 또는 (..., T_q, T_k)로 브로드캐스트되는 bool 텐서(True = 막힘).
    반환: (output, weights)
        weights = softmax(q @ k^T / sqrt(d_k)), 마지막 축(key 축, dim=-1)에 대해. 모양 (..., T_q, T_k)
        output  = weights @ v, 모양 (..., T_q, d_v). dtype은 입력과 같게(float64면 float64).
    - sqrt(d_k)로 나누는 것을 잊지 마세요: 없으면 d_k가 클 때 softmax가 한 key에 몰립니다.
    - 막힌 칸은 softmax 전에 -inf로 채웁니다(masked_fill). 0으로 채우면 exp(0) = 1이라 막힌 칸의
      가중치가 0이 아니게 됩니다.
    - 한 행이 모두 막혔으면(볼 key가 없음) 그 행의 가중치와 출력은 0이어야 하고 NaN이면 안 됩니다.
      (모두 -inf인 행의 softmax는 NaN입니다.)
    오류: q와 k의 마지막 축 크기(d_k)가 다르면 ValueError(두 값을 메시지에).

    [English]
    Inputs: q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v), with any
    number of leading axes (batch, heads). mask: None or a bool tensor that
    broadcasts to (..., T_q, T_k), True = blocked.
    Returns (output, weights):
        weights = softmax(q @ k^T / sqrt(d_k)) over the last axis (the keys,
        dim=-1), shape (..., T_q, T_k); output = weights @ v, shape
        (..., T_q, d_v); the dtype of the inputs (float64 in, float64 out).
    - Divide by sqrt(d_k): without it, large d_k pushes softmax onto one key.
    - Fill blocked cells with -inf before the softmax (masked_fill). Filling
      with 0 gives exp(0) = 1: blocked keys would keep a nonzero weight.
    - A row with every key blocked has weights and output 0, never NaN (the
      softmax of a row of -inf is NaN).
    Raises ValueError, naming both sizes, when q and k differ in d_k.
    """
    raise NotImplementedError("scaled_dot_product_attention: softmax(q k^T / sqrt(d_k)) v")


class CausalSelfAttention(nn.Module):
    """인과 멀티헤드 셀프 어텐션 / causal multi-head self-attention.

    [한국어]
    - d_model이 n_heads로 나누어떨어지지 않으면(또는 0 이하이면) ValueError(두 값을 메시지에).
    - self.q_proj, self.k_proj, self.v_proj, self.out_proj: 모두 nn.Linear(d_model, d_model)(bias 있음).
    - forward(x): x (B, T, d_model) -> (B, T, d_model).
      1) q, k, v = q_proj(x), k_proj(x), v_proj(x)
      2) 헤드로 나누기: (B, T, d_model) -> view(B, T, n_heads, d_head) -> transpose(1, 2)
         -> (B, n_heads, T, d_head). 헤드 h는 열 h*d_head..(h+1)*d_head-1을 씁니다.
         view(B, n_heads, T, d_head)로 바로 바꾸면 모양은 맞지만 위치와 헤드가 섞입니다.
      3) scaled_dot_product_attention(q, k, v, causal_mask(T, device=x.device))
      4) 헤드 합치기: transpose(1, 2) -> reshape(B, T, d_model) -> out_proj
    - 위치 t의 출력은 위치 0..t의 입력에만 의존해야 합니다(미래를 보면 안 됩니다).

    [English]
    - ValueError, naming both values, when d_model is not a positive multiple
      of n_heads.
    - self.q_proj, self.k_proj, self.v_proj, self.out_proj: each
      nn.Linear(d_model, d_model), with bias.
    - forward(x): x (B, T, d_model) -> (B, T, d_model):
      1) q, k, v = q_proj(x), k_proj(x), v_proj(x)
      2) split the heads: view(B, T, n_heads, d_head).transpose(1, 2) ->
         (B, n_heads, T, d_head); head h uses columns h*d_head..(h+1)*d_head-1.
         view(B, n_heads, T, d_head) directly has the right shape but mixes
         positions and heads.
      3) scaled_dot_product_attention(q, k, v, causal_mask(T, device=x.device))
      4) merge the heads: transpose(1, 2).reshape(B, T, d_model), then out_proj.
    - The output at position t depends on inputs 0..t only (never the future).
    """

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        raise NotImplementedError("CausalSelfAttention.__init__: check sizes, make the four projections")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("CausalSelfAttention.forward: project, split heads, attend, merge")
