"""The mistakes students make in this lesson, computed, so a wrong answer gets its likely cause.

Each function rebuilds the right answer and every known wrong one from the same inputs (float64, in
the grader process), and names the first wrong one the student's answer matches: a cause is a key
(stable, for the report's cards and the tests) with a text in English and Korean. The texts say what
the report's picture shows (lesson_attention/report.py), like the kit's own table causes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypedDict

import torch

Cause = tuple[str, str, str]  # (key, en, ko)


class AttentionMistake(TypedDict, total=False):
    """The keywords of ``attention`` that make one of its wrong twins (each left out is right)."""

    scale: str
    dim: int
    fill: str
    invert: bool
    swap_qk: bool
    empty: str
    zero_after: bool


class ModuleMistake(TypedDict, total=False):
    """The keywords of ``self_attention`` that make one of its wrong twins (each left out is right)."""

    mask: str
    scale: str
    split: str
    merge: str
    out_proj: bool
    empty: str


# -- the formula and its wrong twins ------------------------------------------------------------------


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None, *,
              scale: str = "sqrt", dim: int = -1, fill: str = "-inf", invert: bool = False,
              swap_qk: bool = False, empty: str = "zero",
              zero_after: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(q k^T / sqrt(d_k)) v in float64, or one of its known mistakes.

    ``scale``: "sqrt" (right), "none", "d". ``dim``: the softmax axis (-1 right, -2 over queries).
    ``fill``: "-inf" (right), "zero" (masked_fill with 0), "ignore" (no mask), "after" (the softmax of the
    unmasked scores, blocked weights set to 0 afterwards). ``zero_after``: blocked weights also set to 0
    after the softmax (a student's second masked_fill). ``invert``: the mask
    applied as ~mask. ``swap_qk``: k q^T. ``empty``: a row with every key blocked gives "zero"
    weights (right), "nan" (the bare softmax of -inf) or "uniform" (a large negative fill).
    """
    q, k, v = q.double(), k.double(), v.double()
    d_k = q.shape[-1]
    scores = (k @ q.transpose(-2, -1)) if swap_qk else (q @ k.transpose(-2, -1))
    scores = scores / {"sqrt": math.sqrt(d_k), "none": 1.0, "d": float(d_k)}[scale]
    blocked = None
    if mask is not None and fill != "ignore":
        blocked = (~mask if invert else mask).expand_as(scores)
    if blocked is not None and fill != "after":
        value = 0.0 if fill == "zero" else (-1e9 if empty == "uniform" else float("-inf"))
        scores = scores.masked_fill(blocked, value)
    weights = torch.softmax(scores, dim=dim)
    if blocked is not None and ((fill == "-inf" and empty == "zero") or fill == "after" or zero_after):
        weights = weights.masked_fill(blocked, 0.0)
    return weights @ v, weights


def close(found: torch.Tensor, expected: torch.Tensor, atol: float) -> bool:
    """Equal within ``atol`` where both are finite, and NaN/inf in the same cells."""
    if found.shape != expected.shape:
        return False
    f, e = found.double(), expected.double()
    both = torch.isfinite(f) & torch.isfinite(e)
    if not torch.equal(torch.isfinite(f), torch.isfinite(e)):
        return False
    return bool(((f - e).abs()[both] <= atol).all()) if bool(both.any()) else True


# -- scaled_dot_product_attention ----------------------------------------------------------------------

