"""Public checks of causal_mask: a small mask written out, the smallest one, a bad size."""

import pytest
import torch

from grader.author import raised
from lesson_attention.checks import check_mask, check_mask_dtype, check_names

# causal_mask(4) written out: row i is query position i; True (1) marks the keys it may not see.
FOUR = torch.tensor([[0, 1, 1, 1],
                     [0, 0, 1, 1],
                     [0, 0, 0, 1],
                     [0, 0, 0, 0]], dtype=torch.bool)


@pytest.mark.task("causal_mask", points=1)
def test_mask_of_four(student):
    check_mask(student.call("causal_attention.causal_mask", 4), 4, "causal_mask(4)", FOUR)


# The cells and the dtype are one check each: a float 0/1 mask with the right cells loses this point
# only, less than a mask that lets a position see the future.
@pytest.mark.task("causal_mask", points=1)
def test_mask_is_bool(student):
    check_mask_dtype(student.call("causal_attention.causal_mask", 4), 4, "causal_mask(4)")


@pytest.mark.task("causal_mask", points=1)
def test_one_position_sees_itself(student):
    expected = torch.zeros(1, 1, dtype=torch.bool)
    check_mask(student.call("causal_attention.causal_mask", 1), 1, "causal_mask(1)", expected,
               explain=lambda: student.attempt("causal_attention.causal_mask", 4).value)


@pytest.mark.task("causal_mask", points=1)
def test_zero_is_value_error(student):
    out = student.attempt("causal_attention.causal_mask", 0)
    raised(out, "ValueError", "causal_mask(0)",
           "A mask needs at least one position: check T > 0 and raise ValueError.",
           "마스크에는 위치가 하나 이상 있어야 합니다: T > 0인지 검사하고 ValueError를 발생시키세요.",
           cause="causal_mask_checks_T")
    check_names(out.error.message, (0,), "causal_mask(0)", "the bad value 0", "잘못된 값 0이")
