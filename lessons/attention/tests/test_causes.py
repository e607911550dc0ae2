"""Each mistake of the lesson, written as a student writes it, gets its own cause (key, English, Korean)
and a picture: the checks the suites run, called directly on the mistake's answer (no worker)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn as nn

from grader.core.feedback import GradeFailure
from lesson_attention import diagnose
from lesson_attention.checks import (
    check_attention,
    check_mask,
    check_mask_dtype,
    check_module_output,
    check_names,
)
from lesson_attention.figure import KIND


def sdpa(q, k, v, mask=None, *, scale=None, dim=-1, fill=float("-inf"), invert=False, swap=False,
         zero_rows=True, zero_blocked=False):
    """A student's attention with one knob per classic mistake (the defaults are right)."""
    scores = (k @ q.transpose(-2, -1)) if swap else (q @ k.transpose(-2, -1))
    scores = scores / (math.sqrt(q.shape[-1]) if scale is None else scale)
    if mask is not None and fill is not None:
        scores = scores.masked_fill(~mask if invert else mask, fill)
    weights = torch.softmax(scores, dim=dim)
    if zero_rows:
        weights = torch.nan_to_num(weights, nan=0.0)
    if zero_blocked:  # a second masked_fill after the softmax (alone: the mask applied after it)
        weights = weights.masked_fill(mask, 0.0)
    return weights @ v, weights


def _inputs(t=6, d=16, dtype=torch.float32):
    g = torch.Generator().manual_seed(7)
    return [torch.randn(2, t, d, generator=g, dtype=dtype) for _ in range(3)]


CAUSAL = torch.ones(6, 6, dtype=torch.bool).triu(1)
EMPTY_ROW = CAUSAL.clone()
EMPTY_ROW[3] = True


def _failure(value, q, k, v, mask) -> GradeFailure:
    with pytest.raises(GradeFailure) as info:
        check_attention(value, q, k, v, mask, "sdpa", expected=diagnose.attention(q, k, v, mask))
    return info.value


@pytest.mark.parametrize("mistake,mask,key", [
    ({"scale": 1.0}, None, "no_scale"),
    ({"scale": 16.0}, CAUSAL, "scale_d"),
    ({"dim": -2}, CAUSAL, "softmax_dim"),
    ({"fill": 0.0}, CAUSAL, "mask_zero"),
    ({"fill": 0.0, "zero_blocked": True}, CAUSAL, "mask_zero"),
    ({"fill": None, "zero_blocked": True}, CAUSAL, "mask_after_softmax"),
    ({"invert": True}, CAUSAL, "mask_inverted"),
    ({"fill": None}, CAUSAL, "mask_ignored"),
    ({"swap": True}, CAUSAL, "qk_swapped"),
    ({"zero_rows": False}, EMPTY_ROW, "nan_rows"),
    ({"fill": -1e9, "zero_rows": False}, EMPTY_ROW, "uniform_rows"),
    # inverted, the causal mask blocks every key of the last row: NaN there, from the bare softmax
    ({"invert": True, "zero_rows": False}, CAUSAL, "mask_inverted"),
    ({"scale": 1.0, "zero_rows": False}, EMPTY_ROW, "no_scale"),
])
def test_each_attention_mistake_has_its_cause(mistake, mask, key):
    q, k, v = _inputs()
    exc = _failure(sdpa(q, k, v, mask, **mistake), q, k, v, mask)
    cause_en, cause_ko = diagnose.WEIGHT_CAUSES[key][1:]
    assert f"Likely cause: {cause_en}" in exc.message.en
    assert f"원인 추정: {cause_ko}" in exc.message.ko
    assert exc.figure["kind"] == KIND and exc.figure["cause"]["key"] == key
    assert exc.finding.compares and exc.finding.cause.key == key  # the record names it (core/finding.py)
    found, expected = exc.figure["found"], exc.figure["expected"]
    assert len(found) == 6 and len(found[0]) == 6 and exc.figure["wrong"], "the picture marks the wrong cells"
    for r, c in exc.figure["wrong"]:  # each marked cell differs (None: not finite, as JSON keeps it)
        assert None in (found[r][c], expected[r][c]) or abs(found[r][c] - expected[r][c]) > 1e-5


def test_a_large_negative_fill_is_right_where_a_row_has_a_key():
    q, k, v = _inputs()
    check_attention(sdpa(q, k, v, CAUSAL, fill=-1e9), q, k, v, CAUSAL, "sdpa",
                    expected=diagnose.attention(q, k, v, CAUSAL))


def test_an_unknown_mistake_points_at_the_formula():
    q, k, v = _inputs()
    out, w = sdpa(q, k, v, CAUSAL)
    exc = _failure((out, w.sqrt()), q, k, v, CAUSAL)
    assert exc.figure["cause"]["key"] == "formula"
    assert "Likely cause: check weights = softmax(q @ k.transpose(-2, -1)" in exc.message.en