WEIGHT_CAUSES: dict[str, tuple[AttentionMistake, str, str]] = {
    "no_scale": (
        {"scale": "none"},
        "the weights are softmax(q k^T) without the 1/sqrt(d_k) scale: in the picture your rows are "
        "sharper than the right ones (one key takes almost all the weight). Divide the scores by "
        "math.sqrt(d_k) before the softmax.",
        "가중치가 1/sqrt(d_k) 스케일 없이 softmax(q k^T)로 계산되었습니다: 그림에서 내 행이 정답보다 "
        "뾰족합니다(한 key가 거의 모든 가중치를 가짐). softmax 전에 점수를 math.sqrt(d_k)로 나누세요.",
    ),
    "scale_d": (
        {"scale": "d"},
        "the scores are divided by d_k instead of sqrt(d_k): in the picture your rows are flatter than "
        "the right ones. Use math.sqrt(d_k).",
        "점수를 sqrt(d_k)가 아니라 d_k로 나누었습니다: 그림에서 내 행이 정답보다 평평합니다. "
        "math.sqrt(d_k)를 쓰세요.",
    ),
    "softmax_dim": (
        {"dim": -2},
        "the softmax runs over the queries (dim=-2): in the picture your columns sum to 1 instead of your "
        "rows. Use torch.softmax(scores, dim=-1): each query's weights over the keys sum to 1.",
        "softmax를 query 축(dim=-2)으로 계산했습니다: 그림에서 행이 아니라 열의 합이 1입니다. "
        "torch.softmax(scores, dim=-1)을 쓰세요: 각 query의 key 가중치 합이 1이어야 합니다.",
    ),
    "mask_zero": (
        {"fill": "zero"},
        "blocked scores were filled with 0 instead of -inf before the softmax: exp(0) = 1, so the blocked "
        "keys still take a share of each row (the marked cells in the picture), and zeroing them afterwards "
        "leaves rows that sum to less than 1. Use scores.masked_fill(mask, float('-inf')).",
        "막힌 점수를 softmax 전에 -inf가 아니라 0으로 채웠습니다: exp(0) = 1이라 막힌 key도 각 행의 가중치를 "
        "나눠 가집니다(그림에서 표시된 칸). 나중에 0으로 지우면 행의 합이 1보다 작아집니다. "
        "scores.masked_fill(mask, float('-inf'))를 쓰세요.",
    ),
    "mask_inverted": (
        {"invert": True},
        "the mask is applied inverted: the cells where mask is False were blocked and those where it is "
        "True kept (in the picture your weight sits exactly where the right one is 0). True means blocked: "
        "masked_fill(mask, ...), not masked_fill(~mask, ...) or masked_fill(mask == 0, ...).",
        "마스크를 반대로 적용했습니다: mask가 False인 칸을 막고 True인 칸을 남겼습니다(그림에서 내 가중치가 "
        "정답이 0인 칸에 있습니다). True가 막힘입니다: masked_fill(~mask, ...)나 "
        "masked_fill(mask == 0, ...)가 아니라 masked_fill(mask, ...)입니다.",
    ),
    "mask_ignored": (
        {"fill": "ignore"},
        "the mask was not applied: blocked keys get weight (the marked cells in the picture). Fill the "
        "scores where mask is True with -inf before the softmax.",
        "마스크를 적용하지 않았습니다: 막힌 key도 가중치를 받습니다(그림에서 표시된 칸). softmax 전에 "
        "mask가 True인 점수를 -inf로 채우세요.",
    ),
    "mask_after_softmax": (
        {"fill": "after"},
        "the mask is applied after the softmax: the softmax ran over every key, future ones included, and "
        "setting the blocked weights to 0 afterwards leaves each row summing to less than 1 (the marked "
        "cells in the picture). Fill the scores with -inf before the softmax: "
        "scores.masked_fill(mask, float('-inf')), then torch.softmax(scores, dim=-1).",
        "마스크를 softmax 뒤에 적용했습니다: softmax가 미래 key까지 모든 key에 대해 계산되었고, 그 뒤에 막힌 "
        "가중치를 0으로 지우면 각 행의 합이 1보다 작아집니다(그림에서 표시된 칸). softmax 전에 점수를 "
        "-inf로 채우세요: scores.masked_fill(mask, float('-inf')) 다음 torch.softmax(scores, dim=-1).",
    ),
    "qk_swapped": (
        {"swap_qk": True},
        "the weights are transposed: you computed k q^T, so rows are keys and columns queries (in the "
        "picture your matrix is the right one mirrored on its diagonal). Use q @ k.transpose(-2, -1).",
        "가중치가 전치되었습니다: k q^T를 계산해서 행이 key, 열이 query입니다(그림에서 내 행렬이 정답을 "
        "대각선으로 뒤집은 모양). q @ k.transpose(-2, -1)을 쓰세요.",
    ),
    "nan_rows": (
        {"empty": "nan"},
        "a row whose keys are all blocked came out NaN (the softmax of a row of -inf): such a query "
        "attends to nothing, so its weights and output must be 0. Zero them after the softmax, e.g. "
        "weights.masked_fill(mask, 0.0).",
        "모든 key가 막힌 행이 NaN이 되었습니다(-inf뿐인 행의 softmax): 그런 query는 아무것도 보지 않으므로 "
        "가중치와 출력이 0이어야 합니다. softmax 뒤에 weights.masked_fill(mask, 0.0) 등으로 0으로 만드세요.",
    ),
    "uniform_rows": (
        {"empty": "uniform"},
        "a row whose keys are all blocked came out uniform (1/T_k each): a large negative fill instead of "
        "-inf spreads the softmax evenly over blocked keys. Such a query attends to nothing: its weights "
        "must be 0 (weights.masked_fill(mask, 0.0) after the softmax).",
        "모든 key가 막힌 행이 균등(각 1/T_k)하게 나왔습니다: -inf 대신 큰 음수로 채우면 softmax가 막힌 "
        "key에 고르게 퍼집니다. 그런 query는 아무것도 보지 않으므로 가중치가 0이어야 합니다(softmax 뒤에 "
        "weights.masked_fill(mask, 0.0)).",
    ),
}

