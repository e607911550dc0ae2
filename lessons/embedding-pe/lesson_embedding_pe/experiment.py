"""The reversal experiment, graded: the bag-of-tokens bound, budgets, the grader's runs.

Two kinds of check share this module (see lesson_embedding_pe/suites/*/test_reversal.py):

* the **component check**: the grader's own reversal harness (encoder, loop,
  budget; ``probe_reversal_component`` in lesson_embedding_pe/probes.py, run in the worker)
  with the student's ``TokenAndPosEmbedding`` plugged in and its token weights
  re-initialised at the paper's scale (std ``d_model**-0.5``), so a correct
  embedding is graded on its own merit;
* the **student's experiment**: their ``train_reversal`` with a step budget the
  grader sets, every model measured by the grader itself (forward on ids the
  grader drew) and by the student's ``evaluate``.

Numbers are kept for the report writer in ``artifacts["experiment"]`` and so end
up in ``results.json`` as ``results["artifacts"]["experiment"]``.  Schema
(version 1; lengths are JSON object keys, so they are strings such as ``"8"``)::

    {
      "schema": 1,
      "vocab_size": 10, "train_length": 8, "eval_lengths": [8, 12],
      "threshold": 0.95,                         # accuracy that counts as "learned"
      "bound": {"8": 0.3171, "12": 0.2660},      # bag-of-tokens bound per length
      "bound_method": "exact",                   # or "estimate (seeded, N samples)"
      "chance": 0.1,                             # 1 / vocab_size: the lesson's guess
      "component": {                              # absent until a component test ran
        "harness": {...},                        # HARNESS below
        "runs": [RUN, ...]
      },
      "student": {                                # absent until the experiment ran
        "budget": {"sin": [150, 400], ...},      # steps tried in order (a ladder)
        "runs": [RUN, ...],
        "means": {"sin": {"final_train_loss": f, "acc_by_length": {"8": f, "12": f}, "seeds": n}, ...}
      },
      "diagnosis": [{"en": "...", "ko": "..."}], # explanations shown next to the table
      "seconds": {"component": f, "student": f}  # wall time of each part
    }

    RUN = {
      "mode": "sin", "seed": 0,
      "steps": 90,                                # steps actually trained
      "reached_threshold_at": 90 | null,          # component runs: early-stopping step
      "final_train_loss": 0.01,
      "acc_by_length": {"8": 1.0, "12": 0.17},    # measured by the grader
      "student_acc_by_length": {"8": 1.0, ...},   # student runs: what their evaluate said
      "bound_by_length": {"8": 0.317, "12": 0.266},
      "loss_curve": [2.4, 2.3, ...],              # one loss per step, rounded
      "equivariance_error": 1e-7,                 # component `none` only
      "notes": [{"en": "...", "ko": "..."}]
    }
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from functools import cache
from typing import Any

import torch

from grader.author import (
    Cause,
    GradeFailure,
    as_tensor,
    check_shape,
    container_limits,
    describe_problem,
    fail,
    finding_of,
    owning,
    seed_for,
)

# Two workers train side by side only with this much memory (each holds its own copy of the model
# and optimizer state beside the zygote's shared torch pages).
PARALLEL_MIN_MB = 2048

VOCAB = 10
TRAIN_LENGTH = 8
EVAL_LENGTHS = (8, 12)
THRESHOLD = 0.95
# none may sit this far above the bound on a finite eval set before we call it a leak.
BOUND_MARGIN = 0.06
CHANCE = 1 / VOCAB

# The grader's own harness (component check).  lr 3e-3 and batch 32 reach the
# threshold in ~60 steps for sin and ~20 for learned (reference embedding,
# measured on CPU), against ~90 and ~40 with the lesson's lr 1e-3, batch 64.
HARNESS: dict[str, Any] = {
    "vocab_size": VOCAB, "d_model": 64, "n_layers": 2, "n_heads": 4, "dim_feedforward": 128,
    "max_len": 16, "lr": 3e-3, "batch_size": 32, "length": TRAIN_LENGTH,
    "max_steps": {"sin": 300, "learned": 300, "none": 60},
    "check_every": 10, "stop_samples": 256, "eval_samples": 500, "threshold": THRESHOLD,
    # stop once clearly past the threshold, so the fresh eval set does not land just under it
    "stop_threshold": 0.99,
}

# Steps given to the student's train_reversal (lesson defaults: lr 1e-3, batch 64).
# Reference: sin ~80-100 steps, learned ~40, none on the bound after ~40.  The
# second rung is tried only for a run that is learning, just slowly.
STUDENT_BUDGET: dict[str, tuple[int, ...]] = {"sin": (150, 400), "learned": (100, 400), "none": (60,)}
STUDENT_SEEDS = (0,)
EVAL_SAMPLES = 500

# Lesson's init: tok std 1 x sqrt(64) = 8 per entry; sinusoidal entries lie in [-1, 1].
LESSON_SCALE_WARN = 3.0


# -- the bag-of-tokens bound ---------------------------------------------------


@cache
def expected_max_count(n: int, vocab: int) -> Fraction:
    """E[largest count] when n tokens are drawn uniformly from ``vocab`` values (exact).

    P(max <= k) = n! [x^n] (sum_{j<=k} x^j / j!)^vocab / vocab^n, a polynomial
    power computed with exact fractions: cheap for the lengths used here.
    """
    if n <= 0:
        return Fraction(0)
    total = Fraction(0)
    prev = Fraction(0)
    for k in range(1, n + 1):
        base = [Fraction(1, math.factorial(j)) for j in range(k + 1)]
        poly = [Fraction(1)]
        for _ in range(vocab):
            poly = _mul_trunc(poly, base, n)
        count = poly[n] * math.factorial(n) if len(poly) > n else Fraction(0)
        cdf = count / Fraction(vocab) ** n
        total += k * (cdf - prev)
        prev = cdf
    return total


def _mul_trunc(a: list[Fraction], b: list[Fraction], n: int) -> list[Fraction]:
    out = [Fraction(0)] * min(len(a) + len(b) - 1, n + 1)
    for i, x in enumerate(a):
        if x == 0:
            continue
        for j, y in enumerate(b):
            if i + j > n:
                break
            out[i + j] += x * y
    return out


def bag_of_tokens_bound(length: int, vocab: int = VOCAB, *, exact_limit: int = 40,
                        samples: int = 200_000, seed: int = 0) -> tuple[float, str]:
    """Best token accuracy on reversal of any permutation-equivariant model, and how it was found.

    Such a model sees its own token ``a`` and the multiset M of all tokens; for a
    random arrangement of M the target of a position is uniform over the other
    T-1 tokens (plus, for odd T, the middle position whose target is ``a``).  The
    best guess is the most common of the others (even T), or of all T (odd T):
    accuracy E[max count of T-1 tokens] / (T-1), resp. E[max count of T] / T.
    Exact for ``length * vocab`` up to ``exact_limit * 10``; a seeded Monte-Carlo
    estimate beyond.
    """
    if length < 1 or vocab < 1:
        raise ValueError(f"length and vocab must be positive, got {length}, {vocab}")
    if length == 1:
        return 1.0, "exact"
    n = length if length % 2 else length - 1
    if n * vocab <= exact_limit * 10:
        return float(expected_max_count(n, vocab) / n), "exact"
    rng = torch.Generator().manual_seed(seed)
    draws = torch.randint(0, vocab, (samples, n), generator=rng)
    counts = torch.zeros(samples, vocab, dtype=torch.int64).scatter_add_(1, draws, torch.ones_like(draws))
    return float(counts.max(1).values.double().mean() / n), f"estimate (seeded, {samples} samples)"


def bound(length: int, vocab: int = VOCAB) -> float:
    return bag_of_tokens_bound(length, vocab)[0]


def bound_on_batch(ids: torch.Tensor, vocab: int = VOCAB) -> float:
    """The bound's conditional expectation on these very sequences (cancels sampling noise).

    For each sequence, the chance the best bag-of-tokens guess is right, averaged
    over its positions: max count of the others / (T-1) (even T), max count / T (odd T).
    """
    B, T = ids.shape
    if T == 1:
        return 1.0
    counts = torch.zeros(B, vocab, dtype=torch.int64).scatter_add_(1, ids, torch.ones_like(ids))
    if T % 2:
        return float((counts.max(1).values.double() / T).mean())
    # others of position t: counts minus its own token
    others = counts[:, None, :].expand(B, T, vocab).clone()
    others.scatter_add_(2, ids[:, :, None], -torch.ones(B, T, 1, dtype=torch.int64))
    return float((others.max(2).values.double() / (T - 1)).mean())


# -- inputs and measurements ---------------------------------------------------


def fresh_batch(n: int, length: int, vocab: int = VOCAB, seed: int | None = None) -> torch.Tensor:
    """Random ids drawn in the grader with a seed the submission cannot predict."""
    gen = torch.Generator().manual_seed(seed if seed is not None else seed_for("batch"))
    return torch.randint(0, vocab, (n, length), generator=gen)


def check_no_causal_mask(student: Any, **kwargs: Any) -> None:
    """ReversalModel(**kwargs) in eval mode: the output at position 0 must change with the last input
    token (the stub's rule: no mask, every position sees the whole input). Shared by both suites."""
    from grader.author import as_tensor, expect

    model = student.call("ReversalModel", **kwargs)
    model.call("eval")
    ids = fresh_batch(16, 8)
    changed = ids.clone()
    changed[:, -1] = (changed[:, -1] + 1) % VOCAB
    out = as_tensor(model.call("__call__", ids), "ReversalModel(ids)").double()
    out2 = as_tensor(model.call("__call__", changed), "ReversalModel(ids)").double()
    diff = float((out[:, 0] - out2[:, 0]).abs().max())
    other = ids.clone()
    other[-1] = (other[-1] + 1) % VOCAB  # another sequence of the batch changed: does sequence 0 see it?
    out3 = as_tensor(model.call("__call__", other), "ReversalModel(ids)").double()
    expect(diff > 1e-6 or float((out[:-1] - out3[:-1]).abs().max()) <= 1e-6,
           "ReversalModel: the output at position 0 does not change when the last input token does, but "
           "it changes when another sequence of the batch does: the encoder reads (B, T, d) as (T, B, d) "
           "and attends across the batch. Build nn.TransformerEncoderLayer(..., batch_first=True).",
           "ReversalModel: 마지막 입력 토큰을 바꿔도 0번 위치의 출력은 그대로인데, 배치의 다른 시퀀스를 "
           "바꾸면 변합니다: 인코더가 (B, T, d)를 (T, B, d)로 읽어 배치끼리 어텐션합니다. "
           "nn.TransformerEncoderLayer(..., batch_first=True)로 만드세요.")
    expect(diff > 1e-6,
           "ReversalModel: the output at position 0 does not change "
           "when the last input token does: the encoder runs "
           "with a causal mask. Position 0 must predict the last "
           "token, so every position has to see the whole input: "
           "call the encoder without a mask.",
           "ReversalModel: 마지막 입력 토큰을 바꿔도 0번 위치의 출력이 "
           "변하지 않습니다: 인코더가 causal 마스크로 돌고 있습니다. "
           "0번 위치는 마지막 토큰을 맞혀야 하므로 모든 위치가 입력 "
           "전체를 봐야 합니다: 마스크 없이 인코더를 호출하세요.")


def accuracy(logits_or_preds: torch.Tensor, ids: torch.Tensor) -> float:
    """Token accuracy of predictions (or logits) against ids.flip(1)."""
    preds = logits_or_preds.argmax(-1) if logits_or_preds.dim() == 3 else logits_or_preds
    return float((preds.to(torch.int64) == ids.flip(1)).double().mean())


def copy_accuracy(logits: torch.Tensor, ids: torch.Tensor) -> float:
    """Accuracy at the copy task (targets = ids): high when trained on the wrong targets."""
    return float((logits.argmax(-1) == ids).double().mean())


def equivariance_error(out: torch.Tensor, out_perm: torch.Tensor, perm: torch.Tensor) -> float:
    """max |f(x)[:, perm] - f(x[:, perm])|, computed here from the two outputs."""
    return float((out.double()[:, perm] - out_perm.double()).abs().max())


def lengths_dict(values: dict[int, float]) -> dict[str, float]:
    return {str(k): round(float(v), 4) for k, v in values.items()}


def curve(losses: list[float]) -> list[float]:
    return [round(float(v), 5) for v in losses]


def store(artifacts: dict, key: str, value: Any) -> dict:
    """Put one part into artifacts['experiment'] (created with the shared header)."""
    exp = artifacts.setdefault("experiment", header())
    exp[key] = value
    return exp


def header() -> dict:
    return {
        "schema": 1, "vocab_size": VOCAB, "train_length": TRAIN_LENGTH, "eval_lengths": list(EVAL_LENGTHS),
        "threshold": THRESHOLD, "bound": {str(n): round(bound(n), 4) for n in EVAL_LENGTHS},
        "bound_method": bag_of_tokens_bound(max(EVAL_LENGTHS))[1], "chance": CHANCE,
        "diagnosis": [], "seconds": {},
    }


def add_diagnosis(artifacts: dict, en: str, ko: str) -> None:
    diag = artifacts.setdefault("experiment", header())["diagnosis"]
    if {"en": en, "ko": ko} not in diag:
        diag.append({"en": en, "ko": ko})


def means(runs: list[dict]) -> dict[str, dict]:
    """Mean final loss and accuracy per mode over seeds."""
    out: dict[str, dict] = {}
    for mode in dict.fromkeys(r["mode"] for r in runs):
        rows = [r for r in runs if r["mode"] == mode]
        keys = sorted({k for r in rows for k in r["acc_by_length"]}, key=int)
        out[mode] = {
            "seeds": len(rows),
            "final_train_loss": round(sum(r["final_train_loss"] for r in rows) / len(rows), 4),
            "acc_by_length": {k: round(sum(r["acc_by_length"].get(k, 0.0) for r in rows) / len(rows), 4)
                              for k in keys},
        }
    return out


# -- what we tell the student ----------------------------------------------------


def ten_percent_note() -> tuple[str, str]:
    b8, b12 = bound(8), bound(12)
    return (
        f"Why not the lesson's 10%: without positions each output still sees its own token and the multiset "
        f"of all tokens, so the best it can do is guess the most common of the other tokens. That is right "
        f"{b8:.3f} of the time at length 8 and {b12:.3f} at length 12 (vocab 10), the bag-of-tokens bound; "
        f"`none` lands on it, not on chance (0.10).",
        f"레슨의 10% 예상이 틀린 이유: 위치가 없어도 각 출력은 자기 토큰과 전체 토큰의 다중집합(bag)을 "
        f"봅니다. 그래서 '나머지 토큰 중 가장 흔한 것'을 찍는 것이 최선이고, 그 정답률이 길이 8에서 "
        f"{b8:.3f}, 길이 12에서 {b12:.3f}입니다(vocab 10, bag-of-tokens 상한). `none`은 우연 수준(0.10)이 "
        f"아니라 이 상한에 멈춥니다.",
    )


def init_scale_diagnosis(mode: str, acc: float, steps: int, scale: dict) -> tuple[str, str]:
    tok, pos = scale.get("token_std", float("nan")), scale.get("position_std", float("nan"))
    ratio = tok / pos if pos else float("inf")
    return (
        f"`{mode}` sits on the bag-of-tokens bound ({acc:.2f} after {steps} steps, bound {bound(8):.3f}) "
        f"although your embedding passes the component check. The cause is the initialisation, not the "
        f"positions: with nn.Embedding's default init (std 1) times sqrt(d_model) the token vectors have "
        f"entries of size ~{tok:.1f}, while the position rows have ~{pos:.2f} (about {ratio:.0f}x smaller; "
        f"sinusoidal entries lie in [-1, 1]), so the model first ignores the positions. Initialise the token "
        f"table as the paper does, nn.init.normal_(self.tok.weight, std=d_model ** -0.5): then sin and "
        f"learned reach 100% within ~100 steps. With the lesson's init, sin only starts learning after "
        f"~2,100 steps (100% at ~2,500), and learned needs ~300 steps instead of ~40.",
        f"`{mode}`가 bag-of-tokens 상한에 멈춰 있습니다({steps} 스텝 뒤 {acc:.2f}, 상한 {bound(8):.3f}). "
        f"그런데 임베딩 자체는 컴포넌트 검사를 통과했습니다. 원인은 위치가 아니라 초기화입니다: nn.Embedding "
        f"기본 초기화(std 1)에 sqrt(d_model)을 곱하면 토큰 벡터 성분이 ~{tok:.1f} 크기인데 위치 행은 "
        f"~{pos:.2f}입니다(약 {ratio:.0f}배 작음; 사인 값은 [-1, 1]). 그래서 모델이 처음에는 위치를 "
        f"무시합니다. 논문처럼 nn.init.normal_(self.tok.weight, std=d_model ** -0.5)로 초기화하면 sin과 "
        f"learned 모두 ~100 스텝 안에 100%에 도달합니다. 레슨의 초기화로는 sin이 ~2,100 스텝이 지나서야 "
        f"배우기 시작하고(~2,500 스텝에 100%), learned도 ~40 스텝이 아니라 ~300 스텝이 걸립니다.",
    )


def none_beats_bound_diagnosis(acc: float, length: int) -> tuple[str, str]:
    b = bound(length)
    return (
        f"`none` scored {acc:.3f} at length {length}, above the bag-of-tokens bound {b:.3f}: no model "
        f"without positions can do that. Suspect a data bug first (targets that are not ids.flip(1), e.g. a "
        f"copy task), as the lesson warns, or a mask (a causal mask lets a position count what it can see, "
        f"which leaks its position), or positions added in mode='none'.",
        f"`none`이 길이 {length}에서 {acc:.3f}로 bag-of-tokens 상한 {b:.3f}을 넘었습니다: 위치 없는 모델은 "
        f"불가능한 값입니다. 레슨의 경고처럼 먼저 데이터 버그(정답이 ids.flip(1)이 아님, 예: 복사 태스크)를 "
        f"의심하고, 다음으로 마스크(causal 마스크는 보이는 토큰 수로 위치가 새어 나갑니다)나 mode='none'에서 "
        f"위치를 더하고 있지 않은지 확인하세요.",
    )


def length_note(mode: str, acc8: float, acc12: float) -> tuple[str, str]:
    en = (f"length 12: {acc12:.2f} against {acc8:.2f} at length 8: trained on 8, it does not generalise to "
          f"longer inputs.")
    ko = (f"길이 12: {acc12:.2f} (길이 8에서는 {acc8:.2f}): 길이 8로 학습한 모델은 더 긴 입력으로 "
          f"일반화하지 못합니다.")
    if mode == "learned":
        en += " Rows 8..11 of the learned position table were never trained (they keep their random init)."
        ko += " 학습형 위치 표의 8~11번 행은 한 번도 학습되지 않았습니다(무작위 초기값 그대로)."
    if mode == "sin":
        en += " The sinusoidal rows 8..11 exist, but the model never saw them together with tokens."
        ko += " 사인 표의 8~11번 행은 존재하지만, 모델은 학습 중 그 위치를 본 적이 없습니다."
    return en, ko


def bound_note(mode: str, acc: float, length: int) -> tuple[str, str] | None:
    b = bound(length)
    if abs(acc - b) <= BOUND_MARGIN:
        return (f"on the bag-of-tokens bound ({acc:.2f} vs {b:.3f} at length {length})",
                f"bag-of-tokens 상한 위 ({acc:.2f}, 길이 {length}의 상한 {b:.3f})")
    return None


def learned_table_std(student: Any, d_model: int = 64, max_len: int = 16) -> float | None:
    """Entry size of the learned position table a fresh layer holds (any name), else None."""
    from grader.author import as_tensor
    from lesson_embedding_pe.pe_checks import learned_table

    layer = student.call("TokenAndPosEmbedding", VOCAB, d_model, max_len, mode="learned")
    name = learned_table(student, layer, max_len, d_model)
    return None if name is None else float(as_tensor(layer.attr(name), name).double().std())


def check_component_learns(run: dict, mode: str, student: Any = None) -> None:
    """Shared with the hidden suite: one message per way the component check can fail."""
    if "error" in run:
        fail(f"Component check, mode='{mode}': the grader's reversal model (its own encoder and training "
             f"loop around your TokenAndPosEmbedding(10, 64, 16, mode='{mode}')) could not run: "
             f"{run['error']['en']}",
             f"컴포넌트 검사, mode='{mode}': 여러분의 TokenAndPosEmbedding(10, 64, 16, mode='{mode}')을 "
             f"채점기의 인코더와 학습 루프에 넣어 돌리지 못했습니다: {run['error']['ko']}",
             **run_failure(run))
    acc = run["acc_by_length"].get("8", 0.0)
    std = learned_table_std(student) if acc < THRESHOLD and mode == "learned" and student else None
    if std is not None and std * LESSON_SCALE_WARN < 1.0:  # the harness's token entries are ~1
        fail(f"Component check, mode='learned': the grader's reversal model with your embedding (token table "
             f"re-initialised at the paper's scale) reached only {acc:.2f} token accuracy at length 8 after "
             f"{run['steps']} steps; a correct embedding reaches {THRESHOLD} within ~100. The cause is your "
             f"position table's init, not how forward adds it: its entries start at ~{std:.2f}, next to "
             "token entries of ~1 (std d_model**-0.5 times sqrt(d_model)), so the positions are drowned "
             "and learn slowly. Keep nn.Embedding's default init (std 1) for self.pos.",
             f"컴포넌트 검사, mode='learned': 채점기의 뒤집기 모델에 여러분의 임베딩을 넣고(토큰 표는 논문 "
             f"스케일로 다시 초기화) {run['steps']} 스텝 학습했더니 길이 8 토큰 정확도가 {acc:.2f}에 "
             f"그쳤습니다. 올바른 임베딩은 ~100 스텝 안에 {THRESHOLD}에 도달합니다. 원인은 forward가 아니라 "
             f"위치 표의 초기화입니다: 위치 표 성분이 ~{std:.2f}에서 시작하는데 토큰 성분은 ~1(std "
             "d_model**-0.5 곱하기 sqrt(d_model))이라 위치가 묻혀 느리게 학습됩니다. "
             "self.pos는 nn.Embedding의 기본 초기화(std 1)를 그대로 쓰세요.")
    if acc < THRESHOLD:
        hint_en = ("check that forward adds pe[:T] (rows 0..T-1, sin/cos interleaved) to the scaled token "
                   "vectors"
                   if mode == "sin" else
                   "check that forward adds self.pos(torch.arange(T, device=ids.device)) to the scaled token "
                   "vectors")
        hint_ko = ("forward가 스케일한 토큰 벡터에 pe[:T](0..T-1행, sin/cos 교차)를 더하는지 확인하세요"
                   if mode == "sin" else
                   "forward가 스케일한 토큰 벡터에 self.pos(torch.arange(T, device=ids.device))를 더하는지 "
                   "확인하세요")
        fail(f"Component check, mode='{mode}': the grader's reversal model with your embedding (token table "
             f"re-initialised at the paper's scale, std d_model**-0.5) reached only {acc:.2f} token accuracy "
             f"at length 8 after {run['steps']} steps; a correct embedding reaches {THRESHOLD} within ~100 "
             f"(the bag-of-tokens bound without positions is {bound(8):.3f}). The model cannot tell "
             f"positions apart: {hint_en}.",
             f"컴포넌트 검사, mode='{mode}': 채점기의 뒤집기 모델에 여러분의 임베딩을 넣고(토큰 표는 논문 "
             f"스케일 std d_model**-0.5로 다시 초기화) {run['steps']} 스텝 학습했더니 길이 8 토큰 정확도가 "
             f"{acc:.2f}에 그쳤습니다. 올바른 임베딩은 ~100 스텝 안에 {THRESHOLD}에 도달합니다(위치 없이 "
             f"가능한 bag-of-tokens 상한은 {bound(8):.3f}). 모델이 위치를 구분하지 못합니다: {hint_ko}.")


# -- running the two kinds of check ------------------------------------------------


def pe_is_finite(student: Any, max_len: int = 16, d_model: int = 32) -> bool | None:
    """Whether the student's sinusoidal_pe gives finite values (None where it cannot be called): where a
    NaN in the very first loss comes from."""
    out = student.attempt("sinusoidal_pe", max_len, d_model)
    value = out.value if out.error is None else None
    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        return None
    return bool(torch.isfinite(value).all())


def check_seeded(first: list, again: list, call: str, pe_finite: Any = None) -> None:
    """Fail unless two runs of ``call`` with the same seed gave the same losses. A NaN or inf loss is
    said as such first (and where it comes from), never as "not seeded" because NaN != NaN.
    ``pe_finite``: called only for a bad first loss, whether the student's sinusoidal_pe is finite
    (pe_is_finite), so the message points at it or away from it. Losses handed back as 0-d tensors or
    numpy scalars (``loss`` or ``loss.detach()`` kept instead of ``loss.item()``) are read as their numbers
    first: a NaN tensor equals nothing, so compared as they are two NaN runs read as "not seeded"."""
    first, again = _numbers(first), _numbers(again)
    for losses in (first, again):
        bad = next((i for i, v in enumerate(losses) if isinstance(v, float) and not math.isfinite(v)), None)
        if bad is None:
            continue
        value = losses[bad]
        finite = pe_finite() if bad == 0 and pe_finite is not None else None
        if finite is False:  # the encoding itself holds NaN or inf: the first thing to fix
            why_en = ("the very first loss, before any update, and your sinusoidal_pe(16, 32) already "
                      "holds NaN or inf (a division by zero or log(0) in the frequencies gives inf, then "
                      "NaN): fix sinusoidal_pe first")
            why_ko = ("업데이트 전의 첫 손실부터 그렇고, 여러분의 sinusoidal_pe(16, 32)에 이미 "
                      "NaN 또는 inf가 있습니다(주파수 계산에서 0으로 나누거나 log(0)을 하면 inf, "
                      "이어서 NaN이 됩니다). "
                      "sinusoidal_pe부터 고치세요")
        elif finite:  # the encoding is fine: the forward pass after it, or the loss, makes the NaN
            why_en = ("the very first loss, before any update, and your sinusoidal_pe(16, 32) is finite: "
                      "the model's forward pass or the loss makes it. Look at the logits of one batch "
                      "and at what the loss is computed from (a log of 0, a division by zero)")
            why_ko = ("업데이트 전의 첫 손실부터 그렇지만 sinusoidal_pe(16, 32)는 유한합니다. 모델의 "
                      "순전파나 손실 계산이 만든 값이니 배치 하나의 logit과 손실을 계산하는 값"
                      "(log(0), 0으로 나누기)을 확인하세요")
        elif bad == 0:  # the untrained model's first loss: the forward pass itself makes it
            why_en = ("the very first loss, before any update, so the forward pass itself produces it: "
                      "look at the positional encoding (a division by zero or log(0) in the frequencies "
                      "gives inf, then NaN) and at the logits of one batch")
            why_ko = ("업데이트 전의 첫 손실부터 그렇습니다. 순전파 자체가 만들어 낸 값이니 위치 인코딩"
                      "(주파수 계산에서 0으로 나누거나 log(0)을 하면 inf, 이어서 NaN이 됩니다)과 배치 하나의 "
                      "logit을 확인하세요")
        else:  # finite, then not: training diverged
            why_en = ("the losses were finite until then, so training diverged: lower the learning rate "
                      "or clip the gradients (torch.nn.utils.clip_grad_norm_)")
            why_ko = ("그 전까지는 유한했으니 학습이 발산한 것입니다. 학습률을 낮추거나 그래디언트를 "
                      "잘라 주세요(torch.nn.utils.clip_grad_norm_)")
        fail(f"{call} gave a {value} loss at step {bad + 1} of {len(losses)}: {why_en}.",
             f"{call}: 손실이 {len(losses)}스텝 중 {bad + 1}번째 스텝에서 {value}입니다. {why_ko}.")
    if not _same(first, again):
        shown = ", ".join(f"{a:.6g} vs {b:.6g}" for a, b in list(zip(first, again, strict=False))[:2])
        fail(f"{call} run twice gave different losses ({shown}, ...): the run is not "
             "seeded, and the lesson compares runs by their seed. Call torch.manual_seed(seed) before "
             "building the model and draw the batches from torch.Generator().manual_seed(seed), so a "
             "result can be reproduced.",
             f"{call}: 같은 시드로 두 번 실행했더니 손실이 달랐습니다({shown}, ...). "
             "시드가 고정되지 않아서, 시드로 실행을 비교하는 이 실습의 결과를 재현할 수 없습니다. "
             "모델을 만들기 전에 torch.manual_seed(seed)를 호출하고, 배치는 "
             "torch.Generator().manual_seed(seed)로 뽑으세요.")


def _numbers(losses: Any) -> list:
    """``losses`` with each one-number value (a float, an int, a 0-d tensor, a numpy scalar) as a float;
    anything else is kept as it is."""
    out = []
    for v in list(losses) if isinstance(losses, (list, tuple)) else []:
        if isinstance(v, torch.Tensor) and v.numel() == 1:
            v = float(v.detach().double().item())
        elif not isinstance(v, (bool, float)) and isinstance(v, numbers.Real):
            v = float(v)
        out.append(v)
    return out


def _same(first: list, again: list) -> bool:
    """Equal lists, a NaN equal to a NaN at the same step (reached only where no NaN was, in fact)."""
    return len(first) == len(again) and all(
        a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
        for a, b in zip(first, again, strict=True))


def train_timeout(steps: int) -> float:
    """Generous: ~7 ms a step measured, 30x that for a loaded CI box, plus start-up."""
    return 60.0 + 0.2 * steps


ALL_MODES = ("sin", "learned", "none")
# Where two workers are worth it: the longest mode on one, the other two on the other (steps
# of a correct submission: component sin ~90, learned ~20, none 60; student sin 150, learned
# 100, none 60).
SPLIT = (("sin",), ("learned", "none"))


def in_parallel(student: Any, work: Any, modes: tuple[str, ...], needs: tuple[str, ...]) -> dict[str, Any]:
    """``work(student, mode)`` for each mode; on two workers at once where the machine has the
    cores and workers are cheap to fork (the zygote), else one after the other.  Each run seeds
    itself, so where it runs changes nothing of its result."""
    import threading

    sibling = _sibling_of(student, needs) if len(modes) > 1 else None
    if sibling is None:
        return {mode: work(student, mode) for mode in modes}
    groups = [[m for m in group if m in modes] for group in SPLIT]
    groups[1] += [m for m in modes if not any(m in g for g in groups)]
    out: dict[str, Any] = {}
    failures: list[BaseException] = []

    def run(who: Any, group: list[str]) -> None:
        try:
            for mode in group:
                out[mode] = work(who, mode)
        except BaseException as exc:  # raised again below, in the test's own thread
            failures.append(exc)

    helper = threading.Thread(target=run, args=(sibling, groups[1]), daemon=True)
    helper.start()
    run(student, groups[0])
    helper.join()
    if failures:
        raise failures[0]
    return {mode: out[mode] for mode in modes}


def second_worker_pays(client: Any) -> bool:
    """Two cores for this grade (not a batch's other grades'), and workers cheap to fork (the zygote)."""
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    # A container's CPU quota and memory limit (Gradescope's 0.5 vCPU / 768 MB) are not in the affinity:
    # a second worker there only shares the same half core and doubles the memory.
    room = container_limits()
    cores = min(cores, int(room["cpus"])) if room["memory_mb"] >= PARALLEL_MIN_MB else 1
    policy = client.policy
    return cores >= 2 and policy.siblings and policy.zygote and client.isolation == "namespaces"


def _sibling_of(student: Any, needs: tuple[str, ...]) -> Any:
    """A Student on a second worker, with ``needs`` imported there; None where that would not pay
    or the modules are not known to import (a hang at import is the main worker's to find)."""

    client = getattr(student, "client", None)
    if client is None or not second_worker_pays(client) or not all(m in client.imported for m in needs):
        return None
    try:
        sibling = client.sibling()
        for module in needs:
            sibling.ensure_module(module)
    except Exception:
        return None
    # the same submission: the same scan
    helper = student.on(sibling)
    helper.plan_imports(*needs)  # here, not in the helper thread (Student.plan_imports)
    return helper


# Runs started early, beside the other tests: prefetch.py registers its Prefetch here by id() of the session's
# artifacts (and drops it at the session's end), so the runs here read a part from it first and this module
# needs nothing of prefetch.py.
EARLY: dict[int, Any] = {}


def early_part(artifacts: dict, part: str) -> Any:
    """The finished ``part`` ("component", "student") started early, waiting for it (its ``runs`` by mode,
    its ``seconds``); None where none was started for this session or it failed."""
    started = EARLY.get(id(artifacts))
    return started.take(part) if started is not None else None


def component_runs(student: Any, artifacts: dict, modes: tuple[str, ...] = ALL_MODES) -> dict[str, dict]:
    """The component check for ``modes``, cached in artifacts (public and hidden suites share it).

    The first call runs every mode (two workers at once where possible): the suites ask for
    them one test at a time."""
    import time

    # the runs are the grader's harness in the worker (a probe), maybe made on another thread: the
    # test that reads them is the one that rests on it (a flagged submission: its verdict is withheld)
    student.rests_on_grader()
    exp = artifacts.setdefault("experiment", header())
    comp = exp.setdefault("component", {"harness": HARNESS, "runs": []})
    done = {r["mode"]: r for r in comp["runs"]}
    missing = tuple(m for m in dict.fromkeys((*modes, *ALL_MODES)) if m not in done)
    if any(m not in done for m in modes):
        started = time.monotonic()
        ready = early_part(artifacts, "component")
        if ready is not None:
            made, seconds = {m: ready.runs[m] for m in missing}, ready.seconds
        else:
            made = in_parallel(student, component_run, missing, ("embedding",))
            seconds = time.monotonic() - started
        for mode, run in made.items():
            done[mode] = run
            comp["runs"].append(run)
        exp["seconds"]["component"] = round(exp["seconds"].get("component", 0.0) + seconds, 2)
    return done


def component_run(student: Any, mode: str, seed: int = 0) -> dict:
    """The component check of one mode; its inputs and the worker's seed are its own (``owning``),
    so it is the same run whichever test, or the prefetch, makes it."""
    with owning(f"experiment/component/{mode}/{seed}"):
        return _component_run(student, mode, seed)


def _component_run(student: Any, mode: str, seed: int) -> dict:
    from grader.author import StudentProblem

    cfg = HARNESS
    stop_ids = fresh_batch(int(cfg["stop_samples"]), TRAIN_LENGTH)
    eval_ids = {n: fresh_batch(int(cfg["eval_samples"]), n) for n in EVAL_LENGTHS}
    perm_ids = fresh_batch(16, TRAIN_LENGTH)
    perm = torch.randperm(TRAIN_LENGTH, generator=torch.Generator().manual_seed(seed_for("perm")))
    run: dict[str, Any] = {"mode": mode, "seed": seed,
                           "bound_by_length": {str(n): round(bound(n), 4) for n in EVAL_LENGTHS},
                           "notes": []}
    try:
        out = student.probe("reversal_component", mode, seed, cfg, stop_ids, eval_ids,
                            perm_ids if mode == "none" else None, perm if mode == "none" else None,
                            timeout=train_timeout(int(cfg["max_steps"][mode])))
    except StudentProblem as exc:
        run.update(error=_short(exc), steps=0, final_train_loss=float("nan"), acc_by_length={}, loss_curve=[],
                   reached_threshold_at=None)
        return run
    losses = [float(v) for v in out["losses"]]
    run.update(steps=int(out["steps"]), reached_threshold_at=out["reached_at"],
               final_train_loss=round(losses[-1], 5) if losses else float("nan"), loss_curve=curve(losses))
    run["acc_by_length"] = lengths_dict({n: accuracy(out["preds"][n], eval_ids[n])
                                         for n in EVAL_LENGTHS if n in out["preds"]})
    run["oracle_by_length"] = lengths_dict({n: bound_on_batch(eval_ids[n]) for n in EVAL_LENGTHS})
    if out["errors"]:
        run["errors"] = {str(k): v for k, v in out["errors"].items()}
    if out.get("perm_out") is not None:
        run["equivariance_error"] = equivariance_error(out["perm_out"][0], out["perm_out"][1], perm)
    return run


class StudentExperiment:
    """The student's train_reversal per mode and seed, measured by the grader and by their evaluate.

    Lazy: a mode is trained the first time a test asks for it, so a test run
    filtered to one check pays for one mode.  Budgets follow STUDENT_BUDGET: the
    next rung is tried only for a run that is learning but slowly, so a correct
    submission pays for the first one only.  Each run keeps ``_model`` (the
    Remote) for later checks; artifacts get the JSON part after every mode.
    """

    def __init__(self, student: Any, artifacts: dict) -> None:
        self.student = student
        self.artifacts = artifacts
        self.runs: dict[str, list[dict]] = {}
        self.seconds = 0.0

    def __getitem__(self, mode: str) -> dict:
        """The first seed's run of ``mode``."""
        return self.of(mode)[0]

    def of(self, mode: str) -> list[dict]:
        import time

        if mode not in self.runs:
            # Every mode at once on the first call (the tests ask one mode at a time).
            started = time.monotonic()
            missing = tuple(m for m in dict.fromkeys((mode, *ALL_MODES)) if m not in self.runs)
            ready = early_part(self.artifacts, "student")
            if ready is not None:
                self.runs.update({m: ready.runs[m] for m in missing})
                self.seconds += ready.seconds
            else:
                self.runs.update(in_parallel(self.student, student_runs, missing, ("embedding", "reversal")))
                self.seconds += time.monotonic() - started
            self._store()
        return self.runs[mode]

    def _store(self) -> None:
        order = [m for m in ("none", "sin", "learned") if m in self.runs]
        runs = [r for m in order for r in self.runs[m]]
        exp = store(self.artifacts, "student", {
            "budget": {m: list(b) for m, b in STUDENT_BUDGET.items()},
            "runs": [{k: v for k, v in r.items() if not k.startswith("_")} for r in runs],
            "means": means([r for r in runs if "error" not in r]),
        })
        exp["seconds"]["student"] = round(self.seconds, 2)


def student_eval_ids() -> dict[int, torch.Tensor]:
    """The ids the grader measures the student's trained models on (one draw per submission)."""
    with owning("experiment/student/eval"):
        return {n: fresh_batch(EVAL_SAMPLES, n) for n in EVAL_LENGTHS}


def student_runs(student: Any, mode: str) -> list[dict]:
    """The student's train_reversal for ``mode``, one run per seed, each on its own draws and worker
    seed (``owning``): the same runs whichever test, or the prefetch, makes them."""
    from grader.author import StudentProblem

    eval_ids = student_eval_ids()
    runs = []
    for seed in STUDENT_SEEDS:
        for steps in STUDENT_BUDGET[mode]:
            with owning(f"experiment/student/{mode}/{seed}/{steps}"):
                run = _student_run(student, mode, seed, steps, eval_ids, StudentProblem)
            if "error" in run or mode == "none" or not _worth_more_steps(run["acc_by_length"].get("8", 0.0)):
                break
        runs.append(run)
    return runs


def _worth_more_steps(acc: float) -> bool:
    """Only a run that is learning but slow gets the next rung: on the bound (the init case)
    or below it (broken) more steps would not change the verdict, only the wait."""
    return bound(TRAIN_LENGTH) + 0.05 < acc < THRESHOLD


def _student_run(student: Any, mode: str, seed: int, steps: int, eval_ids: dict,
                 problem: type[Exception]) -> dict:
    run: dict[str, Any] = {"mode": mode, "seed": seed, "steps": steps, "notes": [],
                           "bound_by_length": {str(n): round(bound(n), 4) for n in EVAL_LENGTHS}}
    try:
        model, losses = student.call("train_reversal", mode, seed=seed, steps=steps, length=TRAIN_LENGTH,
                                     timeout=train_timeout(steps))
        losses = [float(v) for v in losses]
        model.call("eval")
    except (problem, TypeError, ValueError) as exc:
        run.update(error=_short(exc), _exc=exc, acc_by_length={}, final_train_loss=float("nan"),
                   loss_curve=[])
        return run
    run.update(_model=model, final_train_loss=round(losses[-1], 5) if losses else float("nan"),
               loss_curve=curve(losses), steps_reported=len(losses))
    acc, mine, errors = {}, {}, {}
    for n, ids in eval_ids.items():
        try:
            logits = as_tensor(model.call("__call__", ids, timeout=60), f"ReversalModel(ids of length {n})")
            check_shape(logits, (len(ids), n, VOCAB), f"ReversalModel(ids of length {n})")
            acc[n] = accuracy(logits, ids)
            if n == TRAIN_LENGTH:
                run["copy_acc_8"] = round(copy_accuracy(logits, ids), 4)
            mine[n] = float(student.call("evaluate", model, n, n_samples=EVAL_SAMPLES, timeout=60))
        except (problem, GradeFailure, TypeError, ValueError, RuntimeError) as exc:
            errors[str(n)] = _short(exc)
    run["acc_by_length"] = lengths_dict(acc)
    run["student_acc_by_length"] = lengths_dict(mine)
    if errors:
        run["errors"] = errors
    for n, a in acc.items():
        note = bound_note(mode, a, n)
        if note and mode != "none":
            run["notes"].append({"en": note[0], "ko": note[1]})
    if mode != "none" and 8 in acc and 12 in acc and acc[8] >= THRESHOLD:
        en, ko = length_note(mode, acc[8], acc[12])
        run["notes"].append({"en": en, "ko": ko})
    if mode == "none" and 8 in acc:
        en, ko = ten_percent_note()
        run["notes"].append({"en": en, "ko": ko})
    return run


def _short(exc: BaseException) -> dict[str, Any]:
    """The bilingual message the plugin would give for this problem, with its record's status and places
    (a check that reports it is "not started" when the embedding still raises NotImplementedError)."""
    msg, record = describe_problem(exc)[0], finding_of(exc)
    cause = record.cause.key if record.cause is not None else ""
    return {"en": msg.en[:600], "ko": msg.ko[:600], "status": record.status, "where": list(record.where),
            "cause": cause if cause.startswith(("import:", "missing:")) else ""}


def error_failure(error: dict | None) -> dict[str, Any]:
    """``fail``'s record of a check that reports ``error`` (``_short``): its status and places."""
    error = error or {}
    shared = str(error.get("cause") or "")  # a file that does not import: the card of that cause
    return {"status": str(error.get("status") or "failed"), "where": tuple(error.get("where") or ()),
            "cause": Cause("", "", shared) if shared else None}


def run_failure(run: dict) -> dict[str, Any]:
    """``fail``'s record of a run that could not run: its error's status and places."""
    return error_failure(run.get("error"))
