"""Public checks of the reversal experiment: data, model shape, a short run, the component check."""

import pytest
import torch

from grader.author import Said, as_tensor, check, check_dtype, check_shape, expect, expect_check
from lesson_embedding_pe import experiment as X

# Every test here reads the component check, which the prefetch may start early (prefetch.py);
# a test that also reads the student's own runs (the `runs` fixture) says so with experiment_runs("student").
pytestmark = pytest.mark.experiment_runs("component")


@pytest.mark.task("reversal_experiment", points=0.5)
def test_make_batch(student):
    ids, targets = student.call("make_batch", 4, 8, 10, generator=None)
    ids = as_tensor(ids, "make_batch ids")
    targets = as_tensor(targets, "make_batch targets")
    check_shape(ids, (4, 8), "make_batch(4, 8) ids")
    check_dtype(ids, torch.int64, "make_batch ids")
    expect_check(bool(((ids >= 0) & (ids < 10)).all()),
                 check("make_batch", Said("ids in [0, 10)", "ids는 [0, 10) 범위여야 함"),
                       Said("values outside", "벗어난 값이 있습니다")))
    expect_check(torch.equal(targets, ids.flip(1)),
                 check("make_batch", Said("targets = ids.flip(1) (each row reversed)",
                                          "targets는 ids.flip(1)(각 행을 뒤집은 것)이어야 함"),
                       Said("something else", "다릅니다"),
                       fix=Said("Without the flip the task is copying, not reversing.",
                                "뒤집지 않으면 복사 태스크가 됩니다.")))


@pytest.mark.task("reversal_experiment", points=0.5)
def test_model_output_shape(student):
    model = student.call("ReversalModel", vocab_size=10, d_model=32, max_len=16, mode="sin",
                         n_layers=1, n_heads=2)
    ids = torch.randint(0, 10, (3, 8))
    out = as_tensor(model.call("__call__", ids), "ReversalModel(ids)")
    check_shape(out, (3, 8, 10), "ReversalModel: logits for ids (3, 8)",
                "One row of vocab_size logits per position.",
                "위치마다 vocab_size개의 logit이 나와야 합니다.")


@pytest.mark.task("reversal_experiment", points=0.5)
def test_no_causal_mask(student):
    """The stub's rule: no mask, every position sees the whole input (position 0 predicts the last token)."""
    X.check_no_causal_mask(student, vocab_size=10, d_model=32, max_len=16, mode="sin", n_layers=1, n_heads=2)


@pytest.mark.task("reversal_experiment", points=0.5)
def test_short_training_run(student):
    _model, losses = student.call("train_reversal", "sin", seed=0, steps=20, timeout=X.train_timeout(20))
    got = len(losses) if isinstance(losses, list) else type(losses).__name__
    expect_check(isinstance(losses, list) and len(losses) == 20,
                 check("train_reversal(steps=20)", Said("20 losses, one per step",
                                                        "스텝마다 하나씩 20개의 손실이 있어야 함"),
                       Said(f"{got}", f"{got}입니다")))
    expect(all(isinstance(v, float) for v in losses),
           "train_reversal: expected each loss as a Python float (loss.item()).",
           "train_reversal: 손실은 Python float(loss.item())이어야 합니다.")
    # The lesson compares runs by seed: the same seed must give the same losses (NaN said as NaN).
    _model, again = student.call("train_reversal", "sin", seed=0, steps=20, timeout=X.train_timeout(20))
    again = list(again) if isinstance(again, list) else []
    X.check_seeded(losses, again, "train_reversal('sin', seed=0, steps=20)",
                   pe_finite=lambda: X.pe_is_finite(student))


@pytest.mark.task("reversal_experiment", points=0.5)
@pytest.mark.parametrize("mode", ["sin", "learned"])
def test_component_check_positions_learn(student, artifacts, mode):
    """The grader's reversal model with your TokenAndPosEmbedding (paper init) must learn to reverse."""
    X.check_component_learns(X.component_runs(student, artifacts, (mode,))[mode], mode, student)