def test_right_weights_wrong_output():
    q, k, v = _inputs()
    out, w = sdpa(q, k, v, CAUSAL)
    exc = _failure((w.transpose(-2, -1) @ v, w), q, k, v, CAUSAL)
    assert "your weights are right but the output is not weights @ v" in exc.message.en
    assert exc.figure is None


def test_pair_returned_the_other_way_round():
    q, k, v = _inputs(d=8)
    q = q[:, :3]  # T_q 3, T_k 6, d_v 8: the weights' and the output's shapes differ
    out, w = sdpa(q, k, v)
    exc = _failure((w, out), q, k, v, None)
    assert "found them the other way round" in exc.message.en and "반대로 반환했습니다" in exc.message.ko


def test_dtype_is_kept():
    q, k, v = _inputs(dtype=torch.float64)
    out, w = sdpa(q.float(), k.float(), v.float(), CAUSAL)
    exc = _failure((out, w), q, k, v, CAUSAL)
    assert "expected dtype torch.float64; found torch.float32" in exc.message.en


def test_a_single_tensor_is_not_a_pair():
    q, k, v = _inputs()
    exc = _failure(sdpa(q, k, v)[0], q, k, v, None)
    assert "expected a pair (output, weights); found a Tensor" in exc.message.en


@pytest.mark.parametrize("mask,key", [
    (torch.ones(5, 5, dtype=torch.bool).tril(), "mask_inverted"),
    (torch.ones(5, 5, dtype=torch.bool).triu(), "diagonal_masked"),
    (torch.ones(5, 5, dtype=torch.bool).tril(-1), "past_masked"),
    (torch.ones(5, 5, dtype=torch.bool), "mask_formula"),
])
def test_each_mask_mistake_has_its_cause(mask, key):
    with pytest.raises(GradeFailure) as info:
        check_mask(mask, 5, "causal_mask(5)", torch.ones(5, 5, dtype=torch.bool).triu(1))
    exc = info.value
    assert exc.figure["cause"]["key"] == key and exc.figure["subject"] == "mask"
    assert exc.figure["wrong_total"] == int((mask != torch.ones(5, 5, dtype=torch.bool).triu(1)).sum())
    assert "Likely cause:" in exc.message.en and "원인 추정:" in exc.message.ko
    assert exc.finding.compares and exc.finding.cause.key == key


CAUSAL5 = torch.ones(5, 5, dtype=torch.bool).triu(1)


@pytest.mark.parametrize("mask,key,said", [
    (torch.zeros(5, 5).masked_fill(CAUSAL5, float("-inf")), "float_mask", "additive float mask"),
    (CAUSAL5.float(), "number_mask", "Its cells are right (nonzero where blocked), but a mask of numbers"),
    (CAUSAL5.long(), "number_mask", "Its cells are right"),
])
def test_a_mask_of_numbers_costs_its_dtype_check_only(mask, key, said):
    """The cells of a float 0/1 or additive mask are read as blocked where nonzero: right cells pass the
    cells' check, and the dtype check says what the mask is (a 0/1 mask is never called additive)."""
    check_mask(mask, 5, "causal_mask(5)", CAUSAL5)  # the cells are right: no failure
    with pytest.raises(GradeFailure) as info:
        check_mask_dtype(mask, 5, "causal_mask(5)")
    exc = info.value
    assert f"expected dtype torch.bool (True = blocked); found {mask.dtype}" in exc.message.en
    assert said in exc.message.en
    assert ("additive" in exc.message.en) == (key == "float_mask")
    assert "torch.bool" in exc.message.ko and "이어야 하는데" in exc.message.ko


def test_a_mask_of_wrong_numbers_is_not_said_to_have_right_cells():
    with pytest.raises(GradeFailure) as info:
        check_mask_dtype(torch.ones(5, 5), 5, "causal_mask(5)")
    assert "A mask of numbers is no bool mask" in info.value.message.en
    assert "cells are right" not in info.value.message.en and "칸은 맞지만" not in info.value.message.ko


def test_weights_of_k_q_transposed_are_a_shape_with_its_cause():
    q, k, v = _inputs(d=8)
    q = q[:, :3]  # T_q 3, T_k 6: k q^T gives (..., 6, 3)
    scores = k @ q.transpose(-2, -1) / math.sqrt(8)
    exc = _failure((torch.zeros(2, 3, 8), torch.softmax(scores, -1)), q, k, v, None)
    assert exc.message.en.startswith("sdpa weights: expected shape (2, 3, 6); found (2, 6, 3). "
                                     "Likely cause: ")
    assert exc.message.ko.startswith("sdpa 가중치: 모양이 (2, 3, 6)이어야 하는데 (2, 6, 3)입니다. "
                                     "원인 추정: ")
    assert exc.finding.cause.key == "qk_swapped" and exc.finding.fix is None


