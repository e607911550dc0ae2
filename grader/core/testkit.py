"""Checks shared by the suites: each turns a wrong value into a TA-style message.

Every comparison happens here, in the grader process, on plain tensors rebuilt
from bytes, with torch functions the submission cannot reach.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import secrets
import sys
import threading
from collections.abc import Iterator
from typing import Any

import torch

from grader.core import seeds
from grader.core.feedback import GradeFailure, Message, expect, fail
from grader.runtime.protocol import MetaTensor

# The submission seed (grader/core/seeds.py) and the draws made from it so far.
_GRADING: dict[str, Any] = {"seed": None, "test": "", "counts": {}}
_OWNER = threading.local()  # a thread's explicit owner of draws (owning)


def begin_grading(seed: str | None) -> None:
    """Set by the plugin for each submission; None (the kit used outside grading) draws from `secrets`."""
    _GRADING.update(seed=seed, test="", counts={}, notes={})


def note(en: str, ko: str) -> None:
    """A message on the running test that passes anyway: the grader's own trouble, told at no cost."""
    _GRADING.setdefault("notes", {})[_GRADING["test"]] = {"en": en, "ko": ko}


def note_of(nodeid: str) -> dict[str, str] | None:
    return _GRADING.get("notes", {}).get(nodeid)


def begin_test(nodeid: str) -> None:
    """Each test starts from its own seeds: a rerun of one test (`-k`) draws what it drew in the full run."""
    _GRADING["test"] = nodeid
    random.seed(derived(f"{nodeid}|random"))
    # The CPU generator only: torch.manual_seed would also queue a CUDA seeding with its stack trace
    # (a millisecond a test), and the grader draws nothing on a GPU.
    torch.default_generator.manual_seed(derived(f"{nodeid}|torch"))


def derived(key: str) -> int:
    seed = _GRADING["seed"]
    return seeds.derive(seed, key) if seed else secrets.randbits(63)


def draw_owner() -> str:
    """Who draws: the running test, or the suite fixture that asks (module fixtures are shared by tests).

    A fixture's draws are keyed by the fixture, not by whichever test happened to set it up first,
    so one test rerun alone meets the same fixture data.
    """
    forced = getattr(_OWNER, "name", None)
    if forced:
        return forced
    frame, outer = sys._getframe(1), None
    # Up to the frame pytest called (past it lie pytest, and maybe a kit test that runs the grader).
    while frame is not None and not _is_pytest(frame.f_code.co_filename):
        name = os.path.basename(frame.f_code.co_filename)
        if name.startswith("test_") and name.endswith(".py"):
            outer = frame
        frame = frame.f_back
    if outer is None or outer.f_code.co_name.startswith("test_"):
        return _GRADING["test"]
    return f"{os.path.basename(outer.f_code.co_filename)}::{outer.f_code.co_name}"


@contextlib.contextmanager
def owning(owner: str) -> Iterator[None]:
    """Draws (and the worker's seed) in this thread keyed by ``owner``, from its first draw on: work
    that may run inside whichever test asks first, or beside the tests (grader/lesson/prefetch.py),
    draws the same wherever it runs."""
    previous = getattr(_OWNER, "name", None)
    _OWNER.name = owner
    counts = _GRADING["counts"]
    for key in [k for k in list(counts) if k[0] == owner]:
        counts.pop(key, None)
    try:
        yield
    finally:
        _OWNER.name = previous


def _is_pytest(filename: str) -> bool:
    parts = filename.replace("\\", "/").split("/")
    return "_pytest" in parts or "pluggy" in parts


def seed_for(label: str) -> int:
    """A fresh 63-bit seed: the n-th ``label`` draw of this test or fixture."""
    owner = draw_owner()
    counts = _GRADING["counts"]
    n = counts[owner, label] = counts.get((owner, label), -1) + 1
    return derived(f"{owner}|{label}|{n}")


def fresh_rng() -> Any:
    """A generator students cannot predict (the course secret), fixed per submission and test (replayable)."""
    return random.Random(seed_for("rng"))


