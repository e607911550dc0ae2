"""Hidden checks of sinusoidal_pe: random sizes against the reference, every error case."""

import pytest
import torch

from grader.author import (
    Cause,
    Said,
    as_tensor,
    check,
    check_dtype,
    check_finite,
    check_shape,
    expect_check,
    fail_check,
    fresh_rng,
    max_diff,
    mentions,
    raised,
)
from lesson_embedding_pe import reference
from lesson_embedding_pe.pe_checks import check_pe_values, diagnose_pe, pictured


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
                                             "float32로 반환하세요: 마지막에 .float()로 변환하세요.",
                    cause="table_dtype")
        check_finite(pe, what)
        check_pe_values(pe, expected, what, atol=1e-4)


@pytest.mark.task("sinusoidal_pe", points=1)
def test_max_len_one(student):
    pe = as_tensor(student.call("sinusoidal_pe", 1, 4), "sinusoidal_pe(1, 4)")
    row = torch.tensor([[0.0, 1.0, 0.0, 1.0]])
    with pictured(pe, row, "sinusoidal_pe(1, 4)", atol=1e-6):
        check_shape(pe, (1, 4), "sinusoidal_pe(1, 4)")
        if max_diff(pe, row) >= 1e-6:
            key, cause_en, cause_ko = diagnose_pe(pe, 1, 4)
            # the Korean sentence puts the note on position 0 after "하는데"; the card shows it with the row
            row_ko, note_ko = "[[0, 1, 0, 1]]이어야", "(0번 위치: sin 0 = 0, cos 0 = 1)"
            fail_check(check("sinusoidal_pe(1, 4)",
                             Said("[[0, 1, 0, 1]] (position 0: sin 0 = 0, cos 0 = 1)",
                                  f"{row_ko} 함 {note_ko}"),
                             Said(f"{pe.tolist()}", f"{pe.tolist()}입니다"),
                             cause=Cause(cause_en, cause_ko, key)),
                       Said("{lead}expected {expected}; found {found}.{tail}",
                            f"{{lead}}{row_ko} 하는데{note_ko} {{found}}.{{tail}}"))


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
    said = repr(out.error.message)
    expect_check(mentions(out.error.message, bad),
                 check(what, Said(f"the ValueError to name the bad value {bad}",
                                  f"ValueError 메시지에 잘못된 값 {bad}가 있어야 함"),
                       Said(said, f"메시지는 {said}입니다")),
                 Said(f"{{lead}}the ValueError should name the bad value {bad}; its message was {{found}}.",
                      "{lead}{expected_stem} 하는데 {found}."))
