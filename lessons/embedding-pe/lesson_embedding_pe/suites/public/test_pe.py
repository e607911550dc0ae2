"""Public checks of sinusoidal_pe: shape, dtype, the formula on small cases, errors."""

import pytest

from grader.author import (
    Said,
    as_tensor,
    check,
    check_dtype,
    check_finite,
    check_shape,
    expect_check,
    mentions,
    raised,
)
from lesson_embedding_pe.pe_checks import check_pe_values, pe_formula, pictured


@pytest.mark.task("sinusoidal_pe", points=1)
def test_shape_and_dtype(student):
    pe = as_tensor(student.call("sinusoidal_pe", 16, 8), "sinusoidal_pe(16, 8)")
    with pictured(pe, lambda: pe_formula(16, 8), "sinusoidal_pe(16, 8)", atol=1e-5):
        check_shape(pe, (16, 8), "sinusoidal_pe(16, 8)", "One row per position, one column per dimension.",
                    "위치마다 한 행, 차원마다 한 열입니다.")
        check_dtype(pe, __import__("torch").float32, "sinusoidal_pe(16, 8)",
                    "Cast the table with .float() (or build it in float32).",
                    ".float()로 변환하거나 float32로 만드세요.", cause="table_dtype")


@pytest.mark.task("sinusoidal_pe", points=2)
@pytest.mark.parametrize("max_len,d_model", [(4, 6), (10, 4)])
def test_formula_small(student, max_len, d_model):
    what = f"sinusoidal_pe({max_len}, {d_model})"
    pe = as_tensor(student.call("sinusoidal_pe", max_len, d_model), what)
    expected = pe_formula(max_len, d_model)
    with pictured(pe, expected, what, atol=1e-5):
        check_shape(pe, (max_len, d_model), what)
        check_finite(pe, what)
        check_pe_values(pe, expected, what, atol=1e-5)


@pytest.mark.task("sinusoidal_pe", points=1)
def test_odd_d_model_is_value_error(student):
    out = student.attempt("sinusoidal_pe", 8, 7)
    raised(out, "ValueError", "sinusoidal_pe(8, 7)",
           "sin and cos fill columns in pairs (2i, 2i+1), so d_model "
           "must be even: check it and raise ValueError.",
           "sin/cos는 (2i, 2i+1) 쌍으로 열을 채우므로 d_model은 "
           "짝수여야 합니다: 검사해서 ValueError를 발생시키세요.")
    said = repr(out.error.message)
    expect_check(mentions(out.error.message, 7),
                 check("sinusoidal_pe(8, 7)", Said("the ValueError to name the bad value 7",
                                                   "ValueError 메시지에 잘못된 값 7이 있어야 함"),
                       Said(said, f"메시지는 {said}입니다")),
                 Said("{lead}the ValueError should name the bad value 7; its message was {found}.",
                      "{lead}{expected_stem} 하는데 {found}."))
