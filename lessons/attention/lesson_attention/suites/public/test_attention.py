"""Public checks of scaled_dot_product_attention against the formula: small cases, a causal mask,
leading axes, a row with nothing to see, mismatched sizes."""

import pytest
import torch

from grader.author import raised
from lesson_attention.checks import check_attention, check_names
from lesson_attention.diagnose import attention

CALL = "causal_attention.scaled_dot_product_attention"


def _qkv(*lead, t_q=4, t_k=4, d_k=8, d_v=8, dtype=torch.float32):
    return (torch.randn(*lead, t_q, d_k, dtype=dtype), torch.randn(*lead, t_k, d_k, dtype=dtype),
            torch.randn(*lead, t_k, d_v, dtype=dtype))


@pytest.mark.task("scaled_dot_product_attention", points=2)
def test_formula_without_mask(student):
    q, k, v = _qkv(t_q=3, t_k=5, d_k=8, d_v=4)
    check_attention(student.call(CALL, q, k, v), q, k, v, None, "scaled_dot_product_attention(q, k, v)",
                    expected=attention(q, k, v))


@pytest.mark.task("scaled_dot_product_attention", points=2)
def test_causal_mask_blocks_the_future(student):
    q, k, v = _qkv(t_q=5, t_k=5, d_k=16, d_v=16)
    mask = torch.ones(5, 5, dtype=torch.bool).triu(1)
    check_attention(student.call(CALL, q, k, v, mask), q, k, v, mask,
                    "scaled_dot_product_attention(q, k, v, causal_mask(5))",
                    expected=attention(q, k, v, mask))


@pytest.mark.task("scaled_dot_product_attention", points=1)
def test_batch_and_head_axes(student):
    q, k, v = _qkv(2, 3, t_q=4, t_k=4, d_k=8, d_v=8)
    mask = torch.ones(4, 4, dtype=torch.bool).triu(1)  # one (T, T) mask broadcast over batch and heads
    check_attention(student.call(CALL, q, k, v, mask), q, k, v, mask,
                    "scaled_dot_product_attention(q (2, 3, 4, 8), k, v, causal_mask(4))",
                    expected=attention(q, k, v, mask))


@pytest.mark.task("scaled_dot_product_attention", points=1)
def test_a_row_with_nothing_to_see(student):
    q, k, v = _qkv(t_q=3, t_k=3, d_k=4, d_v=4)
    mask = torch.tensor([[True, True, True], [False, True, True], [False, False, True]])
    check_attention(student.call(CALL, q, k, v, mask), q, k, v, mask,
                    "scaled_dot_product_attention(q, k, v, mask=[[True, True, True], [False, True, True], "
                    "[False, False, True]])",
                    expected=attention(q, k, v, mask))


@pytest.mark.task("scaled_dot_product_attention", points=1)
def test_mismatched_d_k_is_value_error(student):
    q, k, v = torch.randn(3, 8), torch.randn(3, 6), torch.randn(3, 6)
    what = "scaled_dot_product_attention(q (3, 8), k (3, 6), v)"
    out = student.attempt(CALL, q, k, v)
    raised(out, "ValueError", what,
           "q k^T needs the same d_k on both sides: compare q.shape[-1] with k.shape[-1] first.",
           "q k^T는 양쪽 d_k가 같아야 합니다: 먼저 q.shape[-1]과 k.shape[-1]을 비교하세요.")
    check_names(out.error.message, (8, 6), what, "both sizes, 8 and 6", "두 크기 8과 6이")
