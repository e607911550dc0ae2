"""Hidden checks of sinusoidal_pe: random sizes against the reference, every error case."""

import pytest
import torch

from grader.core.feedback import expect, fail
from grader.core.testkit import (
    as_tensor,
    check_dtype,
    check_finite,
    check_shape,
    fresh_rng,
    max_diff,
    mentions,
    raised,
)
from grader.lesson import reference
from grader.lesson.pe_checks import check_pe_values, diagnose_pe, pictured


@pytest.mark.task("sinusoidal_pe", points=3)
@pytest.mark.parametrize("trial", range(3))
def test_matches_reference_on_random_sizes(student, trial):
    rng = fresh_rng()
    # At least 2 positions and 4 columns: at d_model = 2 concatenated and interleaved tables are the same
    # and every base gives frequency 1, so a bug would pass or fail by the submission's seed alone.
    max_len, d_model = rng.randint(2, 300), 2 * rng.randint(2, 64)
    what = f"sinusoidal_pe({max_len}, {d_model})"
    pe = as_tensor(student.call("sinusoidal_pe", max_len, d_model), what)
    expected = reference.load().embedding.sinusoidal_pe(max_len, d_model)
    # float32 rounding of large angles differs by method (pow vs exp/log): 1e-4 is far below any real bug.
    with pictured(pe, expected, what, atol=1e-4):
        check_shape(pe, (max_len, d_model), what)
        check_dtype(pe, torch.float32, what, "Return float32: cast with .float() at the end.",
                                             "float32로 반환하세요: 마지막에 .float()로 변환하세요.")
        check_finite(pe, what)
        check_pe_values(pe, expected, what, atol=1e-4)


@pytest.mark.task("sinusoidal_pe", points=1)
def test_max_len_one(student):
    pe = as_tensor(student.call("sinusoidal_pe", 1, 4), "sinusoidal_pe(1, 4)")
    row = torch.tensor([[0.0, 1.0, 0.0, 1.0]])
    with pictured(pe, row, "sinusoidal_pe(1, 4)", atol=1e-6):
        check_shape(pe, (1, 4), "sinusoidal_pe(1, 4)")
        if max_diff(pe, row) >= 1e-6:
            _key, cause_en, cause_ko = diagnose_pe(pe, 1, 4)
            fail("sinusoidal_pe(1, 4): expected [[0, 1, 0, 1]] (position "
                 f"0: sin 0 = 0, cos 0 = 1); found {pe.tolist()}. Likely cause: {cause_en}",
                 "sinusoidal_pe(1, 4): [[0, 1, 0, 1]]이어야 하는데(0번 "
                 f"위치: sin 0 = 0, cos 0 = 1) {pe.tolist()}입니다. 원인 추정: {cause_ko}")


BAD = [
    ((8, 5), 5, "odd d_model"), ((8, 0), 0, "zero d_model"), ((8, -4), -4, "negative d_model"),
    ((0, 8), 0, "zero max_len"), ((-3, 8), -3, "negative max_len"),
]


@pytest.mark.task("sinusoidal_pe", points=0.5)
@pytest.mark.parametrize("args,bad,label", BAD, ids=[b[2].replace(" ", "_") for b in BAD])
def test_bad_sizes_are_value_errors(student, args, bad, label):
    what = f"sinusoidal_pe{args} ({label})"
    out = student.attempt("sinusoidal_pe", *args)
    raised(out, "ValueError", what,
           "Validate the sizes first: d_model must be a positive even "
           "number (sin/cos fill column pairs) and max_len positive.",
           "먼저 크기를 검사하세요: d_model은 양의 짝수(sin/cos가 "
           "열을 쌍으로 채움), max_len은 양수여야 합니다.")
    expect(mentions(out.error.message, bad),
           f"{what}: the ValueError should name the bad value {bad}; its message was {out.error.message!r}.",
           f"{what}: ValueError 메시지에 잘못된 값 {bad}가 있어야 "
           f"하는데 메시지는 {out.error.message!r}입니다.")