def pe_formula(max_len: int, d_model: int) -> torch.Tensor:
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...), in float64 Python math."""
    rows = []
    for p in range(max_len):
        row = []
        for j in range(d_model):
            angle = p / 10000 ** ((j - j % 2) / d_model)
            row.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
        rows.append(row)
    return torch.tensor(rows, dtype=torch.float64)


def as_tensor(value: Any, what: str) -> torch.Tensor:
    """The value must be a real tensor that came back with data."""
    if isinstance(value, MetaTensor):
        fail(f"{what}: expected a tensor with values; found a tensor on device '{value.device}' (no data).",
             f"{what}: 값이 있는 텐서를 기대했는데 device '{value.device}' 텐서(값 없음)가 왔습니다.")
    if not isinstance(value, torch.Tensor):
        fail(f"{what}: expected a torch.Tensor; found {type(value).__name__}. Return the tensor itself.",
             f"{what}: torch.Tensor를 반환해야 하는데 "
             f"{type(value).__name__}이(가) 왔습니다. 텐서 자체를 반환하세요.")
    assert type(value) is torch.Tensor  # protocol.decode only ever builds plain tensors
    return value


def check_shape(t: torch.Tensor, shape: tuple[int, ...], what: str, cause_en: str = "",
                cause_ko: str = "") -> None:
    expect(tuple(t.shape) == tuple(shape),
           f"{what}: expected shape {tuple(shape)}; found {tuple(t.shape)}. {cause_en}".strip(),
           f"{what}: 모양이 {tuple(shape)}이어야 하는데 {tuple(t.shape)}입니다. {cause_ko}".strip())


def check_dtype(t: torch.Tensor, dtype: torch.dtype, what: str, cause_en: str = "",
                cause_ko: str = "") -> None:
    expect(t.dtype == dtype,
           f"{what}: expected dtype {dtype}; found {t.dtype}. {cause_en}".strip(),
           f"{what}: dtype이 {dtype}이어야 하는데 {t.dtype}입니다. {cause_ko}".strip())


def check_finite(t: torch.Tensor, what: str) -> None:
    if t.is_floating_point() and not bool(torch.isfinite(t).all()):
        fail(f"{what}: expected finite numbers; found NaN or inf.",
             f"{what}: 유한한 값이어야 하는데 NaN 또는 inf가 있습니다.")


def max_diff(actual: torch.Tensor, expected: torch.Tensor) -> float:
    return float((actual.double() - expected.double()).abs().max()) if actual.numel() else 0.0


def first_mismatch(actual: torch.Tensor, expected: torch.Tensor, atol: float) -> tuple[int, ...] | None:
    bad = ((actual.double() - expected.double()).abs() > atol).nonzero()
    return tuple(int(i) for i in bad[0]) if len(bad) else None


def check_pe_values(pe: torch.Tensor, expected: torch.Tensor, what: str, atol: float) -> None:
    """The table must match ``expected``; a mismatch names the first bad cell and the likely cause."""
    if max_diff(pe, expected) <= atol:
        return
    at = first_mismatch(pe, expected, atol)
    assert at is not None
    _key, cause_en, cause_ko = diagnose_pe(pe, *pe.shape)
    fail(f"{what}: at {at} expected {float(expected[at]):.6f}; found "
         f"{float(pe[at]):.6f}. Likely cause: {cause_en}",
         f"{what}: {at} 위치에서 {float(expected[at]):.6f}이어야 하는데 "
         f"{float(pe[at]):.6f}입니다. 원인 추정: {cause_ko}")


# -- the table as a picture ----------------------------------------------------------------------------
# A failing table check keeps both tables (cropped to the top-left corner) for the report to draw.
FIGURE_ROWS, FIGURE_COLS = 16, 16


def _cells(t: torch.Tensor) -> list[list[float | None]]:
    """Rounded values, None where not finite (JSON has no NaN)."""
    return [[round(v, 4) if math.isfinite(v) else None for v in row] for row in t.tolist()]


def _as_table(t: torch.Tensor) -> torch.Tensor | None:
    """A 2-D float table from a tensor of shape (L, d) or (1, L, d) (the buffer may keep a batch axis)."""
    if t.dim() == 3 and t.shape[0] == 1:
        t = t[0]
    return t.detach().double() if t.dim() == 2 and t.numel() else None


def wrong_cells(found: torch.Tensor, expected: torch.Tensor, atol: float) -> torch.Tensor:
    """A mask over ``found``: cells outside ``expected``'s shape, not finite, or off by more than atol."""
    mask = torch.ones(found.shape, dtype=torch.bool)
    rows, cols = min(found.shape[0], expected.shape[0]), min(found.shape[1], expected.shape[1])
    a, b = found[:rows, :cols], expected[:rows, :cols]
    mask[:rows, :cols] = ~torch.isfinite(a) | ((a - b).abs() > atol)
    return mask


