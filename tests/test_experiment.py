"""The reversal experiment's grading: the bound, the reference, each honesty failure, the init diagnosis.

Every submission under tests/corpus_experiment/<case>/ is the reference with
one thing changed; each is graded for real (worker, probes, suites), with a
pytest -k filter that runs only the tests the case is about, to stay fast.
"""

from __future__ import annotations

import itertools
import json
import shutil
from collections import Counter, defaultdict
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest
import torch

from grader.engine.runner import GradeOptions, grade_path
from lesson_embedding_pe import experiment as X

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus_experiment"


@cache
def grade(case: str, keyword: str) -> dict:
    results = grade_path(CORPUS / case, GradeOptions(hidden=True, keyword=keyword))
    json.dumps(results)  # results.json must serialise
    return results


def by_name(results: dict) -> dict[str, dict]:
    return {t["id"].split("::", 1)[1]: t for t in results["tests"]}


# -- the bound ------------------------------------------------------------------


def brute_force_bound(length: int, vocab: int) -> Fraction:
    """Best accuracy of any predictor that sees only (own token, multiset): enumerate everything."""
    wins: dict[tuple, Counter] = defaultdict(Counter)
    for seq in itertools.product(range(vocab), repeat=length):
        bag = tuple(sorted(seq))
        for t in range(length):
            wins[(seq[t], bag)][seq[length - 1 - t]] += 1
    best = sum(max(c.values()) for c in wins.values())
    return Fraction(best, vocab**length * length)


@pytest.mark.parametrize("length,vocab", [(3, 3), (4, 3), (2, 3), (5, 2), (4, 4), (6, 2), (1, 3)])
def test_bound_matches_brute_force(length, vocab):
    exact, method = X.bag_of_tokens_bound(length, vocab)
    assert method == "exact"
    assert exact == pytest.approx(float(brute_force_bound(length, vocab)), abs=1e-12)


def test_bound_values_of_the_lesson_and_estimate():
    assert X.bound(8) == pytest.approx(0.317, abs=5e-4)
    assert X.bound(12) == pytest.approx(0.266, abs=5e-4)
    estimate, method = X.bag_of_tokens_bound(8, 10, exact_limit=0, samples=100_000, seed=3)
    assert method.startswith("estimate")
    assert estimate == pytest.approx(X.bound(8), abs=0.004)
    assert (X.bag_of_tokens_bound(8, 10, exact_limit=0, samples=1000, seed=5)
            == X.bag_of_tokens_bound(8, 10, exact_limit=0, samples=1000, seed=5))
    ids = X.fresh_batch(4000, 8, seed=1)
    assert X.bound_on_batch(ids) == pytest.approx(X.bound(8), abs=0.006)
    assert X.bound_on_batch(X.fresh_batch(4000, 7, seed=1)) == pytest.approx(X.bound(7), abs=0.006)


# -- the reference -----------------------------------------------------------------


@pytest.fixture(scope="module")
def reference(reference_results: dict) -> dict:
    """The reference graded with the hidden suite (tests/conftest.py: once for the run, the grade other
    modules read too), not again with ``-k reversal``: tests/test_prefetch.py holds the two to the same
    component runs and the same verdicts."""
    return reference_results


def test_reference_gets_every_reversal_point(reference):
    reversal = [t for t in reference["tests"] if t["task"] == "reversal_experiment"]
    assert all(t["status"] == "passed" for t in reversal), [(t["id"], t["message"]) for t in reversal
                                                            if t["status"] != "passed"]
    total = sum(t["max_score"] for t in reversal)
    public = sum(t["max_score"] for t in reversal if t["id"].startswith("public/"))
    assert total == pytest.approx(12) and public == pytest.approx(3)


