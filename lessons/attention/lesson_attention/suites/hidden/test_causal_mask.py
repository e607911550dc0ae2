"""Hidden checks of causal_mask: random sizes against the reference, the device argument, bad sizes."""

import pytest

from grader.author import MetaTensor, Said, check, expect_check, fresh_rng, particle, raised
from lesson_attention import REFERENCE
from lesson_attention.checks import check_mask, check_names


@pytest.mark.task("causal_mask", points=1)
@pytest.mark.parametrize("trial", range(2))
def test_matches_reference_on_random_sizes(student, trial):
    T = fresh_rng().randint(2, 40)
    expected = REFERENCE.load().causal_mask(T)
    check_mask(student.call("causal_attention.causal_mask", T), T, f"causal_mask({T})", expected)


@pytest.mark.task("causal_mask", points=1)
def test_made_on_the_device_asked(student):
    T = fresh_rng().randint(2, 12)
    what = f"causal_mask({T}, device='meta')"
    value = student.call("causal_attention.causal_mask", T, device="meta")
    got = getattr(value, "device", type(value).__name__)
    expect_check(isinstance(value, MetaTensor) and value.device == "meta",
                 check(what, Said("a tensor on device 'meta'", "device 'meta'의 텐서여야 함"),
                       Said(f"{got}", f"{got}입니다"),
                       fix=Said("Pass device= to the tensor you build (torch.ones(T, T, dtype=torch.bool, "
                                "device=device)): the module calls it with x.device, so on a GPU a mask made "
                                "on the CPU fails with a device error.",
                                "만드는 텐서에 device=를 넘기세요(torch.ones(T, T, dtype=torch.bool, "
                                "device=device)): 모듈이 x.device로 부르므로, GPU에서 CPU에 만든 마스크는 "
                                "device 오류가 납니다.")))


@pytest.mark.task("causal_mask", points=0.5)
@pytest.mark.parametrize("bad", [-3, 2.5], ids=["negative", "float"])
def test_bad_sizes_are_value_errors(student, bad):
    what = f"causal_mask({bad})"
    out = student.attempt("causal_attention.causal_mask", bad)
    raised(out, "ValueError", what, "T must be a positive int: check it first and raise ValueError.",
           "T는 양의 정수여야 합니다: 먼저 검사하고 ValueError를 발생시키세요.",
           cause="causal_mask_checks_T")
    if isinstance(bad, int):
        check_names(out.error.message, (bad,), what, f"the bad value {bad}",
                    particle(f"잘못된 값 {bad}", "이"))  # -3이
