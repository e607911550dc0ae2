"""Hidden checks of the reversal experiment: the science and the honesty of the student's run.

The component check (experiment.py, run with the student's embedding)
says whether the embedding works; the student's experiment is trained with
budgets the grader sets and measured by the grader on ids it drew.  Every
number lands in results["artifacts"]["experiment"] for the report.
"""

import random

import pytest
import torch

from grader.author import (
    Cause,
    Said,
    StudentRaised,
    as_tensor,
    check,
    check_shape,
    expect,
    expect_check,
    fail,
    fresh_rng,
)
from lesson_embedding_pe import experiment as X

# Every test here reads the component check, which the prefetch may start early (prefetch.py);
# a test that also reads the student's own runs (the `runs` fixture) says so with experiment_runs("student").
pytestmark = pytest.mark.experiment_runs("component")

B8 = X.bound(8)


@pytest.fixture(scope="module")
def runs(student, artifacts):
    """The student's train_reversal per mode, trained on first use: runs[mode]."""
    return X.StudentExperiment(student, artifacts)


class ShortRuns:
    """Short sin runs (k steps) by seed, each made once: seeds and steps are checked on them."""

    def __init__(self, student):
        rng = fresh_rng()  # keyed by this fixture: a rerun of one test meets the same runs
        self.student = student
        self.k, self.a = rng.randint(3, 9), rng.randint(1, 10_000)
        self.b = self.a + rng.randint(1, 100)
        self.made = []

    def losses(self, i):
        while len(self.made) <= i:
            seed = (self.a, self.a, self.b)[len(self.made)]  # runs 0 and 1 share a seed, run 2 differs
            _model, losses = self.student.call("train_reversal", "sin", seed=seed, steps=self.k,
                                               timeout=X.train_timeout(300))
            self.made.append(losses)
        return self.made[i]


@pytest.fixture(scope="module")
def short_runs(student):
    return ShortRuns(student)


def _raise_run_error(run):
    if "_exc" in run:
        raise run["_exc"]
    if "error" in run:
        fail(run["error"]["en"], run["error"]["ko"], **X.run_failure(run))


# -- component check: none -------------------------------------------------------


@pytest.mark.task("reversal_experiment", points=1)
def test_component_none_sits_on_the_bound_and_is_equivariant(student, artifacts):
    run = X.component_runs(student, artifacts, ("none",))["none"]
    if "error" in run:
        fail("Component check, mode='none': the grader's reversal model "
             f"around your embedding could not run: {run['error']['en']}",
             "컴포넌트 검사, mode='none': 여러분의 임베딩을 넣은 채점기의 "
             f"뒤집기 모델이 실행되지 않았습니다: {run['error']['ko']}", **X.run_failure(run))
    err = run.get("equivariance_error", float("inf"))
    expect(err < 1e-4,
           "Component check, mode='none': permuting the input tokens "
           "should permute the outputs the same way (no position "
           f"information); the largest difference was {err:.3g}. "
           "mode='none' must add no position rows at all.",
           "컴포넌트 검사, mode='none': 입력 토큰의 순서를 바꾸면 출력도 "
           "똑같이 바뀌어야 합니다(위치 정보 없음). 가장 큰 차이가 "
           f"{err:.3g}입니다. mode='none'에서는 위치 행을 전혀 더하지 않아야 합니다.")
    acc, oracle = run["acc_by_length"].get("8", 0.0), run["oracle_by_length"]["8"]
    why = (Cause("Above it, positions leak into mode='none'.",
                 "상한보다 높다면 mode='none'에 위치 정보가 새고 있습니다.") if acc > oracle else
           Cause("Far below it, the token vectors carry too little to learn from.",
                 "훨씬 낮다면 토큰 벡터에 학습할 정보가 부족합니다."))
    # the cause is said after the comparison without its label ("...; found 0.52. Above it, ...")
    expect_check(abs(acc - oracle) <= X.BOUND_MARGIN,
                 check(Said("Component check, mode='none'", "컴포넌트 검사, mode='none'"),
                       Said(f"token accuracy near the bag-of-tokens bound ({oracle:.3f} on the grader's "
                            f"sequences, {B8:.3f} in expectation) after {run['steps']} steps",
                            f"{run['steps']} 스텝 뒤 토큰 정확도가 bag-of-tokens 상한(채점기 시퀀스에서 "
                            f"{oracle:.3f}, 기댓값 {B8:.3f}) 근처여야 함"),
                       Said(f"{acc:.3f}", f"{acc:.3f}입니다"), cause=why),
                 Said("{lead}expected {expected}; found {found}. {cause}",
                      "{lead}{expected_stem} 하는데 {found}. {cause}"))


