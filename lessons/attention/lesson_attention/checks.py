"""The checks the lesson's suites share: each turns a wrong answer into a TA-style message.

Everything runs in the grader process on plain tensors that came back from the worker. A failure
says what was expected, what was found and the likely cause (lesson_attention/diagnose.py) as a
record (grader/core/finding.py), worded in the kit's grammar ("Likely cause:" / "원인 추정:"), and keeps
the matrices for the report's picture.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import torch

from grader.author import (
    Cause,
    GradeFailure,
    Said,
    StudentRaised,
    as_tensor,
    check,
    check_dtype,
    check_finite,
    check_shape,
    expect_check,
    fail_check,
    mentions,
    particle,
)
from lesson_attention import diagnose
from lesson_attention.figure import attention_figure, wrong_cells

PROJECTIONS = ("q_proj", "k_proj", "v_proj", "out_proj")


def _first_wrong(found: torch.Tensor, expected: torch.Tensor, atol: float) -> tuple[int, ...]:
    return tuple(int(i) for i in wrong_cells(found, expected, atol).nonzero()[0])


def _value(t: torch.Tensor, at: tuple[int, ...]) -> str:
    return f"{float(t[at]):.6f}" if t.numel() else "nothing"


# "WHAT: at (i, j) expected A; found B." / "WHAT: (i, j) 위치에서 A이어야 하는데 B입니다.": the cell is part
# of what was checked in English and of what was expected in Korean
_AT_CELL = Said("{what} expected {expected}; found {found}.{tail}",
                "{lead}{expected_stem} 하는데 {found}.{tail}")
# "WHAT, expected A; found B.": a check whose English ``what`` ends in a phrase of its own ("…: on a GPU")
AFTER_PHRASE = Said("{what}, expected {expected}; found {found}.{tail}",
                    "{lead}{expected_stem} 하는데 {found}.{tail}")


def _said(what: str | Said) -> Said:
    return what if isinstance(what, Said) else Said(what, what)


def _part(what: str, part: str) -> Said:
    """One of the pair a call returns, named in the reader's language: "CALL weights" / "CALL 가중치"."""
    return Said(f"{what} {part}", f"{what} {_PART_KO[part]}")


_PART_KO = {"weights": "가중치", "output": "출력"}


def _fail_cell(what: str | Said, at: tuple[int, ...], want: str, got: str, cause: diagnose.Cause,
               figure: dict | None) -> None:
    key, en, ko = cause
    what = _said(what)
    expected = Said(want, f"{at} 위치에서 {particle(want, '이어야')} 함")  # True여야, 1.000000이어야
    fail_check(check(Said(f"{what.en}: at {at}", what.ko), expected,
                     Said(got, f"{got}입니다"), cause=Cause(en, ko, key)), _AT_CELL, figure)


def _fail_cells(found: torch.Tensor, expected: torch.Tensor, what: str | Said, atol: float,
                cause: diagnose.Cause, figure: dict | None) -> None:
    at = _first_wrong(found, expected, atol)
    _fail_cell(what, at, _value(expected, at), _value(found, at), cause, figure)


