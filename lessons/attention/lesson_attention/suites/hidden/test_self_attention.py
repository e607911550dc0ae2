"""Hidden checks of CausalSelfAttention: its forward against the reference with its own weights,
causality at random sizes, one head, float64."""

import pytest
import torch

from grader.author import Cause, check_dtype, device_check, fresh_rng
from lesson_attention import REFERENCE
from lesson_attention.checks import (
    AFTER_PHRASE,
    check_causal,
    check_module_output,
    read_weights,
    reference_parts,
    run_layer,
)

CLASS = "causal_attention.CausalSelfAttention"


def _sizes(n_heads=None):
    rng = fresh_rng()
    heads = n_heads or rng.choice([2, 4, 8])
    return heads * rng.randint(2, 8), heads, rng.randint(1, 3), rng.randint(3, 12)


def _expected(weights, x, d_model, n_heads):
    """The reference module given the student's own weights (so their init does not matter)."""
    ref = REFERENCE.load().CausalSelfAttention(d_model, n_heads).double()
    ref.load_state_dict({name: w.double() for name, w in weights.items()})
    with torch.no_grad():
        return ref(x.double())


def _forward_matches(student, d_model, n_heads, batch, t):
    what = f"CausalSelfAttention({d_model}, {n_heads})(x ({batch}, {t}, {d_model}))"
    layer = student.call(CLASS, d_model, n_heads)
    weights = read_weights(layer, what)
    x = torch.randn(batch, t, d_model)
    out, _ = run_layer(student, layer, x, what)  # the reference parts in place: the layer's own work only
    check_module_output(out, x, weights, n_heads, what, expected=_expected(weights, x, d_model, n_heads))


@pytest.mark.task("CausalSelfAttention", points=1.5)
@pytest.mark.parametrize("trial", range(2))
def test_forward_matches_reference(student, trial):
    _forward_matches(student, *_sizes())


@pytest.mark.task("CausalSelfAttention", points=1)
def test_one_head(student):
    _forward_matches(student, *_sizes(n_heads=1))


@pytest.mark.task("CausalSelfAttention", points=1)
def test_causal_at_random_sizes(student):
    d_model, n_heads, batch, t = _sizes()
    cut = fresh_rng().randrange(t - 1)
    layer = student.call(CLASS, d_model, n_heads)
    check_causal(student, layer, torch.randn(batch, t, d_model), cut,
                 f"CausalSelfAttention({d_model}, {n_heads})(x ({batch}, {t}, {d_model}))", n_heads=n_heads)


@pytest.mark.task("CausalSelfAttention", points=1)
def test_double_runs_in_float64(student):
    d_model, n_heads, batch, t = _sizes()
    what = f"CausalSelfAttention({d_model}, {n_heads}).double()(x float64)"
    layer = student.call(CLASS, d_model, n_heads)
    layer.call("double")
    out, _ = run_layer(student, layer, torch.randn(batch, t, d_model, dtype=torch.float64), what)
    check_dtype(out, torch.float64, what, "Make nothing in forward float32 on purpose (no torch.tensor(..., "
                "dtype=torch.float32), no .float()): follow the input's dtype.",
                "forward 안에서 일부러 float32로 만들지 마세요(torch.tensor(..., dtype=torch.float32), "
                ".float() 금지): 입력의 dtype을 따르세요.")


@pytest.mark.task("CausalSelfAttention", points=1)
def test_forward_on_a_gpu(student):
    """On a simulated GPU (the kit's device_check: FakeTensorMode, or the meta device on the CPU wheel)."""
    d_model, n_heads, batch, t = _sizes()
    what = f"CausalSelfAttention({d_model}, {n_heads})"
    layer = student.call(CLASS, d_model, n_heads)
    with reference_parts(student, layer):  # the layer's own tensors on the device, not causal_mask's
        device_check(student, layer, torch.randn(batch, t, d_model), what=what,
                     cause=Cause("forward makes a tensor on the CPU: pass device=x.device to causal_mask "
                                 "(causal_mask(T, device=x.device)) and to any tensor forward makes.",
                                 "forward가 CPU에 텐서를 만듭니다: causal_mask에 device=x.device를 넘기고"
                                 "(causal_mask(T, device=x.device)) forward에서 만드는 다른 텐서에도 "
                                 "넘기세요.", "mask_on_cpu"),
                     template=AFTER_PHRASE)