# -- the student's experiment: the science -------------------------------------------


@pytest.mark.experiment_runs("student")
@pytest.mark.task("reversal_experiment", points=1)
@pytest.mark.parametrize("mode", ["sin", "learned"])
def test_experiment_positions_learn_to_reverse(student, artifacts, runs, mode):
    run = runs[mode]
    _raise_run_error(run)
    if "8" not in run["acc_by_length"]:
        err = run.get("errors", {}).get("8", {"en": "no result", "ko": "결과 없음"})
        fail(f"Your trained {mode} model could not be measured at length 8: {err['en']}",
             f"학습한 {mode} 모델을 길이 8에서 측정할 수 없었습니다: {err['ko']}", **X.error_failure(err))
    acc = run["acc_by_length"]["8"]
    if acc >= X.THRESHOLD:
        return
    comp = X.component_runs(student, artifacts, (mode,))[mode]
    component_ok = comp.get("acc_by_length", {}).get("8", 0.0) >= X.THRESHOLD
    if component_ok and acc <= B8 + 0.1:
        scale = student.probe("embedding_scale", 10, 64, 16, mode, 0)
        if scale["token_std"] > X.LESSON_SCALE_WARN * scale["position_std"]:
            en, ko = X.init_scale_diagnosis(mode, acc, run["steps"], scale)
            X.add_diagnosis(artifacts, en, ko)
            fail(en, ko)
        if acc < B8 - X.BOUND_MARGIN:  # not even what a model without positions learns: training is broken
            fail(f"`{mode}` reached only {acc:.2f} after {run['steps']} steps, below even the bag-of-tokens "
                 f"bound {B8:.3f} that a model without positions reaches, although your embedding learns in "
                 "the grader's harness: your ReversalModel or train_reversal does not learn at all. Check "
                 "that make_batch's targets are ids.flip(1), that each step runs zero_grad, backward and "
                 "step, and that the encoder layer has batch_first=True.",
                 f"`{mode}`가 {run['steps']} 스텝 뒤 {acc:.2f}에 그쳐, 위치 없는 모델도 도달하는 "
                 f"bag-of-tokens 상한 {B8:.3f}보다도 낮습니다. 임베딩은 채점기 모델에서 학습되므로 "
                 "ReversalModel이나 train_reversal이 전혀 학습하지 못합니다. make_batch의 정답이 "
                 "ids.flip(1)인지, 매 스텝 zero_grad, backward, step을 하는지, 인코더 층에 "
                 "batch_first=True가 있는지 확인하세요.")
        fail(f"`{mode}` sits on the bag-of-tokens bound ({acc:.2f} after "
             f"{run['steps']} steps, bound {B8:.3f}) although "
             "your embedding learns in the grader's harness: the positions "
             "are lost in your ReversalModel or train_reversal. "
             "Check that ReversalModel passes `mode` on to "
             "TokenAndPosEmbedding, and the learning rate (1e-3 with Adam works).",
             f"`{mode}`가 bag-of-tokens 상한에 멈춰 있습니다({run['steps']} 스텝 "
             f"뒤 {acc:.2f}, 상한 {B8:.3f}). 그런데 임베딩은 채점기 "
             "모델에서는 학습됩니다: ReversalModel이나 train_reversal에서 "
             "위치 정보가 사라집니다. ReversalModel이 `mode`를 "
             f"TokenAndPosEmbedding에 넘기는지, 학습률(Adam 1e-3이면 충분)을 확인하세요.")
    if not component_ok:
        fail(f"`{mode}` reached only {acc:.2f} at length 8 after "
             f"{run['steps']} steps, and your embedding also fails the "
             f"component check: fix TokenAndPosEmbedding (mode='{mode}') first.",
             f"`{mode}`가 {run['steps']} 스텝 뒤 길이 8에서 {acc:.2f}에 "
             "그쳤고, 임베딩도 컴포넌트 검사를 통과하지 못했습니다: "
             f"TokenAndPosEmbedding(mode='{mode}')부터 고치세요.")
    fail(f"`{mode}` reached only {acc:.2f} at length 8 after "
         f"{run['steps']} steps (measured by the grader on fresh "
         f"sequences); the reference reaches {X.THRESHOLD} within ~100. Check the loss (CrossEntropyLoss on "
         "logits.reshape(-1, vocab) against targets.reshape(-1)), "
         "zero_grad/backward/step, the learning rate, and that "
         f"the encoder runs without a mask.",
         f"`{mode}`가 {run['steps']} 스텝 뒤 길이 8에서 {acc:.2f}에 "
         "그쳤습니다(채점기가 새 시퀀스로 측정). 참고 구현은 ~100 스텝 안에 "
         f"{X.THRESHOLD}에 도달합니다. 손실(logits.reshape(-1, "
         "vocab)와 targets.reshape(-1)의 CrossEntropyLoss), "
         f"zero_grad/backward/step 순서, 학습률, 인코더를 마스크 없이 호출하는지 확인하세요.")