def pair(value: Any, what: str) -> tuple[torch.Tensor, torch.Tensor]:
    """``scaled_dot_product_attention`` returns a pair of tensors: (output, weights)."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        kind = type(value).__name__ + (f" of length {len(value)}" if isinstance(value, (tuple, list)) else "")
        fail_check(check(what, Said("a pair (output, weights)", "(output, weights) 쌍을 반환해야 함"),
                         Said(f"a {kind}", f"{particle(kind, '이')} 왔습니다"),
                         fix=Said("Return both: `return weights @ v, weights`.",
                                  "둘 다 반환하세요: `return weights @ v, weights`.")))
    return as_tensor(value[0], _part(what, "output")), as_tensor(value[1], _part(what, "weights"))


def check_attention(value: Any, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None,
                    what: str, *, expected: tuple[torch.Tensor, torch.Tensor], atol: float = 1e-5) -> None:
    """The student's (output, weights) against ``expected`` (the formula's or the reference's)."""
    out, weights = pair(value, what)
    exp_out, exp_w = expected
    if weights.shape != exp_w.shape:
        if tuple(out.shape) == tuple(exp_w.shape) and tuple(weights.shape) == tuple(exp_out.shape):
            fail_check(check(what, Said("(output, weights)", "(output, weights) 순서여야 함"),
                             Said(f"them the other way round (the first has the weights' shape "
                                  f"{tuple(exp_w.shape)})",
                                  f"반대로 반환했습니다(첫째가 가중치 모양 {tuple(exp_w.shape)})"),
                             fix=Said("Return `weights @ v, weights`.",
                                      "`weights @ v, weights`를 반환하세요.")))
        swapped = (*exp_w.shape[:-2], exp_w.shape[-1], exp_w.shape[-2])
        if tuple(weights.shape) == swapped:  # k q^T: the shape itself names the cause
            _, cause_en, cause_ko = diagnose.WEIGHT_CAUSES["qk_swapped"]
            shape = tuple(exp_w.shape)
            wanted = Said(f"shape {shape}", f"모양이 {particle(str(shape), '이어야')} 함")
            fail_check(check(_part(what, "weights"), wanted,
                             Said(f"{tuple(weights.shape)}", f"{tuple(weights.shape)}입니다"),
                             cause=Cause(cause_en, cause_ko, "qk_swapped")))
        check_shape(weights, tuple(exp_w.shape), _part(what, "weights"))
    check_dtype(weights, q.dtype, _part(what, "weights"),
                "Keep the inputs' dtype: compute in it, cast nothing.",
                "입력의 dtype을 유지하세요: 그 dtype으로 계산하고 변환하지 마세요.")
    if not diagnose.close(weights, exp_w, atol):
        cause = diagnose.weights_cause(weights, q, k, v, mask, atol=max(atol, 1e-4))
        figure = attention_figure(weights, exp_w, what, atol=atol, cause=cause)
        _fail_cells(weights, exp_w, _part(what, "weights"), atol, cause, figure)
    check_shape(out, tuple(exp_out.shape), _part(what, "output"), "output = weights @ v: (..., T_q, d_v).",
                "output = weights @ v: (..., T_q, d_v)입니다.")
    check_dtype(out, q.dtype, _part(what, "output"))
    if not diagnose.close(out, exp_out, atol * 10):
        _fail_cells(out, exp_out, _part(what, "output"), atol * 10, diagnose.output_cause(), None)


def check_mask(value: Any, T: int, what: str, expected: torch.Tensor,
               explain: Callable[[], Any] | None = None) -> None:
    """``causal_mask(T)``'s cells: (T, T), blocked exactly where ``expected`` is True; a picture when they
    differ. The cells are read as blocked where nonzero (a float 0/1 or additive 0/-inf mask with the
    right cells passes here): the dtype is ``check_mask_dtype``'s one check, so one mistake costs once.
    ``explain``: the student's mask at a size that tells the causes apart, asked for only when this one is
    wrong (at T = 1 an inverted mask and a blocked diagonal are the same cell: one mistake, one cause)."""
    mask = as_tensor(value, what)
    check_shape(mask, (T, T), what, "One row per query position, one column per key position.",
                "query 위치마다 한 행, key 위치마다 한 열입니다.")
    blocked = mask if mask.dtype == torch.bool else mask != 0
    if not torch.equal(blocked, expected):
        cause = diagnose.mask_cause(mask, T)
        larger = explain() if explain is not None else None
        if isinstance(larger, torch.Tensor) and larger.dim() == 2 and larger.shape[0] == larger.shape[1]:
            n = larger.shape[0]
            if not torch.equal(larger != 0, torch.ones(n, n, dtype=torch.bool).triu(1)):
                cause = diagnose.mask_cause(larger, n)
        figure = attention_figure(blocked.double(), expected.double(), what, atol=0.5, cause=cause,
                                  subject="mask")
        at = _first_wrong(blocked.double(), expected.double(), 0.5)
        _fail_cell(what, at, f"{bool(expected[at])}", f"{bool(blocked[at])}", cause, figure)


def check_mask_dtype(value: Any, T: int, what: str) -> None:
    """``causal_mask(T)`` is a bool tensor (True = blocked), the contract masked_fill reads directly."""
    mask = as_tensor(value, what)
    if mask.dtype == torch.bool:
        return
    key, en, ko = diagnose.mask_dtype_cause(mask, T)
    fail_check(check(what, Said("dtype torch.bool (True = blocked)",
                                "dtype이 torch.bool(True = 막힘)이어야 함"),
                     Said(f"{mask.dtype}", f"{mask.dtype}입니다"), fix=Said(en, ko)))


_NAMES = Said("The exercise names the four projections q_proj, k_proj, v_proj, out_proj.",
              "과제는 네 projection의 이름을 q_proj, k_proj, v_proj, out_proj로 정합니다.")