FORMULA: Cause = (
    "formula",
    "check weights = softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1), with the cells where mask "
    "is True filled with -inf before the softmax (the picture outlines where yours differ).",
    "weights = softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1)인지, mask가 True인 칸을 softmax "
    "전에 -inf로 채웠는지 확인하세요(그림에서 다른 칸에 테두리가 있습니다).",
)


def weights_cause(found: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                  mask: torch.Tensor | None, atol: float = 1e-4) -> Cause:
    """Why the student's attention weights differ from the formula's."""
    for key, (options, en, ko) in WEIGHT_CAUSES.items():
        if mask is None and key in ("mask_zero", "mask_inverted", "mask_ignored", "mask_after_softmax",
                                    "nan_rows", "uniform_rows"):
            continue
        if key == "qk_swapped" and q.shape[-2] != k.shape[-2]:
            continue
        # A mask mistake often comes with the bare softmax's NaN (or a large negative fill's uniform
        # weights) on rows left with no key: the first mistake is the cause told first.
        empties: list[AttentionMistake] = (
            [{}] if "empty" in options or mask is None else [{}, {"empty": "nan"}, {"empty": "uniform"}])
        if key == "mask_zero":  # often followed by the right masked_fill(mask, 0.0) after the softmax
            empties = [{}, {"zero_after": True}]
        for empty in empties:  # each sets a keyword the options leave out: the union loses nothing
            _, wrong = attention(q, k, v, mask, **(options | empty))
            if close(found, wrong, atol):
                return key, en, ko
    return FORMULA


def output_cause() -> Cause:
    """The weights are right and the output is not: the product with v is what is wrong."""
    return ("output",
            "your weights are right but the output is not weights @ v: multiply the weights (..., T_q, T_k) "
            "by v (..., T_k, d_v), in that order, and return (output, weights).",
            "가중치는 맞지만 출력이 weights @ v가 아닙니다: 가중치 (..., T_q, T_k)에 v (..., T_k, d_v)를 이 "
            "순서로 곱하고 (output, weights)를 반환하세요.")


# -- causal_mask ----------------------------------------------------------------------------------------

# In order: at T = 1 the first two are the same mask, [[True]], and position 0 seeing nothing is the point.
MASK_CAUSES: dict[str, tuple[Callable[[int], torch.Tensor], str, str]] = {
    "diagonal_masked": (
        lambda T: torch.ones(T, T, dtype=torch.bool).triu(),
        "the diagonal is blocked too (off by one): position t must see itself. With the diagonal blocked "
        "position 0 sees nothing and its softmax is NaN. Use diagonal=1 in torch.triu.",
        "대각선까지 막았습니다(하나 차이): 위치 t는 자기 자신을 볼 수 있어야 합니다. 대각선을 막으면 0번 "
        "위치는 아무것도 볼 수 없어 softmax가 NaN이 됩니다. torch.triu에 diagonal=1을 쓰세요.",
    ),
    "mask_inverted": (
        lambda T: torch.ones(T, T, dtype=torch.bool).tril(),
        "the mask is inverted: True on and below the diagonal (the cells a position may see). In this "
        "lesson True means blocked: torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1).",
        "마스크가 반대입니다: 대각선과 그 아래(볼 수 있는 칸)가 True입니다. 이 수업에서 True는 막힘입니다: "
        "torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1).",
    ),
    "past_masked": (
        lambda T: torch.ones(T, T, dtype=torch.bool).tril(-1),
        "the past is blocked instead of the future: True below the diagonal. Position t may look at "
        "0..t and never at t+1..T-1: True above the diagonal (torch.triu(..., diagonal=1)).",
        "미래가 아니라 과거를 막았습니다: 대각선 아래가 True입니다. 위치 t는 0..t를 보고 t+1..T-1은 보면 안 "
        "됩니다: 대각선 위가 True(torch.triu(..., diagonal=1)).",
    ),
}