def table_figure(found: torch.Tensor, expected: torch.Tensor, what: str, *, atol: float,
                 subject: str = "table", cause: tuple[str, str] | None = None) -> dict | None:
    """The two tables of a failed check, for the report's picture (grader/report/pe_figure.py).

    ``subject`` is "table" (sinusoidal_pe's return value) or "forward" (the rows forward added).
    ``wrong`` lists exactly the cells shown that differ from the formula by more than ``atol``.
    """
    f, e = _as_table(found), _as_table(expected)
    if f is None or e is None:
        return None
    mask = wrong_cells(f, e, atol)
    fr, fc = min(f.shape[0], FIGURE_ROWS), min(f.shape[1], FIGURE_COLS)
    er, ec = min(e.shape[0], FIGURE_ROWS), min(e.shape[1], FIGURE_COLS)
    shown = mask[:fr, :fc]
    if cause is None:
        key, en, ko = diagnose_pe(f, *e.shape) if subject == "table" else ("", "", "")
    else:
        key, (en, ko) = "", cause
    if not bool(mask.any()):
        key, en, ko = ("values_match",
                       "every value matches the formula; only the dtype or the shape check failed.",
                       "값은 모두 수식과 같습니다. dtype이나 모양 검사만 실패했습니다.")
    return {
        "kind": "pe-diff", "subject": subject, "what": what, "atol": atol,
        "found_shape": list(f.shape), "expected_shape": list(e.shape),
        "found": _cells(f[:fr, :fc]), "expected": _cells(e[:er, :ec]),
        "wrong": [[int(r), int(c)] for r, c in shown.nonzero().tolist()],
        "wrong_total": int(mask.sum()), "cells_total": int(f.numel()),  # of the student's whole table
        "cause": {"key": key, "en": en, "ko": ko},
    }


@contextlib.contextmanager
def pictured(found: Any, expected: Any, what: str, *, atol: float) -> Iterator[None]:
    """Checks of one sinusoidal table: a failure inside keeps both tables for the report to draw.

    ``expected`` is the formula's table, or a function making it (only built when a check fails).
    A shape failure the picture explains (a transposed table) gets that as its likely cause.
    """
    try:
        yield
    except GradeFailure as exc:
        if exc.figure is None and isinstance(found, torch.Tensor) and found.is_floating_point():
            table = expected() if callable(expected) else expected
            exc.figure = table_figure(found, table, what, atol=atol)
            cause = (exc.figure or {}).get("cause") or {}
            if cause.get("key") == "transposed" and "Likely cause" not in exc.message.en:
                exc.message = Message(f"{exc.message.en} Likely cause: {cause['en']}",
                                      f"{exc.message.ko} 원인 추정: {cause['ko']}")
        raise


