"""Public check of equivariance_error on attention without positions."""

import pytest
import torch
from torch import nn

from grader.core.feedback import expect


@pytest.mark.task("equivariance", points=2)
def test_attention_alone_is_equivariant(student):
    torch.manual_seed(0)
    attn = nn.MultiheadAttention(8, 2, batch_first=True)
    x = torch.randn(1, 5, 8)
    perm = torch.tensor([4, 3, 2, 1, 0])
    err = student.probe("equivariance", "attention", attn.state_dict(), x, perm, {"d": 8, "heads": 2})
    expect(isinstance(err, float) and 0 <= err < 1e-4,
           "equivariance_error(attention, x, perm): expected about 0 (attention without "
           f"positions only reorders its outputs); found {err!r}. Compare fn(x)[:, perm] with "
           "fn(x[:, perm]) and return the largest absolute difference as a float.",
           "equivariance_error(attention, x, perm): 0에 가까워야 하는데(위치가 없으면 출력 순서만 바뀝니다) "
           f"{err!r}입니다. fn(x)[:, perm]과 fn(x[:, perm])을 비교해 가장 큰 절대 차이를 float로 반환하세요.")