@pytest.mark.experiment_runs("student")
@pytest.mark.task("reversal_experiment", points=1)
def test_experiment_none_stays_on_the_bound(artifacts, runs):
    run = runs["none"]
    _raise_run_error(run)
    en, ko = X.ten_percent_note()
    X.add_diagnosis(artifacts, en, ko)
    measured = (("the grader", run["acc_by_length"]), ("your evaluate", run.get("student_acc_by_length", {})))
    for who, accs in measured:
        for n in X.EVAL_LENGTHS:
            acc = accs.get(str(n))
            if acc is not None and acc > X.bound(n) + X.BOUND_MARGIN:
                den, dko = X.none_beats_bound_diagnosis(acc, n)
                X.add_diagnosis(artifacts, den, dko)
                fail(f"Measured by {who}: {den}",
                     f"{'채점기' if who == 'the grader' else '여러분의 evaluate'} 측정: {dko}")


@pytest.mark.experiment_runs("student")
@pytest.mark.task("reversal_experiment", points=0.5)
def test_length_generalisation_measured(runs):
    """Train at 8, evaluate at 12: both modes run, and evaluate at 12 agrees with the grader."""
    for mode in ("sin", "learned"):
        run = runs[mode]
        _raise_run_error(run)
        err = run.get("errors", {}).get("12")
        if err:
            extra_en = (" For `learned` the position table needs max_len >= 12 (ReversalModel's default "
                        "max_len is 16)." if mode == "learned" else "")
            extra_ko = (" `learned`는 위치 표의 max_len이 12 이상이어야 합니다(ReversalModel 기본 max_len은 "
                        "16)." if mode == "learned" else "")
            fail(f"Evaluating your trained `{mode}` model at length 12 failed: {err['en']}.{extra_en}",
                 f"학습한 `{mode}` 모델을 길이 12에서 평가하지 못했습니다: {err['ko']}.{extra_ko}",
                 **X.error_failure(err))
        mine, ours = run["student_acc_by_length"].get("12"), run["acc_by_length"]["12"]
        if mine is not None and abs(mine - ours) <= 0.06:
            continue
        why = _why_evaluate_disagrees(runs)
        fail(f"evaluate(model, 12) on your trained `{mode}` model said "
             f"{mine}, the grader measured {ours:.3f} on fresh "
             f"length-12 sequences: {why[0]}.",
             f"학습한 `{mode}` 모델에 evaluate(model, 12)는 {mine}라고 "
             f"했지만 채점기는 길이 12의 새 시퀀스에서 {ours:.3f}를 "
             f"측정했습니다: {why[1]}.")


