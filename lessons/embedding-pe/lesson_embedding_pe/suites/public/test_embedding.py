"""Public checks of TokenAndPosEmbedding: shapes per mode, the buffer, the length limit."""

import math

import pytest
import torch

from grader.author import (
    Cause,
    Said,
    as_tensor,
    check,
    check_shape,
    expect_check,
    fail_check,
    max_diff,
    mentions,
    raised,
)
from lesson_embedding_pe import structure
from lesson_embedding_pe.pe_checks import (
    forward_rows_cause,
    max_len_fix,
    pe_formula,
    scale_cause,
    table_figure,
)


def _ids(batch, length, vocab, seed=0):
    return torch.randint(0, vocab, (batch, length), generator=torch.Generator().manual_seed(seed))


@pytest.mark.task("TokenAndPosEmbedding", points=1)
@pytest.mark.parametrize("mode", ["sin", "learned", "none"])
def test_output_shape(student, mode):
    layer = student.call("TokenAndPosEmbedding", 10, 8, 16, mode=mode)
    out = as_tensor(layer.call("__call__", _ids(2, 5, 10)), f"TokenAndPosEmbedding(mode={mode!r})(ids)")
    check_shape(out, (2, 5, 8), f"mode={mode!r}: output for ids of shape (2, 5)",
                "The output is (B, T, d_model): one vector per token.",
                "출력은 (B, T, d_model)입니다: 토큰마다 벡터 하나.")


@pytest.mark.task("TokenAndPosEmbedding", points=0.5)
def test_unknown_mode_is_value_error(student):
    """The stub's rule: a mode other than "sin", "learned" or "none" raises ValueError."""
    out = student.attempt("TokenAndPosEmbedding", 10, 8, 16, mode="sine")
    raised(out, "ValueError", "TokenAndPosEmbedding(mode='sine')",
           "An unknown mode should fail loudly at construction; silently acting like 'none' hides typos "
           "such as 'sine'.",
           "알 수 없는 mode는 생성 시점에 바로 실패해야 합니다. 조용히 'none'처럼 동작하면 'sine' 같은 "
           "오타가 숨겨집니다.")


@pytest.mark.task("TokenAndPosEmbedding", points=1)
def test_sin_table_is_a_buffer(student):
    layer = student.call("TokenAndPosEmbedding", 10, 8, 16, mode="sin")
    info = student.probe("module_summary", layer)
    buffers = {b["name"] for b in info["buffers"]}
    params = {p["name"] for p in info["parameters"]}
    if "pe" not in buffers:
        # the lesson's "buffer" cause (causes.py): the device checks it explains join its card
        buffer = Cause("", "", "buffer")
        if "pe" in params:
            fail_check(check("mode='sin'", Said("`pe` as a registered buffer", "`pe`는 buffer여야 함"),
                             Said("an nn.Parameter, so the optimizer would train the fixed table",
                                  "nn.Parameter입니다"),
                             cause=buffer,
                             fix=Said("Use self.register_buffer('pe', ...).",
                                      "고정된 표가 학습되어 버립니다. "
                                      "self.register_buffer('pe', ...)를 쓰세요.")))
        fail_check(check("mode='sin'", Said("a registered buffer named `pe`",
                                            "`pe`라는 이름의 buffer가 있어야 함"),
                         Said("none (a plain attribute is not moved by .to('cuda'))",
                              "없습니다(일반 속성은 .to('cuda')로 옮겨지지 않습니다)"),
                         cause=buffer,
                         fix=Said("Use self.register_buffer('pe', sinusoidal_pe(max_len, d_model)).",
                                  "self.register_buffer('pe', sinusoidal_pe(max_len, d_model))를 쓰세요.")))
    student.source_shows(structure.registers_buffer(student.sources), "mode='sin'")


@pytest.mark.task("TokenAndPosEmbedding", points=2)
def test_sin_forward_value(student):
    layer = student.call("TokenAndPosEmbedding", 10, 8, 16, mode="sin")
    ids = _ids(1, 6, 10, seed=3)
    out = as_tensor(layer.call("__call__", ids), "forward")
    weight = as_tensor(layer.attr("tok.weight"), "tok.weight")
    # The student's own table when it has the right shape: a wrong table is
    # sinusoidal_pe's fault, graded there, not charged twice here.
    own = student.attempt("sinusoidal_pe", 16, 8).value
    own_fits = isinstance(own, torch.Tensor) and tuple(own.shape) == (16, 8)
    table = own.double() if own_fits else pe_formula(16, 8)
    expected = weight.double()[ids] * math.sqrt(8) + table[:6]
    if max_diff(out, expected) > 1e-4:
        no_scale = weight.double()[ids] + table[:6]
        unscaled = max_diff(out, no_scale) < 1e-4
        added = out.double()[0] - weight.double()[ids[0]] * math.sqrt(8)
        scaled = scale_cause(out, weight[ids], table[:6], 8)
        hint, hint_ko = (("the token vectors are not multiplied by sqrt(d_model).",
                          "토큰 벡터에 sqrt(d_model)을 곱하지 않았습니다.") if unscaled
                         else scaled or forward_rows_cause(added, table[:6]))
        # the rows forward added, drawn beside pe[:6] (not when the tokens are scaled wrong: then they mix in)
        figure = None if unscaled or scaled else table_figure(
            added, table[:6], "forward: out - tok(ids) * sqrt(8)", atol=1e-4, subject="forward",
            cause=(hint, hint_ko))
        err = f"{max_diff(out, expected):.3g}"
        fail_check(check("mode='sin'", Said("tok(ids) * sqrt(8) + pe[:6]",
                                            "tok(ids) * sqrt(8) + pe[:6]이어야 함"),
                         Said(f"values off by up to {err}", f"최대 {err}만큼 다릅니다"),
                         cause=Cause(hint, hint_ko, "unscaled" if unscaled else "")),
                   figure=figure)


@pytest.mark.task("TokenAndPosEmbedding", points=0.5)
def test_too_long_is_index_error(student):
    """The stub's rule: T == max_len works, T > max_len raises IndexError naming both numbers."""
    layer = student.call("TokenAndPosEmbedding", 10, 8, 6, mode="learned")
    full = student.attempt_method(layer, "__call__", _ids(1, 6, 10))
    error = f"{full.raised}: {full.error.message[:200]}" if full.error else ""
    expect_check(full.error is None,
                 check("mode='learned', T=6 == max_len=6", Said("it to work (T == max_len is allowed)",
                                                                "정상 동작해야 함(T == max_len은 허용)"),
                       Said(error, f"{error} 예외가 발생했습니다"),
                       fix=max_len_fix(full.error)))
    out = student.attempt_method(layer, "__call__", _ids(1, 9, 10))
    raised(out, "IndexError", "mode='learned', T=9 > max_len=6",
           "Check T against max_len in forward and raise IndexError naming both numbers.",
           "forward에서 T와 max_len을 비교하고 두 숫자를 모두 적은 IndexError를 발생시키세요.")
    said = repr(out.error.message)
    expect_check(mentions(out.error.message, 9, 6),
                 check(None, Said("the IndexError to name both T=9 and max_len=6",
                                  "IndexError 메시지에 T=9와 max_len=6이 모두 있어야 함"),
                       Said(said, f"메시지는 {said}입니다")),
                 Said("The IndexError should name both T=9 and max_len=6; its message was {found}.",
                      "{expected_stem} 하는데 {found}."))