def test_a_value_error_that_does_not_name_the_value_is_a_comparison():
    what = "sdpa(q (3, 8), k (3, 6), v)"
    with pytest.raises(GradeFailure) as info:
        check_names("bad size", (8, 6), what, "both sizes, 8 and 6", "두 크기 8과 6이")
    exc = info.value
    assert exc.message.en == (f"{what}: the ValueError should name both sizes, 8 and 6; its message was "
                              "'bad size'.")
    assert exc.message.ko == (f"{what}: ValueError 메시지에 두 크기 8과 6이 있어야 하는데 메시지는 "
                              "'bad size'입니다.")
    assert exc.finding.found.en == "'bad size'" and exc.finding.expected.ko.endswith("있어야 함")
    check_names("q has 8, k has 6", (8, 6), "sdpa", "both sizes, 8 and 6", "두 크기 8과 6이")  # named: passes


def test_at_one_position_a_blocked_cell_is_the_diagonal():
    with pytest.raises(GradeFailure) as info:
        check_mask(torch.ones(1, 1, dtype=torch.bool), 1, "causal_mask(1)",
                   torch.zeros(1, 1, dtype=torch.bool))
    assert info.value.figure["cause"]["key"] == "diagonal_masked"


class Student(nn.Module):
    """A student's module with one knob per classic mistake (the defaults are right)."""

    def __init__(self, d, h, *, mask="causal", scale=True, split="right", merge="right", out=True,
                 zero_rows=True):
        super().__init__()
        self.h, self.mask, self.scale, self.split, self.merge, self.out = h, mask, scale, split, merge, out
        self.zero_rows = zero_rows
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x):
        B, T, d = x.shape
        dh = d // self.h

        def heads(t):
            if self.split == "view":
                return t.view(B, self.h, T, dh)
            return t.view(B, T, self.h, dh).transpose(1, 2)

        blocked = {"causal": torch.ones(T, T, dtype=torch.bool).triu(1), "none": None,
                   "diagonal": torch.ones(T, T, dtype=torch.bool).triu()}[self.mask]
        o, _ = sdpa(heads(self.q_proj(x)), heads(self.k_proj(x)), heads(self.v_proj(x)), blocked,
                    scale=None if self.scale else 1.0, zero_rows=self.zero_rows)
        o = o.reshape(B, T, d) if self.merge == "view" else o.transpose(1, 2).reshape(B, T, d)
        return self.out_proj(o) if self.out else o


@pytest.mark.parametrize("mistake,key", [
    ({"mask": "none"}, "no_mask"),
    ({"mask": "diagonal"}, "diagonal_masked"),
    ({"mask": "diagonal", "zero_rows": False}, "diagonal_masked"),  # position 0 sees nothing: NaN
    ({"scale": False}, "no_scale"),
    ({"split": "view"}, "head_split"),
    ({"merge": "view"}, "head_merge"),
    ({"out": False}, "no_out_proj"),
])
def test_each_module_mistake_has_its_cause(mistake, key):
    torch.manual_seed(3)
    layer = Student(16, 4, **mistake)
    weights = {n: p.detach() for n, p in layer.state_dict().items()}
    x = torch.randn(2, 5, 16)
    right = diagnose.self_attention(x, weights, 4)
    with torch.no_grad():
        out = layer(x)
    with pytest.raises(GradeFailure) as info:
        check_module_output(out, x, weights, 4, "CausalSelfAttention(16, 4)", expected=right)
    assert f"Likely cause: {diagnose.MODULE_CAUSES[key][1]}" in info.value.message.en
    assert f"원인 추정: {diagnose.MODULE_CAUSES[key][2]}" in info.value.message.ko


def test_the_right_module_matches_the_formula():
    torch.manual_seed(4)
    layer = Student(24, 3)
    x = torch.randn(3, 7, 24)
    with torch.no_grad():
        out = layer(x)
    weights = {n: p.detach() for n, p in layer.state_dict().items()}
    check_module_output(out, x, weights, 3, "CausalSelfAttention(24, 3)",
                        expected=diagnose.self_attention(x, weights, 3))


def test_unexplained_nan_in_the_module_is_told_as_such():
    torch.manual_seed(5)
    layer = Student(8, 2)
    weights = {n: p.detach() for n, p in layer.state_dict().items()}
    x = torch.randn(1, 4, 8)
    out = torch.full((1, 4, 8), float("nan"))
    with pytest.raises(GradeFailure) as info:
        check_module_output(out, x, weights, 2, "CausalSelfAttention(8, 2)",
                            expected=diagnose.self_attention(x, weights, 2))
    assert info.value.message.en == "CausalSelfAttention(8, 2): expected finite numbers; found NaN or inf."