def _why_evaluate_disagrees(runs) -> tuple[str, str]:
    """evaluate disagrees with the grader at length 12: at the trained length too (in any mode: a sequence
    accuracy shows against `none`'s token accuracy), the scoring is the cause, else the length it builds."""
    for m in ("none", "sin", "learned"):
        at8, ours8 = (runs[m].get(k, {}).get("8") for k in ("student_acc_by_length", "acc_by_length"))
        if at8 is not None and ours8 is not None and abs(at8 - ours8) > 0.06:
            return (f"it said {at8} at length 8 too (`{m}`; the grader: {ours8:.3f}), so the cause is how it "
                    "scores, not the length: return the share of tokens equal to ids.flip(1)",
                    f"길이 8에서도 {at8}였으므로(`{m}`; 채점기: {ours8:.3f}) 길이가 아니라 채점 방식이 "
                    "원인입니다: ids.flip(1)과 같은 토큰의 비율을 반환하세요")
    return ("evaluate must build sequences of the length it is given",
            "evaluate는 주어진 길이로 시퀀스를 만들어야 합니다")


# -- honesty ---------------------------------------------------------------------------


@pytest.mark.task("reversal_experiment", points=0.5)
def test_same_seed_same_losses(student, short_runs):
    k, a, b = short_runs.k, short_runs.a, short_runs.b
    first, again, other = (short_runs.losses(i) for i in range(3))
    X.check_seeded(first, again, f"train_reversal('sin', seed={a}, steps={k})",
                   pe_finite=lambda: X.pe_is_finite(student))
    expect(first != other,
           f"seeds {a} and {b} gave exactly the same losses: `seed` is "
           "ignored (a hard-coded seed?). Seed with the argument.",
           f"시드 {a}와 {b}의 손실이 완전히 같습니다: `seed` 인자를 "
           "무시하고 있습니다(고정된 시드?). 인자로 받은 seed를 쓰세요.")


@pytest.mark.task("reversal_experiment", points=0.5)
def test_steps_are_respected(student, short_runs):
    k, first = short_runs.k, short_runs.losses(0)
    expect_check(len(first) == k,
                 check(f"train_reversal(steps={k})",
                       Said(f"{k} losses (one per step)", f"스텝마다 하나씩 {k}개의 손실이 있어야 함"),
                       Said(f"{len(first)}", f"{len(first)}개입니다"),
                       cause=Cause("the loop ignores `steps`", "루프가 `steps`를 무시합니다",
                                   "steps_ignored"),
                       fix=Said("Loop `for _ in range(steps)`; the grader sets the budget through it.",
                                "`for _ in range(steps)`로 도세요. 채점기는 이 인자로 학습 예산을 "
                                "정합니다.")),
                 Said("{lead}expected {expected}; found {found}: {cause}. {fix}",
                      "{lead}{expected_stem} 하는데 {found}: {cause}. {fix}"))
    j = random.randint(2, 5)
    try:
        rows = student.call("run_experiment", modes=("learned", "none"), seeds=(0,), steps=j, train_length=8,
                            eval_lengths=(8, 12), timeout=X.train_timeout(600))
    except StudentRaised as exc:
        if exc.type_name != "IndexError":
            raise
        fail(f"run_experiment(train_length=8, eval_lengths=(8, 12)) raised IndexError: {exc.message[:200]}. "
             "The model it trains has too few positions for the length-12 evaluation: build it with "
             "max_len >= max(eval_lengths) (train_reversal(..., max_len=...)).",
             f"run_experiment(train_length=8, eval_lengths=(8, 12))에서 IndexError가 발생했습니다: "
             f"{exc.message[:200]}. 학습한 모델의 위치 수가 길이 12 평가에 모자랍니다: "
             "max_len >= max(eval_lengths)로 만드세요(train_reversal(..., max_len=...)).")
    kind = type(rows).__name__
    expect_check(isinstance(rows, list) and len(rows) == 2 and all(isinstance(r, dict) for r in rows),
                 check("run_experiment(modes=('learned', 'none'), seeds=(0,))",
                       Said("a list of 2 dicts, one per (mode, seed)",
                            "(mode, seed)마다 하나씩 dict 2개의 리스트여야 함"),
                       Said(f"{kind} of {len(rows) if isinstance(rows, list) else '?'}", f"{kind}입니다")))
    for row in rows:
        missing = {"mode", "seed", "steps", "final_train_loss", "acc_by_length"} - set(row)
        expect(not missing, "run_experiment rows need the keys mode, seed, steps, "
                            f"final_train_loss, acc_by_length; missing {sorted(missing)}.",
               "run_experiment의 각 행에는 mode, seed, steps, final_train_loss, "
               f"acc_by_length 키가 있어야 하는데 {sorted(missing)}가 없습니다.")
        expect(row["steps"] == j,
               f"run_experiment(steps={j}): the row of {row['mode']} says "
               f"steps={row['steps']}: pass `steps` on to train_reversal.",
               f"run_experiment(steps={j}): {row['mode']} 행의 steps가 "
               f"{row['steps']}입니다: `steps`를 train_reversal에 넘기세요.")
        lengths = {int(n) for n in row["acc_by_length"]}
        expect(lengths == {8, 12},
               "run_experiment(eval_lengths=(8, 12)): acc_by_length of "
               f"{row['mode']} has lengths {sorted(lengths)}; expected 8 and 12.",
               f"run_experiment(eval_lengths=(8, 12)): {row['mode']}의 "
               f"acc_by_length 길이가 {sorted(lengths)}입니다. 8과 12여야 합니다.")