def diagnose_pe(actual: torch.Tensor, max_len: int, d_model: int) -> tuple[str, str, str]:
    """The likely cause of a wrong sinusoidal table, in the student's terms: (key, en, ko).

    Each names what the report's picture of the table shows (grader/report/pe_figure.py).
    """
    a = actual.double()
    if a.dim() == 3 and a.shape[0] == 1:
        a = a[0]
    half = d_model // 2
    ref = pe_formula(max_len, d_model)
    concat = torch.cat([ref[:, 0::2], ref[:, 1::2]], dim=1)
    swapped = torch.empty_like(ref)
    swapped[:, 0::2], swapped[:, 1::2] = ref[:, 1::2], ref[:, 0::2]
    if a.shape == ref.shape:
        if max_diff(a, concat) < 1e-4:
            return ("concat",
                    "sin and cos are concatenated ([sin... | cos...]): in the picture the left half of your "
                    "table holds every sin column and the right half every cos column. The formula "
                    "interleaves them: even columns sin, odd columns cos (pe[:, 0::2] and pe[:, 1::2]).",
                    "sin과 cos를 이어 붙였습니다([sin... | cos...]): 그림에서 내 표의 왼쪽 절반이 sin 열, "
                    "오른쪽 절반이 cos 열입니다. 수식은 번갈아 넣습니다: 짝수 열은 sin, 홀수 열은 cos "
                    "(pe[:, 0::2], pe[:, 1::2]).")
        if max_diff(a, swapped) < 1e-4:
            return ("swapped",
                    "sin and cos are swapped: in the picture your row 0 reads 1, 0, 1, 0, ... where the "
                    "formula's reads 0, 1, 0, 1, .... Even columns (2i) take sin, odd columns (2i+1) cos.",
                    "sin과 cos가 뒤바뀌었습니다: 그림에서 내 0번 행은 1, 0, 1, 0, ...인데 수식의 0번 행은 "
                    "0, 1, 0, 1, ...입니다. 짝수 열(2i)이 sin, 홀수 열(2i+1)이 cos입니다.")
        if max_diff(a[:, 1::2], torch.zeros_like(a[:, 1::2])) < 1e-6:
            return ("no_cos",
                    "the odd columns are all zero (the blank stripes in the picture): the cos half is "
                    "missing.",
                    "홀수 열이 모두 0입니다(그림의 빈 줄무늬): cos 부분이 빠졌습니다.")
        if max_diff(a, pe_formula_positions(1, max_len, d_model)) < 1e-4:
            return ("from_one",
                    "every row is one position ahead: your row p is the formula's row p+1 (in the picture "
                    "your row 0 is the formula's row 1), so positions start at 1. Use torch.arange(max_len): "
                    "positions 0..max_len-1.",
                    "모든 행이 한 위치씩 앞서 있습니다: 내 p번 행이 수식의 p+1번 행입니다(그림에서 내 0번 "
                    "행이 수식의 1번 행). 위치가 1부터 시작합니다. torch.arange(max_len)으로 0..max_len-1을 "
                    "쓰세요.")
        for base in (1000.0, 100.0, 1e5):
            alt = pe_formula_base(max_len, d_model, base)
            if max_diff(a, alt) < 1e-4:
                speed_en, speed_ko = ("faster", "빠르게") if base < 10000 else ("slower", "느리게")
                return ("base",
                        f"the table matches base {base:g} instead of 10000 in 10000^(2i/d_model): in the "
                        f"picture columns 0 and 1 match and every later column pair changes {speed_en} down "
                        "the rows than the formula's.",
                        f"10000^(2i/d_model)의 밑이 10000이 아니라 {base:g}인 표와 같습니다: 그림에서 0, 1번 "
                        f"열은 같고 그 뒤의 열 쌍은 수식보다 행을 따라 더 {speed_ko} 변합니다.")
        per_dim = pe_formula_per_dim(max_len, d_model)
        if max_diff(a, per_dim) < 1e-4:
            return ("per_dim",
                    "the exponent uses the column index j instead of 2i (= j rounded "
                    "down to even): columns 2i and 2i+1 must share one frequency (in the picture the odd "
                    "columns are the wrong ones).",
                    "지수에 2i(짝수로 내린 열 번호) 대신 열 번호 j를 "
                    "썼습니다: 2i열과 2i+1열은 같은 주파수를 써야 합니다(그림에서 틀린 곳은 홀수 열입니다).")
        if half and max_diff(a[0], ref[0]) > 1e-4:
            return ("row0",
                    "row 0 should be [0, 1, 0, 1, ...] (sin 0 = 0, cos "
                    "0 = 1): in the picture your first row differs already; check that positions start at 0.",
                    "0번 행은 [0, 1, 0, 1, ...]이어야 합니다(sin 0 = 0, cos "
                    "0 = 1). 그림에서 첫 행부터 다릅니다. 위치가 0부터 시작하는지 확인하세요.")
    elif a.dim() == 2 and tuple(a.shape) == (d_model, max_len) and max_diff(a.T, ref) < 1e-4:
        # no sizes in the text: every check of one transposed table gives the same cause (one card)
        return ("transposed",
                "the table is transposed: shape (d_model, max_len), one row per dimension, so in the "
                "picture your rows are the formula's columns. Build it (max_len, d_model): one row per "
                "position.",
                "표가 전치되었습니다: 모양이 (d_model, max_len)로 차원마다 한 행이라, 그림에서 내 행이 "
                "수식의 열입니다. (max_len, d_model)로 만드세요: 위치마다 한 행.")
    return ("formula",
            "check the formula PE[p, 2i] = sin(p / 10000^(2i/d_model)), PE[p, 2i+1] = cos(same angle).",
            "수식 PE[p, 2i] = sin(p / 10000^(2i/d_model)), PE[p, 2i+1] = cos(같은 각도)를 확인하세요.")