def mask_dtype_cause(found: torch.Tensor, T: int) -> Cause:
    """What a mask that is not bool is, said from its values: an additive float mask (0 allowed, -inf
    blocked, with at least one -inf), or 0/1 numbers; whether its cells are right is checked apart."""
    right = found.shape == (T, T) and torch.equal(found != 0, torch.ones(T, T, dtype=torch.bool).triu(1))
    if found.dtype.is_floating_point and bool(torch.isinf(found).any()) and bool(
            ((found == 0) | (torch.isinf(found) & (found < 0))).all()):
        return ("float_mask",
                "This is an additive float mask (0 where allowed, -inf where blocked), another convention: "
                "the exercise asks for a bool mask with True = blocked, which masked_fill reads directly. "
                "Build it with dtype=torch.bool.",
                "더하는 방식의 float 마스크(허용 0, 막힘 -inf)입니다. 다른 규칙입니다: 과제는 True = 막힘인 "
                "bool 마스크를 요구하고, masked_fill이 그것을 바로 읽습니다. dtype=torch.bool로 만드세요.")
    cells = ("Its cells are right (nonzero where blocked), but a" if right else "A")
    cells_ko = ("칸은 맞지만(막힌 칸이 0이 아님) " if right else "")
    return ("number_mask",
            f"{cells} mask of numbers is no bool mask: masked_fill accepts only a bool mask, with True = "
            "blocked. Build it with dtype=torch.bool (torch.ones(T, T, dtype=torch.bool)).",
            f"{cells_ko}숫자 마스크는 bool 마스크가 아닙니다: masked_fill은 True = 막힘인 bool 마스크만 "
            "받습니다. dtype=torch.bool로 만드세요(torch.ones(T, T, dtype=torch.bool)).")


def mask_cause(found: torch.Tensor, T: int) -> Cause:
    """Why the student's (T, T) mask differs from the causal one (``found`` read as bool)."""
    as_bool = found != 0
    for key, (build, en, ko) in MASK_CAUSES.items():
        if found.shape == (T, T) and torch.equal(as_bool, build(T)):
            return key, en, ko
    return ("mask_formula",
            "mask[i, j] must be True exactly when j > i (the future), False on and below the diagonal: "
            "torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1).",
            "mask[i, j]는 j > i(미래)일 때만 True, 대각선과 그 아래는 False여야 합니다: "
            "torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1).")


# -- CausalSelfAttention ---------------------------------------------------------------------------------


def self_attention(x: torch.Tensor, weights: dict[str, torch.Tensor], n_heads: int, *,
                   mask: str = "causal", scale: str = "sqrt", split: str = "right", merge: str = "right",
                   out_proj: bool = True, empty: str = "zero") -> torch.Tensor:
    """The module's forward in float64 from its weights (``q_proj.weight``, ``q_proj.bias``, ...), or a
    known mistake: ``mask`` "causal" | "none" | "diagonal"; ``split`` "right" | "view" (heads taken
    as view(B, n_heads, T, d_head)); ``merge`` "right" | "view" (heads put back without the transpose);
    ``out_proj`` False skips the output projection; ``empty`` as in ``attention``."""
    x = x.double()
    B, T, d = x.shape
    dh = d // n_heads

    def lin(name: str, t: torch.Tensor) -> torch.Tensor:
        return t @ weights[f"{name}.weight"].double().T + weights[f"{name}.bias"].double()

    def heads(t: torch.Tensor) -> torch.Tensor:
        if split == "view":
            return t.reshape(B, n_heads, T, dh)
        return t.reshape(B, T, n_heads, dh).transpose(1, 2)

    q, k, v = heads(lin("q_proj", x)), heads(lin("k_proj", x)), heads(lin("v_proj", x))
    blocked = {"causal": torch.ones(T, T, dtype=torch.bool).triu(1), "none": None,
               "diagonal": torch.ones(T, T, dtype=torch.bool).triu(0)}[mask]
    out, _ = attention(q, k, v, blocked, scale=scale, empty=empty)
    out = out.reshape(B, T, d) if merge == "view" else out.transpose(1, 2).reshape(B, T, d)
    return lin("out_proj", out) if out_proj else out