def _spy_evaluate(student, length, n_samples, seed):
    spy = student.probe("spy_model", 10)
    reported = student.call("evaluate", spy, length, n_samples=n_samples, seed=seed, timeout=60)
    return reported, student.probe("spy_report", spy)


@pytest.mark.task("reversal_experiment", points=0.5)
def test_evaluate_uses_fresh_data_of_the_given_length(student):
    seed1, seed2 = random.sample(range(1, 100_000), 2)
    _r1, rep1 = _spy_evaluate(student, 12, 400, seed1)
    expect(rep1["calls"] > 0, "evaluate(model, 12) never called the model: it "
                              "must run the model on fresh sequences.",
           "evaluate(model, 12)가 모델을 한 번도 호출하지 않았습니다: 새 시퀀스로 모델을 실행해야 합니다.")
    expect(rep1["widths"] == [12],
           "evaluate(model, 12): expected sequences of length 12; the model was fed "
           f"lengths {rep1['widths']}: evaluate ignores `length` (a fixed eval batch?).",
           "evaluate(model, 12): 길이 12의 시퀀스를 기대했는데 모델에 들어간 길이는 "
           f"{rep1['widths']}입니다: evaluate가 `length`를 무시합니다(고정된 평가 배치?).")
    expect(rep1["rows"] >= 200,
           f"evaluate(model, 12, n_samples=400): the model saw only {rep1['rows']} "
           "sequences: evaluate on n_samples fresh sequences, not one training batch.",
           f"evaluate(model, 12, n_samples=400): 모델이 {rep1['rows']}개 시퀀스만 "
           "봤습니다: 학습 배치 하나가 아니라 n_samples개의 새 시퀀스로 평가하세요.")
    ids = rep1["ids"]
    freq = torch.bincount(ids.flatten().clamp(0, 9), minlength=10).double() / max(ids.numel(), 1)
    expect(ids.numel() > 0 and float(freq.min()) > 0.05 and int(ids.max()) < 10 and int(ids.min()) >= 0,
           "evaluate: the sequences it feeds should be uniform random ids in [0, 10); these are not.",
           "evaluate: 모델에 넣는 시퀀스는 [0, 10)의 균등한 랜덤 id여야 하는데 그렇지 않습니다.")
    _r2, rep2 = _spy_evaluate(student, 12, 400, seed2)
    same = rep2["ids"].shape == ids.shape and torch.equal(rep2["ids"], ids)
    expect(not same,
           f"evaluate with seed={seed1} and seed={seed2} fed the model the "
           "very same sequences: the data is fixed, not fresh "
           f"(and may well be a training batch). Draw them from torch.Generator().manual_seed(seed).",
           f"seed={seed1}와 seed={seed2}로 evaluate를 불렀는데 모델에 "
           "완전히 같은 시퀀스가 들어갔습니다: 새 데이터가 아니라 "
           f"고정된 데이터입니다(학습 배치일 수도 있습니다). torch.Generator().manual_seed(seed)로 뽑으세요.")