def test_reference_artifacts_follow_the_schema(reference):
    exp = reference["artifacts"]["experiment"]
    assert exp["schema"] == 1 and exp["bound"] == {"8": pytest.approx(0.317, abs=1e-3),
                                                   "12": pytest.approx(0.266, abs=1e-3)}
    comp = {r["mode"]: r for r in exp["component"]["runs"]}
    assert set(comp) == {"sin", "learned", "none"}
    assert comp["sin"]["reached_threshold_at"] and comp["learned"]["reached_threshold_at"]
    assert comp["none"]["equivariance_error"] < 1e-4
    runs = {r["mode"]: r for r in exp["student"]["runs"]}
    for mode in ("sin", "learned"):
        run = runs[mode]
        assert run["acc_by_length"]["8"] >= 0.95 and run["acc_by_length"]["12"] < 0.5
        assert (len(run["loss_curve"]) == run["steps"]
                and run["bound_by_length"]["12"] == pytest.approx(0.266, abs=1e-3))
        assert any("length 12" in n["en"] for n in run["notes"])
    assert "never trained" in " ".join(n["en"] for n in runs["learned"]["notes"])
    assert abs(runs["none"]["acc_by_length"]["8"] - X.bound(8)) < 0.06
    assert set(exp["student"]["means"]) == {"none", "sin", "learned"}
    assert any("10%" in d["en"] for d in exp["diagnosis"])
    # Fast: the student part of the reference is one run of each mode (see STUDENT_BUDGET).
    assert [r["steps"] for r in exp["student"]["runs"]] == [60, 150, 100]


# -- one failure, one message --------------------------------------------------------

HONESTY = [
    # case, -k filter, failing test, words the English message must hold, and the Korean one
    ("unseeded", "same_seed", "test_same_seed_same_losses", "not seeded", "시드가 고정되지"),
    ("ignores_steps", "steps_are_respected", "test_steps_are_respected", "ignores `steps`", "무시합니다"),
    ("causal_mask", "no_causal_mask", "test_no_causal_mask", "causal mask", "causal 마스크"),
    ("train_copy_targets", "reversed_targets", "test_trained_on_reversed_targets", "wrong targets",
     "잘못된 정답"),
    ("eval_train_mode", "eval_mode_against", "test_evaluate_in_eval_mode_against_reversed_targets",
     "training mode", "학습 모드"),
    ("eval_no_flip", "eval_mode_against", "test_evaluate_in_eval_mode_against_reversed_targets",
     "not with ids.flip(1)", "입력과 비교"),
    ("eval_fixed_length", "given_length", "test_evaluate_uses_fresh_data_of_the_given_length",
     "ignores `length`", "`length`를 무시"),
    ("eval_fixed_data", "given_length", "test_evaluate_uses_fresh_data_of_the_given_length",
     "very same sequences", "같은 시퀀스"),
    ("cheat_flip", "untrained", "test_untrained_model_scores_near_chance[sin]", "handed the answer",
     "정답이"),
    ("data_no_flip", "none_stays", "test_experiment_none_stays_on_the_bound", "data bug", "데이터 버그"),
    # round 10: each was told another cause (positions lost, a causal mask, the length, forward)
    ("data_flip_batch", "positions_learn_to_reverse and sin",
     "test_experiment_positions_learn_to_reverse[sin]", "below even the bag-of-tokens bound",
     "보다도 낮습니다"),
    ("not_batch_first", "no_causal_mask", "test_no_causal_mask", "batch_first=True", "배치끼리"),
    ("eval_sequence_accuracy", "length_generalisation", "test_length_generalisation_measured",
     "how it scores", "채점 방식"),
    ("max_len_below_eval", "steps_are_respected", "test_steps_are_respected", "max_len >= max(eval_lengths)",
     "max_len >= max(eval_lengths)"),
    ("learned_zero_init", "component_check_positions_learn and learned",
     "test_component_check_positions_learn[learned]", "position table's init", "위치 표의 초기화"),
]


