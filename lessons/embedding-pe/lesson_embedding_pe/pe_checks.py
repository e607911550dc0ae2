"""This lesson's checks of a sinusoidal table: the formula, the likely cause of a wrong table, its picture.

The suites' value checks of ``sinusoidal_pe`` and of the rows forward adds (suites/*/test_pe.py,
test_embedding.py): a wrong table names its first bad cell and the likely cause in the student's terms
(``diagnose_pe``), and a failing check keeps both tables for the report to draw (``table_figure``,
``pictured``; drawn by grader/report/table_figure.py). The lesson-neutral tensor checks they build on are the
kit's (grader/core/testkit.py).
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Iterator
from typing import Any

import torch

from grader.author import (
    Cause,
    GradeFailure,
    Said,
    check,
    fail_check,
    first_mismatch,
    max_diff,
    particle,
    with_cause,
    wrong_cells,
)


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


def max_len_fix(exc: Any) -> Said:
    """What to fix when T == max_len fails: the student's own length check (its line raises), else
    a row read past max_len - 1 (torch's own error: positions 1..T instead of 0..T-1)."""
    if re.search(r"\braise\b", str((getattr(exc, "where", None) or {}).get("code", ""))):
        return Said("Positions 0..max_len-1 all exist: is the check `T > max_len` (not >=)?",
                    "위치 0..max_len-1은 모두 있습니다: 검사가 `T > max_len`(>= 아님)인가요?")
    return Said("This is torch's error, not your length check: forward reads a row past max_len - 1. "
                "Positions run 0..T-1 (torch.arange(T), pe[:T]), not 1..T.",
                "길이 검사가 아니라 torch의 오류입니다: forward가 max_len - 1 너머의 행을 읽습니다. "
                "위치는 1..T가 아니라 0..T-1입니다(torch.arange(T), pe[:T]).")


def learned_table(student: Any, layer: Any, max_len: int, d_model: int) -> str | None:
    """The name of the learned position table ``layer`` holds, whatever it is called: its one parameter
    besides tok's weight shaped (…, max_len, d_model) (an nn.Embedding's weight, a Parameter), else None."""
    names = [p["name"] for p in student.probe("module_summary", layer)["parameters"]
             if p["name"] != "tok.weight" and p["shape"][-2:] == [max_len, d_model]]
    return names[0] if len(names) == 1 else None


def check_pe_values(pe: torch.Tensor, expected: torch.Tensor, what: str, atol: float) -> None:
    """The table must match ``expected``; a mismatch names the first bad cell and the likely cause."""
    if max_diff(pe, expected) <= atol:
        return
    at = first_mismatch(pe, expected, atol)
    assert at is not None
    key, cause_en, cause_ko = diagnose_pe(pe, *pe.shape)
    want, got = f"{float(expected[at]):.6f}", f"{float(pe[at]):.6f}"
    fail_check(check(Said(f"{what}: at {at}", what),
                     Said(want, f"{at} 위치에서 {particle(want, '이어야')} 함"),
                     Said(got, f"{got}입니다"), cause=Cause(cause_en, cause_ko, key)),
               Said("{what} expected {expected}; found {found}.{tail}",
                    "{lead}{expected_stem} 하는데 {found}.{tail}"))


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


def table_figure(found: torch.Tensor, expected: torch.Tensor, what: str, *, atol: float,
                 subject: str = "table", cause: tuple[str, str] | None = None) -> dict | None:
    """The two tables of a failed check, for the report's picture (grader/report/table_figure.py,
    its words in lesson_embedding_pe/report/figure.py).

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
            if cause.get("key") == "transposed":
                with_cause(exc, Cause(cause["en"], cause["ko"], "transposed"))
        raise


def diagnose_pe(actual: torch.Tensor, max_len: int, d_model: int) -> tuple[str, str, str]:
    """The likely cause of a wrong sinusoidal table, in the student's terms: (key, en, ko).

    Each names what the report's picture of the table shows (report/figure.py).
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
        # 10000^(i/d_model) with i the pair's index, not 2i: the very table of base 100 (100 = 10000^(1/2)),
        # and far more often the mistake than a 100 no one writes
        if max_diff(a, pe_formula_base(max_len, d_model, 100.0)) < 1e-4:
            return ("exponent_i",
                    "the exponent is i/d_model instead of 2i/d_model: 10000^(i/d_model), with i the column "
                    "pair's index (0, 1, 2, ...), halves the even column's index 2i, so in the picture "
                    "columns 0 and 1 match and every later column pair changes faster down the rows than the "
                    "formula's. Use the even column index: torch.arange(0, d_model, 2) / d_model is "
                    "2i/d_model.",
                    "지수가 2i/d_model이 아니라 i/d_model입니다: 열 쌍의 번호 i(0, 1, 2, ...)를 쓴 "
                    "10000^(i/d_model)은 짝수 열 번호 2i를 절반으로 쓴 것이라, 그림에서 0, 1번 열은 같고 그 "
                    "뒤의 열 쌍은 수식보다 행을 따라 더 빠르게 변합니다. 짝수 열 번호를 쓰세요: "
                    "torch.arange(0, d_model, 2) / d_model이 2i/d_model입니다.")
        for base in (1000.0, 1e5):
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


def scale_cause(out: torch.Tensor, tokens: torch.Tensor, rows: torch.Tensor,
                d_model: int) -> tuple[str, str] | None:
    """forward == c * tok(ids) + rows for a constant c other than sqrt(d_model) (and 1, said elsewhere): the
    cause in the student's terms, else None."""
    o, t = out.double() - rows.double(), tokens.double()
    c = float((o * t).sum() / (t * t).sum()) if float((t * t).sum()) > 0 else 0.0
    if min(abs(c - 1), abs(c - math.sqrt(d_model))) < 1e-3 or max_diff(o, c * t) > 1e-4:
        return None
    root = f"sqrt({d_model}) = {math.sqrt(d_model):.4g}"
    return (f"the token vectors are multiplied by {c:.4g}, not by sqrt(d_model) = {root}.",
            f"토큰 벡터에 sqrt(d_model) = {root}가 아니라 {c:.4g}를 곱했습니다.")


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
    return ("compare your forward with tok(ids) * sqrt(d_model) + position rows 0..T-1 (the picture outlines "
            "where the rows forward added differ).",
            "forward를 tok(ids) * sqrt(d_model) + 위치 0..T-1 행과 비교해 보세요(그림에서 forward가 더한 "
            "행이 다른 곳에 테두리가 있습니다).")


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