@pytest.mark.task("reversal_experiment", points=0.5)
def test_evaluate_in_eval_mode_against_reversed_targets(student):
    reported, rep = _spy_evaluate(student, 8, 400, random.randint(1, 100_000))
    expect(rep["calls"] > 0 and not any(rep["training_flags"]),
           "evaluate ran the model in training mode: call model.eval() "
           "first (dropout would perturb the predictions; "
           "train_reversal's model may come back in train mode).",
           "evaluate가 모델을 학습 모드로 실행했습니다: 먼저 "
           "model.eval()을 호출하세요(dropout이 예측을 흔듭니다; "
           "train_reversal이 돌려준 모델은 학습 모드일 수 있습니다).")
    # The spy predicts each input token (copy): right only where ids[t] == ids[T-1-t].
    truth = X.accuracy(rep["ids"], rep["ids"])
    copies = isinstance(reported, float) and reported > 0.9
    cause_en = ("It compares predictions with the inputs, not with ids.flip(1)." if copies
                else "Compute (model(ids).argmax(-1) == ids.flip(1)).float().mean().item().")
    cause_ko = ("ids.flip(1)이 아니라 입력과 비교하고 있습니다." if copies
                else "(model(ids).argmax(-1) == ids.flip(1)).float().mean().item()로 계산하세요.")
    expect(isinstance(reported, float) and abs(reported - truth) <= 0.02,
           f"evaluate: a test model that copies its input scores {truth:.3f} against the reversed targets, "
           f"but evaluate reported {reported}. {cause_en}",
           f"evaluate: 입력을 그대로 복사하는 테스트 모델의 정답률은 뒤집은 정답 기준 {truth:.3f}인데 "
           f"evaluate는 {reported}를 보고했습니다. {cause_ko}")


@pytest.mark.task("reversal_experiment", points=0.5)
@pytest.mark.parametrize("mode", ["none", "sin", "learned"])
def test_untrained_model_scores_near_chance(student, mode):
    torch.manual_seed(random.randint(0, 10_000))
    student.probe("seed", random.randint(0, 10_000))
    model = student.call("ReversalModel", mode=mode)
    model.call("eval")
    ids = X.fresh_batch(400, 8)
    logits = as_tensor(model.call("__call__", ids), "ReversalModel(ids)")
    check_shape(logits, (400, 8, 10), f"ReversalModel(mode='{mode}') logits")
    acc = X.accuracy(logits, ids)
    expect(acc < 0.3,
           f"An untrained ReversalModel(mode='{mode}') already scores "
           f"{acc:.2f} on reversal (chance is 0.10): the model "
           "is handed the answer (for example it flips its input). "
           "Accuracy must come from training, so this earns nothing.",
           f"학습하지 않은 ReversalModel(mode='{mode}')이 벌써 뒤집기 "
           f"정답률 {acc:.2f}입니다(우연 수준 0.10): 모델에 정답이 "
           f"들어가 있습니다(예: 입력을 뒤집음). 정확도는 학습으로 얻어야 하므로 점수가 없습니다.")


@pytest.mark.task("reversal_experiment", points=0.5)
def test_no_causal_mask(student):
    X.check_no_causal_mask(student, mode="sin")


@pytest.mark.experiment_runs("student")
@pytest.mark.task("reversal_experiment", points=0.5)
def test_trained_on_reversed_targets(runs):
    run = runs["sin"]
    _raise_run_error(run)
    acc, copy = run["acc_by_length"].get("8", 0.0), run.get("copy_acc_8", 0.0)
    expect(not (copy >= 0.8 and acc < 0.5),
           f"Your trained `sin` model copies its input ({copy:.2f} on the "
           f"copy task) instead of reversing it ({acc:.2f}): "
           f"train_reversal trains on the wrong targets. The targets are ids.flip(1).",
           "학습한 `sin` 모델이 입력을 뒤집지 않고 복사합니다(복사 "
           f"정답률 {copy:.2f}, 뒤집기 {acc:.2f}): train_reversal이 "
           f"잘못된 정답으로 학습합니다. 정답은 ids.flip(1)입니다.")
    expect(not (run["final_train_loss"] < 0.3 and acc < 0.5),
           "Your `sin` run ends with a low training loss "
           f"({run['final_train_loss']:.3f}) yet reverses only {acc:.2f} of the "
           "tokens of fresh sequences: the loss is computed against "
           "the wrong targets (they must be ids.flip(1)).",
           "`sin` 학습의 마지막 손실은 "
           f"낮은데({run['final_train_loss']:.3f}) 새 시퀀스는 {acc:.2f}만 뒤집습니다: 손실을 "
           f"잘못된 정답(ids.flip(1)이어야 함)으로 계산하고 있습니다.")