def forward_rows_cause(added: torch.Tensor, rows: torch.Tensor) -> tuple[str, str]:
    """Why the rows forward added (``out - tok(ids) * sqrt(d)``, one sequence) differ from ``rows``."""
    a, r = added.double(), rows.double()
    if a.shape == r.shape and max_diff(a, torch.zeros_like(a)) < 1e-4:
        return ("no position rows were added (in the picture the rows forward added are all zero).",
                "위치 벡터를 더하지 않았습니다(그림에서 forward가 더한 행이 모두 0입니다).")
    if a.shape == r.shape and len(a) > 1 and max_diff(a[:-1], r[1:]) < 1e-4:
        return ("forward adds the rows one position ahead (pe[1:T+1]): in the picture your row p is the "
                "expected row p+1. Add rows 0..T-1: pe[:T].",
                "forward가 한 위치 앞선 행(pe[1:T+1])을 더합니다: 그림에서 내 p번 행이 기대한 p+1번 "
                "행입니다. 0..T-1번 행(pe[:T])을 더하세요.")
    return ("compare your forward with tok(ids) * sqrt(d_model) + position rows 0..T-1: the picture outlines "
            "where the rows forward added differ.",
            "forward를 tok(ids) * sqrt(d_model) + 위치 0..T-1 행과 비교해 보세요: 그림에서 forward가 더한 "
            "행이 다른 곳에 테두리가 있습니다.")


def pe_formula_positions(start: int, max_len: int, d_model: int) -> torch.Tensor:
    """The formula's rows start..start+max_len-1 (a table whose positions begin at ``start``)."""
    return pe_formula(start + max_len, d_model)[start:]


def pe_formula_base(max_len: int, d_model: int, base: float) -> torch.Tensor:
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]
    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    out = torch.zeros(max_len, d_model, dtype=torch.float64)
    out[:, 0::2], out[:, 1::2] = torch.sin(pos * freq), torch.cos(pos * freq)
    return out


def pe_formula_per_dim(max_len: int, d_model: int) -> torch.Tensor:
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]
    j = torch.arange(d_model, dtype=torch.float64)
    angle = pos / 10000 ** (j / d_model)
    out = torch.sin(angle)
    out[:, 1::2] = torch.cos(angle[:, 1::2])
    return out


def raised(outcome: Any, kind: str, what: str, why_en: str, why_ko: str) -> None:
    """The call must have raised ``kind`` (or a subclass name the student chose to derive)."""
    if outcome.error is None:
        fail(f"{what}: expected {kind}; the call returned normally. {why_en}",
             f"{what}: {kind}가 발생해야 하는데 정상적으로 반환했습니다. {why_ko}")
    if kind not in outcome.error.bases:
        fail(f"{what}: expected {kind}; found {outcome.error.type_name}: {outcome.error.message}. {why_en}",
             f"{what}: {kind}가 발생해야 하는데 {outcome.error.type_name}: "
             f"{outcome.error.message} 가 발생했습니다. {why_ko}")


def mentions(message: str, *numbers: int) -> bool:
    """Does the message name each number (as a whole number, not a digit of another)?"""
    import re

    # Signs are not compared: "got -4" and "d_model=-4" and "length-20" all name the number.
    found = {int(m) for m in re.findall(r"\d+", message)}
    return all(abs(n) in found for n in numbers)