@pytest.mark.parametrize("case,keyword,test,en,ko", HONESTY, ids=[h[0] for h in HONESTY])
def test_each_honesty_failure_has_its_own_message(case, keyword, test, en, ko):
    tests = by_name(grade(case, keyword))
    assert test in tests, sorted(tests)
    entry = tests[test]
    assert entry["status"] == "failed", entry
    assert en in entry["messages"]["en"], entry["messages"]["en"]
    assert ko in entry["messages"]["ko"], entry["messages"]["ko"]
    if case == "ignores_steps":  # the record names the cause the words give after the count
        record = entry["feedback"]
        assert record["cause"]["key"] == "steps_ignored" and record["found"]["en"].isdigit(), record
    others = [h for h in HONESTY if h[2] == test and h[0] != case]
    for other in others:  # the same test says something else for a different bug
        assert other[3] not in entry["messages"]["en"]


def test_reference_passes_each_honesty_filter(reference):
    passed = {t["id"].split("::", 1)[1] for t in reference["tests"] if t["status"] == "passed"}
    assert {h[2] for h in HONESTY} <= passed


# -- the lesson's init: the embedding is right, the experiment stalls, we say why -------------


@pytest.fixture(scope="module")
def lesson_init():
    return grade("lesson_init", "component or positions_learn")


def test_lesson_init_passes_the_component_check(lesson_init):
    tests = by_name(lesson_init)
    for mode in ("sin", "learned"):
        assert tests[f"test_component_check_positions_learn[{mode}]"]["status"] == "passed"
    assert tests["test_component_none_sits_on_the_bound_and_is_equivariant"]["status"] == "passed"


def test_lesson_init_fails_the_experiment_with_the_diagnosis(lesson_init):
    entry = by_name(lesson_init)["test_experiment_positions_learn_to_reverse[sin]"]
    assert entry["status"] == "failed"
    en, ko = entry["messages"]["en"], entry["messages"]["ko"]
    for words in ("bag-of-tokens bound", "std=d_model ** -0.5", "2,500", "x smaller"):
        assert words in en, en
    for words in ("초기화", "std=d_model ** -0.5", "2,500"):
        assert words in ko, ko
    exp = lesson_init["artifacts"]["experiment"]
    assert any("initialis" in d["en"] for d in exp["diagnosis"])
    sin = next(r for r in exp["student"]["runs"] if r["mode"] == "sin")
    assert abs(sin["acc_by_length"]["8"] - X.bound(8)) < 0.06
    assert any("bound" in n["en"] for n in sin["notes"])


def test_equivariance_error_and_accuracy_helpers():
    ids = X.fresh_batch(5, 8, seed=2)
    perm = torch.randperm(8)
    out = torch.randn(5, 8, 3)
    assert X.equivariance_error(out, out[:, perm], perm) == 0.0
    assert X.accuracy(ids.flip(1), ids) == 1.0
    assert X.copy_accuracy(torch.nn.functional.one_hot(ids, 10).float(), ids) == 1.0


def test_the_public_suite_sees_a_train_reversal_that_never_seeds() -> None:
    """The lesson compares runs by seed: an unseeded train_reversal loses a public point, told why."""
    from tests.conftest import CORPUS, failed_messages, grade

    results = grade(CORPUS / "bug_reversal_unseeded", hidden=False, keyword="reversal_experiment")
    task = results["tasks"]["reversal_experiment"]
    assert task["score"] < task["max_score"]
    assert "not seeded" in failed_messages(results, "reversal_experiment")
    assert "시드가 고정되지 않아서" in failed_messages(results, "reversal_experiment", "ko")


def test_a_nan_loss_is_said_as_nan_and_where_it_comes_from_never_as_not_seeded() -> None:
    """NaN != NaN: two NaN runs would otherwise read as "not seeded"."""
    from grader.core.feedback import GradeFailure
    from lesson_embedding_pe import experiment as X

    nan = float("nan")
    for first, where in (([nan, nan, nan], "forward pass"), ([2.3, 1.9, nan], "diverged")):
        with pytest.raises(GradeFailure) as raised:
            X.check_seeded(first, list(first), "train_reversal('sin', seed=0, steps=3)")
        en, ko = raised.value.message.en, raised.value.message.ko
        assert "nan loss at step" in en and where in en and "not seeded" not in en, en
        assert "nan입니다" in ko and "시드" not in ko, ko
    X.check_seeded([2.3, 1.9], [2.3, 1.9], "train_reversal")  # seeded and finite: passes
    # where the first NaN comes from: the student's encoding when it holds one, else after it
    for finite, where_en, where_ko in ((False, "fix sinusoidal_pe first", "sinusoidal_pe부터 고치세요"),
                                       (True, "sinusoidal_pe(16, 32) is finite", "유한합니다")):
        with pytest.raises(GradeFailure) as raised:
            X.check_seeded([nan], [nan], "train_reversal", pe_finite=lambda finite=finite: finite)
        assert where_en in raised.value.message.en and where_ko in raised.value.message.ko