MODULE_CAUSES: dict[str, tuple[ModuleMistake, str, str]] = {
    "no_mask": (
        {"mask": "none"},
        "forward applies no causal mask: every position attends to the future too. Pass "
        "causal_mask(T, device=x.device) to scaled_dot_product_attention.",
        "forward에 인과 마스크가 없습니다: 모든 위치가 미래도 봅니다. scaled_dot_product_attention에 "
        "causal_mask(T, device=x.device)를 넘기세요.",
    ),
    "diagonal_masked": (
        {"mask": "diagonal"},
        "forward blocks the diagonal too: position t cannot see itself, and position 0 sees nothing. "
        "Block only j > i (torch.triu(..., diagonal=1)).",
        "forward가 대각선까지 막습니다: 위치 t가 자기 자신을 못 보고, 0번 위치는 아무것도 못 봅니다. "
        "j > i만 막으세요(torch.triu(..., diagonal=1)).",
    ),
    "no_scale": (
        {"scale": "none"},
        "the attention inside forward is not scaled by 1/sqrt(d_head): divide the scores by the square "
        "root of each head's size, d_model // n_heads (not d_model).",
        "forward 안의 어텐션에 1/sqrt(d_head) 스케일이 없습니다: 점수를 헤드 하나의 크기 d_model // n_heads"
        "(d_model 아님)의 제곱근으로 나누세요.",
    ),
    "head_split": (
        {"split": "view"},
        "the heads are split with view(B, n_heads, T, d_head): the shape is right but each 'head' mixes "
        "positions. Use view(B, T, n_heads, d_head).transpose(1, 2).",
        "헤드를 view(B, n_heads, T, d_head)로 나누었습니다: 모양은 맞지만 각 '헤드'에 위치가 섞입니다. "
        "view(B, T, n_heads, d_head).transpose(1, 2)를 쓰세요.",
    ),
    "head_merge": (
        {"merge": "view"},
        "the heads are merged without transposing back: (B, n_heads, T, d_head) reshaped to (B, T, "
        "d_model) mixes positions. Use out.transpose(1, 2).reshape(B, T, d_model).",
        "헤드를 되돌려 전치하지 않고 합쳤습니다: (B, n_heads, T, d_head)를 바로 (B, T, d_model)로 바꾸면 "
        "위치가 섞입니다. out.transpose(1, 2).reshape(B, T, d_model)을 쓰세요.",
    ),
    "no_out_proj": (
        {"out_proj": False},
        "forward returns the merged heads without self.out_proj: apply the output projection last.",
        "forward가 self.out_proj 없이 합친 헤드를 반환합니다: 마지막에 출력 projection을 적용하세요.",
    ),
}


def module_cause(found: torch.Tensor, x: torch.Tensor, weights: dict[str, torch.Tensor], n_heads: int,
                 atol: float = 1e-4) -> Cause:
    """Why the module's output differs from the reference forward with the module's own weights."""
    for key, (options, en, ko) in MODULE_CAUSES.items():
        if key == "no_scale" and x.shape[-1] == n_heads:  # d_head = 1: sqrt(1) scales nothing
            continue
        empties: list[ModuleMistake] = [{}] if options.get("mask") == "none" else [{}, {"empty": "nan"}]
        if any(close(found, self_attention(x, weights, n_heads, **(options | e)), atol) for e in empties):
            return key, en, ko
    return ("module_formula",
            "compare forward step by step with the recipe in the docstring: project, split the heads, "
            "attend with the causal mask, merge the heads, out_proj.",
            "forward를 docstring의 순서와 한 단계씩 비교해 보세요: projection, 헤드 나누기, 인과 마스크로 "
            "어텐션, 헤드 합치기, out_proj.")
