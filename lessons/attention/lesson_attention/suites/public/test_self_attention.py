"""Public checks of CausalSelfAttention: the projections, the output's shape, causality, bad sizes."""

import pytest
import torch

from grader.author import check_shape, raised
from lesson_attention.checks import check_causal, check_names, read_weights, run_layer

CLASS = "causal_attention.CausalSelfAttention"


@pytest.mark.task("CausalSelfAttention", points=1)
def test_four_projections(student):
    layer = student.call(CLASS, 16, 4)
    weights = read_weights(layer, "CausalSelfAttention(16, 4)")
    for name, value in weights.items():
        shape = (16, 16) if name.endswith("weight") else (16,)
        check_shape(value, shape, f"CausalSelfAttention(16, 4).{name}", "Each projection is "
                    "nn.Linear(d_model, d_model).", "각 projection은 nn.Linear(d_model, d_model)입니다.")


@pytest.mark.task("CausalSelfAttention", points=1)
def test_output_shape(student):
    layer = student.call(CLASS, 16, 4)
    out, _ = run_layer(student, layer, torch.randn(2, 5, 16), "CausalSelfAttention(16, 4)(x (2, 5, 16))")
    check_shape(out, (2, 5, 16), "CausalSelfAttention(16, 4)(x (2, 5, 16))",
                "The output has the input's shape (B, T, d_model).",
                "출력은 입력과 같은 모양 (B, T, d_model)입니다.")


@pytest.mark.task("CausalSelfAttention", points=2)
def test_no_position_sees_the_future(student):
    layer = student.call(CLASS, 16, 4)
    check_causal(student, layer, torch.randn(2, 6, 16), 2, "CausalSelfAttention(16, 4)(x (2, 6, 16))",
                 n_heads=4)


@pytest.mark.task("CausalSelfAttention", points=1)
def test_heads_must_divide_d_model(student):
    out = student.attempt(CLASS, 10, 4)
    raised(out, "ValueError", "CausalSelfAttention(10, 4)",
           "Each head takes d_model // n_heads columns, so n_heads must divide d_model: check it in "
           "__init__.",
           "각 헤드가 d_model // n_heads개의 열을 가지므로 n_heads가 d_model을 나누어야 합니다: __init__에서 "
           "검사하세요.")
    check_names(out.error.message, (10, 4), "CausalSelfAttention(10, 4)", "both values, 10 and 4",
                "두 값 10과 4가")