def test_a_nan_from_the_encoding_is_traced_to_sinusoidal_pe(tmp_path: Path) -> None:
    """A real submission whose sinusoidal_pe divides by sin(0): the reversal run's NaN names it."""
    for f in (ROOT / "examples" / "reference").iterdir():
        if f.is_file():  # not a bytecode cache
            shutil.copy(f, tmp_path / f.name)
    code = (tmp_path / "embedding.py").read_text(encoding="utf-8")
    planted = code.replace("    return torch.tensor(table, dtype=torch.float64).float()\n",
                           "    pe = torch.tensor(table, dtype=torch.float64).float()\n"
                           "    return pe / pe[:, 0:1]  # 'normalised' by column 0: sin(0) = 0\n", 1)
    assert planted != code
    (tmp_path / "embedding.py").write_text(planted, encoding="utf-8")
    results = grade_path(tmp_path, GradeOptions(hidden=False, keyword="test_short_training_run"))
    en = "\n".join(t["messages"]["en"] for t in results["tests"] if t["status"] != "passed")
    assert "nan loss at step 1" in en and "fix sinusoidal_pe first" in en and "not seeded" not in en, en


def test_nan_losses_kept_as_tensors_are_nan_not_unseeded(tmp_path: Path) -> None:
    """train_reversal keeping `loss.detach()` (0-d tensors) with an encoding that makes NaN: the hidden
    reproducibility check reads the numbers and says NaN and where from, never "not seeded" (a NaN
    tensor equals nothing, so two identical runs compared as they are read as unseeded)."""
    import torch

    from grader.core.feedback import GradeFailure
    from lesson_embedding_pe import experiment as X

    nan = torch.tensor(float("nan"))
    with pytest.raises(GradeFailure) as raised:
        X.check_seeded([nan, nan], [nan, nan], "train_reversal")
    assert "nan loss at step 1" in raised.value.message.en and "not seeded" not in raised.value.message.en
    X.check_seeded([torch.tensor(2.5), 1.5], [2.5, torch.tensor(1.5)], "train_reversal")  # the same numbers
    for f in (ROOT / "solutions").iterdir():
        if f.is_file():  # not a bytecode cache
            shutil.copy(f, tmp_path / f.name)
    code = (tmp_path / "embedding.py").read_text(encoding="utf-8")
    planted = code.replace("    angle = pos * torch.exp(i2 * (-math.log(10000.0) / d_model))",
                           "    angle = pos / (i2 * 0.0)  # 0/0 and p/0: NaN and inf", 1)
    loop = (tmp_path / "reversal.py").read_text(encoding="utf-8")
    kept = loop.replace("losses.append(loss.item())", "losses.append(loss.detach())", 1)
    assert planted != code and kept != loop
    (tmp_path / "embedding.py").write_text(planted, encoding="utf-8")
    (tmp_path / "reversal.py").write_text(kept, encoding="utf-8")
    results = grade_path(tmp_path, GradeOptions(hidden=True, keyword="test_same_seed_same_losses"))
    (test,) = [t for t in results["tests"] if t["id"].endswith("test_same_seed_same_losses")]
    en = test["messages"]["en"]
    assert "nan loss at step 1" in en and "fix sinusoidal_pe first" in en
    assert "not seeded" not in test["messages"]["en"] and "시드가 고정되지" not in test["messages"]["ko"]
