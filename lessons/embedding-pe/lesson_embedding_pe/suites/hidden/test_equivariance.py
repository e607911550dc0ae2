"""Hidden checks of equivariance_error against the reference, on functions the grader builds."""

import pytest
import torch
from torch import nn

from grader.author import Said, check, expect_check, fresh_rng
from lesson_embedding_pe import reference
from lesson_embedding_pe.probes import build_function


def _case(with_positions):
    rng = fresh_rng()
    heads = rng.choice([1, 2, 4])
    d, length, batch = heads * 2 * rng.randint(1, 6), rng.randint(4, 12), rng.randint(1, 3)
    torch.manual_seed(rng.randrange(2**31))
    attn = nn.MultiheadAttention(d, heads, batch_first=True)
    x = torch.randn(batch, length, d)
    perm = torch.randperm(length)
    while length > 1 and torch.equal(perm, torch.arange(length)):
        perm = torch.randperm(length)
    config = {"d": d, "heads": heads}
    if with_positions:
        config["pe"] = reference.load().embedding.sinusoidal_pe(length, d) * 3.0
    return attn.state_dict(), x, perm, config


def _expected(kind, state, x, perm, config):
    return reference.load().embedding.equivariance_error(build_function(kind, state, config), x, perm)


@pytest.mark.task("equivariance", points=2)
def test_attention_without_positions_is_about_zero(student):
    state, x, perm, config = _case(False)
    err = student.probe("equivariance", "attention", state, x, perm, config)
    kind = type(err).__name__
    expect_check(isinstance(err, float),
                 check("equivariance_error", Said("a Python float", "Python float를 반환해야 함"),
                       Said(kind, f"{kind}입니다"),
                       fix=Said("Return .item() of the max.", "최댓값의 .item()을 반환하세요.")))
    # the Korean sentence gives the reason after "하는데"; the card shows it with what is expected
    about_ko, why_ko = "0에 가까워야", "(위치 없는 어텐션은 순열 동변)"
    expect_check(0 <= err < 1e-4,
                 check("equivariance_error(attention, x, perm)",
                       Said("about 0 (attention without positions is permutation-equivariant)",
                            f"{about_ko} 함 {why_ko}"),
                       Said(f"{err:.4g}", f"{err:.4g}입니다"),
                       fix=Said("Compare fn(x)[:, perm] with fn(x[:, perm]): permute the output of the "
                                "unpermuted input, along the sequence axis (dim 1).",
                                "fn(x)[:, perm]과 fn(x[:, perm])을 비교하세요: 원래 입력의 출력을 시퀀스 "
                                "축(dim 1)으로 섞습니다.")),
                 Said("{lead}expected {expected}; found {found}.{tail}",
                      f"{{lead}}{about_ko} 하는데{why_ko} {{found}}.{{tail}}"))


@pytest.mark.task("equivariance", points=2)
def test_positions_break_equivariance(student):
    state, x, perm, config = _case(True)
    err = student.probe("equivariance", "attention_with_positions", state, x, perm, config)
    expected = _expected("attention_with_positions", state, x, perm, config)
    expect_check(isinstance(err, float) and abs(err - expected) <= 1e-4 + 1e-3 * expected,
                 check(Said("equivariance_error(attention after adding positions)",
                            "equivariance_error(위치를 더한 어텐션)"),
                       Said(f"{expected:.4g} (the largest |fn(x)[:, perm] - fn(x[:, perm])|)",
                            f"{expected:.4g}(|fn(x)[:, perm] - fn(x[:, perm])|의 최댓값)이어야 함"),
                       Said(shown := f"{err:.4g}" if isinstance(err, float) else repr(err), f"{shown}입니다"),
                       fix=Said("Exactly 0 means the two sides are the same tensor: the input is never "
                                "permuted. Run fn on x[:, perm] for one side.",
                                "정확히 0이면 두 쪽이 같은 텐서입니다: 입력을 섞지 않았습니다. 한쪽은 "
                                "x[:, perm]에 fn을 실행하세요.")
                       if isinstance(err, float) and err == 0.0 and expected > 1e-3 else
                       Said("Use the maximum absolute difference, not the mean or a boolean.",
                            "평균이나 bool이 아니라 최대 절대 차이를 쓰세요.")))
