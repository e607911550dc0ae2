"""Public check of equivariance_error on attention without positions."""

import pytest
import torch
from torch import nn

from grader.author import Said, check, expect_check


@pytest.mark.task("equivariance", points=2)
def test_attention_alone_is_equivariant(student):
    torch.manual_seed(0)
    attn = nn.MultiheadAttention(8, 2, batch_first=True)
    x = torch.randn(1, 5, 8)
    perm = torch.tensor([4, 3, 2, 1, 0])
    err = student.probe("equivariance", "attention", attn.state_dict(), x, perm, {"d": 8, "heads": 2})
    # the Korean sentence gives the reason after "하는데"; the card shows it with what is expected
    about_ko, why_ko = "0에 가까워야", "(위치가 없으면 출력 순서만 바뀝니다)"
    expect_check(isinstance(err, float) and 0 <= err < 1e-4,
                 check("equivariance_error(attention, x, perm)",
                       Said("about 0 (attention without positions only reorders its outputs)",
                            f"{about_ko} 함 {why_ko}"),
                       Said(shown := f"{err:.4g}" if isinstance(err, float) else repr(err), f"{shown}입니다"),
                       fix=Said("Compare fn(x)[:, perm] with fn(x[:, perm]) and return the largest absolute "
                                "difference as a float.",
                                "fn(x)[:, perm]과 fn(x[:, perm])을 비교해 가장 큰 절대 차이를 float로 "
                                "반환하세요.")),
                 Said("{lead}expected {expected}; found {found}.{tail}",
                      f"{{lead}}{about_ko} 하는데{why_ko} {{found}}.{{tail}}"))
