"""Hidden checks of scaled_dot_product_attention: random sizes, masks and dtypes against the reference."""

import pytest
import torch

from grader.author import fresh_rng
from lesson_attention import REFERENCE
from lesson_attention.checks import check_attention

CALL = "causal_attention.scaled_dot_product_attention"


def _sizes(square=True):
    rng = fresh_rng()
    lead = tuple(rng.randint(1, 3) for _ in range(rng.randint(0, 2)))
    t_q = rng.randint(3, 12)
    # d_k of at least 8: the missing 1/sqrt(d_k) then changes every weight far beyond the tolerance
    return lead, t_q, t_q if square else rng.randint(3, 12), rng.choice([8, 16, 32, 64]), rng.randint(2, 20)


def _random_mask(lead, t_q, t_k):
    """A random bool mask in which every query keeps at least one key (no row with nothing to see)."""
    mask = torch.rand(*lead, t_q, t_k) < 0.4
    keep = torch.randint(0, t_k, (*lead, t_q))
    mask.scatter_(-1, keep.unsqueeze(-1), False)
    return mask


def _check(student, q, k, v, mask, what, atol=1e-5):
    expected = REFERENCE.load().scaled_dot_product_attention(q.double(), k.double(), v.double(), mask)
    args = (q, k, v) if mask is None else (q, k, v, mask)
    check_attention(student.call(CALL, *args), q, k, v, mask, what, expected=expected, atol=atol)


@pytest.mark.task("scaled_dot_product_attention", points=1)
@pytest.mark.parametrize("trial", range(2))
def test_no_mask_random_sizes(student, trial):
    lead, t_q, t_k, d_k, d_v = _sizes(square=False)
    q, k, v = torch.randn(*lead, t_q, d_k), torch.randn(*lead, t_k, d_k), torch.randn(*lead, t_k, d_v)
    _check(student, q, k, v, None, f"scaled_dot_product_attention(q {tuple(q.shape)}, k {tuple(k.shape)}, "
                                   f"v {tuple(v.shape)})")


@pytest.mark.task("scaled_dot_product_attention", points=1)
@pytest.mark.parametrize("trial", range(2))
def test_causal_mask_random_sizes(student, trial):
    lead, t, _, d_k, d_v = _sizes()
    q, k, v = torch.randn(*lead, t, d_k), torch.randn(*lead, t, d_k), torch.randn(*lead, t, d_v)
    mask = torch.ones(t, t, dtype=torch.bool).triu(1)
    _check(student, q, k, v, mask,
           f"scaled_dot_product_attention(q {tuple(q.shape)}, k, v, causal_mask({t}))")


@pytest.mark.task("scaled_dot_product_attention", points=1)
@pytest.mark.parametrize("trial", range(2))
def test_random_masks(student, trial):
    lead, t_q, t_k, d_k, d_v = _sizes(square=False)
    q, k, v = torch.randn(*lead, t_q, d_k), torch.randn(*lead, t_k, d_k), torch.randn(*lead, t_k, d_v)
    mask = _random_mask(lead, t_q, t_k)
    _check(student, q, k, v, mask, f"scaled_dot_product_attention(q {tuple(q.shape)}, k {tuple(k.shape)}, v, "
                                   f"mask {tuple(mask.shape)})")


@pytest.mark.task("scaled_dot_product_attention", points=1)
def test_rows_with_nothing_to_see(student):
    lead, t_q, t_k, d_k, d_v = _sizes(square=False)
    q, k, v = torch.randn(*lead, t_q, d_k), torch.randn(*lead, t_k, d_k), torch.randn(*lead, t_k, d_v)
    mask = _random_mask(lead, t_q, t_k)
    row = fresh_rng().randrange(t_q)
    mask[..., row, :] = True  # one query with every key blocked
    _check(student, q, k, v, mask, f"mask[..., {row}, :] = True; scaled_dot_product_attention(q "
                                   f"{tuple(q.shape)}, k, v, mask)")


@pytest.mark.task("scaled_dot_product_attention", points=1)
def test_float64_stays_float64(student):
    lead, t, _, d_k, d_v = _sizes()
    f64 = torch.float64
    q, k, v = (torch.randn(*lead, t, d_k, dtype=f64), torch.randn(*lead, t, d_k, dtype=f64),
               torch.randn(*lead, t, d_v, dtype=f64))
    mask = torch.ones(t, t, dtype=torch.bool).triu(1)
    _check(student, q, k, v, mask,
           f"scaled_dot_product_attention(q {tuple(q.shape)} float64, k, v, causal_mask({t}))", atol=1e-9)