_NO_BIAS = Said("Keep the bias: nn.Linear(d_model, d_model) has one (bias=False drops it).",
                "bias를 두세요: nn.Linear(d_model, d_model)에는 bias가 있습니다(bias=False면 없어집니다).")


def read_weights(layer: Any, what: str) -> dict[str, torch.Tensor]:
    """The module's four projections (the contract names them), read back from the worker."""
    weights: dict[str, torch.Tensor] = {}
    for name in PROJECTIONS:
        for part in ("weight", "bias"):
            path = f"{name}.{part}"
            try:
                value = layer.attr(path)
            except StudentRaised:
                value = None
            if value is None:
                fail_check(check(what, Said(f"`self.{name} = nn.Linear(d_model, d_model)` (with bias)",
                                            f"`self.{name} = nn.Linear(d_model, d_model)`(bias 포함)이 "
                                            "있어야 함"),
                                 Said(f"no `{path}`", f"`{path}`가 없습니다"),
                                 # one cause wherever the layer is read (its words are the check's own)
                                 cause=Cause("", "", f"projection_missing:{path}"),
                                 # the weight read already: only the bias is missing
                                 fix=_NO_BIAS if part == "bias" else _NAMES))
            weights[path] = as_tensor(value, f"{what} {path}")
    return weights


def check_module_output(out: torch.Tensor, x: torch.Tensor, weights: dict[str, torch.Tensor], n_heads: int,
                        what: str, *, expected: torch.Tensor, atol: float = 1e-4) -> None:
    """The module's forward against ``expected`` (the reference with the module's own weights)."""
    check_shape(out, tuple(x.shape), what, "The output has the input's shape (B, T, d_model).",
                "출력은 입력과 같은 모양 (B, T, d_model)입니다.")
    if diagnose.close(out, expected, atol):
        return
    cause = diagnose.module_cause(out, x, weights, n_heads)
    if cause[0] == "module_formula":
        check_finite(out, what)  # NaN that no known mistake explains: say that first
    _fail_cells(out, expected, what, atol, cause, None)


def run_layer(student: Any, layer: Any, x: torch.Tensor, what: str) -> tuple[torch.Tensor, dict[str, int]]:
    """The layer's output on ``x`` with the reference causal_mask and scaled_dot_product_attention in place
    of the student's (probes.py), and how often forward called each: a layer's check charges the layer
    only, never a mistake of the functions it calls (those are graded in their own tasks)."""
    info = student.probe("with_reference_parts", layer, x)
    return as_tensor(info["output"], what), dict(info["calls"])


@contextmanager
def reference_parts(student: Any, layer: Any) -> Iterator[None]:
    """The reference causal_mask and scaled_dot_product_attention in place of the student's while a check
    calls ``layer`` through a probe of the kit's (the simulated GPU's ``device_check``), as ``run_layer``
    does for one call: a layer's check never charges a mistake of the functions it calls."""
    student.probe("use_reference_parts", layer)
    try:
        yield
    except BaseException:
        with suppress(Exception):  # the worker may be gone (a timeout): the check's own failure stands
            student.probe("restore_student_parts", layer)
        raise
    student.probe("restore_student_parts", layer)


def _leak_cause(calls: dict[str, int]) -> Cause:
    """Why a layer's earlier outputs move with later inputs, from what its forward was seen to call."""
    if calls.get("causal_mask") and calls.get("scaled_dot_product_attention"):
        return Cause("forward applies causal_mask, so the leak is in how the heads are split or merged: "
                     "(B, T, d_model) -> view(B, T, n_heads, d_head).transpose(1, 2), and back with "
                     "transpose(1, 2) before reshape(B, T, d_model); a reshape without the transpose mixes "
                     "positions.",
                     "forward가 causal_mask를 적용하므로 새는 곳은 헤드를 나누거나 합치는 부분입니다: (B, T, "
                     "d_model) -> view(B, T, n_heads, d_head).transpose(1, 2), 되돌릴 때는 reshape(B, T, "
                     "d_model) 전에 transpose(1, 2)를 하세요. transpose 없이 reshape하면 위치가 섞입니다.",
                     "heads_mix_positions")
    if calls.get("causal_mask"):  # the mask is made, the attention is the layer's own
        return Cause("forward makes causal_mask but computes the attention itself, and position t still "
                     "attends to later positions: fill the scores where the mask is True with -inf before "
                     "the softmax, or call scaled_dot_product_attention(q, k, v, mask).",
                     "forward가 causal_mask를 만들지만 어텐션을 직접 계산하고, 위치 t가 여전히 뒤의 위치를 "
                     "봅니다: softmax 전에 마스크가 True인 점수를 -inf로 채우거나 "
                     "scaled_dot_product_attention(q, k, v, mask)를 부르세요.", "mask_not_applied")
    return Cause("position t attends to later positions: forward never calls causal_mask; apply "
                 "causal_mask(T, device=x.device) (True above the diagonal) to the scores before the "
                 "softmax.",
                 "위치 t가 뒤의 위치를 봅니다: forward가 causal_mask를 부르지 않습니다. softmax 전에 점수에 "
                 "causal_mask(T, device=x.device)(대각선 위가 True)를 적용하세요.", "not_causal")


def _heads_cause(layer: Any, out: torch.Tensor, x: torch.Tensor, n_heads: int | None,
                 what: str) -> Cause | None:
    """The known mistake of the layer that explains a leak, as the forward check names it (the same key:
    one mistake, one card), from the layer's own weights and output: the heads' split or merge, a mask
    never applied; None when none is recognised or the weights cannot be read."""
    if n_heads is None:
        return None
    try:
        projections = read_weights(layer, what)
    except GradeFailure:
        return None
    key, en, ko = diagnose.module_cause(out, x, projections, n_heads)
    return None if key == "module_formula" else Cause(en, ko, key)


def check_causal(student: Any, layer: Any, x: torch.Tensor, cut: int, what: str, atol: float = 1e-5,
                 n_heads: int | None = None) -> None:
    """Changing the inputs after position ``cut`` leaves the outputs at 0..cut as they were (the layer run
    with the reference parts, ``run_layer``). With ``n_heads``, a leak a known mistake of the layer explains
    (the heads' split or merge, a mask never applied) is named as the forward check names it."""
    before, calls = run_layer(student, layer, x, what)
    changed = x.clone()
    changed[:, cut + 1:] = torch.randn_like(changed[:, cut + 1:]) * 3
    after, _ = run_layer(student, layer, changed, what)
    check_shape(before, tuple(x.shape), what)
    diff = (before[:, : cut + 1].double() - after[:, : cut + 1].double()).abs()
    if not bool(torch.isfinite(diff).all()) or float(diff.max()) > atol:
        bad = (~torch.isfinite(diff) | (diff > atol)).any(dim=(0, 2)).nonzero()
        t = int(bad[0])
        expect = Said(f"the output at positions 0..{cut} to stay the same when only positions "
                      f"{cut + 1}.. change",
                      f"{cut + 1}번 이후 위치만 바꾸면 0..{cut}번 위치의 출력은 그대로여야 함")
        if not bool(torch.isfinite(before[:, t]).all()):  # NaN is no leak: a position attends to nothing
            fail_check(check(what, expect,
                             Said(f"the output at position {t} is NaN", f"{t}번 위치의 출력이 NaN입니다"),
                             cause=Cause(f"position {t} sees no future, it gets NaN: nothing in forward may "
                                         "divide "
                                         "by zero or take a softmax over a row with every key blocked.",
                                         f"{t}번 위치는 미래를 보지 않고 NaN이 됩니다: forward에서 "
                                         "0으로 나누거나 모든 키가 막힌 행에 softmax를 하지 마세요.",
                                         "nan_output")))
        by = f"{float(diff[:, t].max()):.4g}"
        heads = _heads_cause(layer, before, x, n_heads, what)
        fail_check(check(what, expect,
                         Said(f"position {t} changed (by up to {by})",
                              f"{t}번 위치가 바뀌었습니다(최대 {by})"),
                         cause=heads or _leak_cause(calls)))


def check_names(message: str, numbers: tuple[int, ...], what: str, en: str, ko: str) -> None:
    """The ValueError's ``message`` names each of ``numbers``; ``en``/``ko`` say them in the sentence
    ("the bad value 3" / "잘못된 값 3가", with its particle)."""
    said = en.replace("{", "{{").replace("}", "}}")
    expect_check(mentions(message, *numbers),
                 check(what, Said(f"a message that names {en}", f"ValueError 메시지에 {ko} 있어야 함"),
                       Said(f"{message!r}", f"메시지는 {message!r}입니다")),
                 Said(f"{{lead}}the ValueError should name {said}; its message was {{found}}.",
                      "{lead}{expected_stem} 하는데 {found}."))
