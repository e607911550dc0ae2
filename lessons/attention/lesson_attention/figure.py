"""A failed check's attention matrix beside the right one, as data a test failure carries (``figure``).

The report draws it (lesson_attention/report.py); results.json keeps it, so the picture needs no
rerun. Cells are rounded, None where not finite (JSON has no NaN); one (T_q, T_k) matrix is kept,
the first of the batch (and head) axes with a wrong cell, cropped to its top-left corner.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # torch is imported where a figure is made: the report reads KIND without it
    import torch

KIND = "attention-weights"
ROWS, COLS = 16, 16


def _cells(t: torch.Tensor) -> list[list[float | None]]:
    return [[round(v, 4) if math.isfinite(v) else None for v in row] for row in t.tolist()]


def wrong_cells(found: torch.Tensor, expected: torch.Tensor, atol: float) -> torch.Tensor:
    """Cells (same shape) not finite where the right one is, finite where it is not, or off by > atol."""
    import torch

    f, e = found.double(), expected.double()
    finite_f, finite_e = torch.isfinite(f), torch.isfinite(e)
    off = torch.zeros_like(finite_f)
    both = finite_f & finite_e
    off[both] = (f - e).abs()[both] > atol
    return off | (finite_f != finite_e)


def attention_figure(found: torch.Tensor, expected: torch.Tensor, what: str, *, atol: float,
                     cause: tuple[str, str, str], subject: str = "weights") -> dict | None:
    """The student's matrix and the right one (same shape, ``(..., T_q, T_k)``); None otherwise.

    ``subject``: "weights" (attention weights) or "mask" (causal_mask, True drawn as 1).
    """
    import torch

    if found.shape != expected.shape or found.dim() < 2 or not found.numel():
        return None
    f = found.detach().double().reshape(-1, *found.shape[-2:])
    e = expected.detach().double().reshape(-1, *expected.shape[-2:])
    bad = wrong_cells(f, e, atol)
    index = int(bad.flatten(1).any(1).nonzero()[0]) if bool(bad.any()) else 0
    lead = list(found.shape[:-2])
    where = [int(i) for i in torch.unravel_index(torch.tensor(index), tuple(lead))] if lead else []
    shown = bad[index, :ROWS, :COLS]
    key, en, ko = cause
    return {
        "kind": KIND, "subject": subject, "what": what, "atol": atol, "slice": where,
        "shape": list(found.shape),
        "found": _cells(f[index, :ROWS, :COLS]), "expected": _cells(e[index, :ROWS, :COLS]),
        "wrong": [[int(r), int(c)] for r, c in shown.nonzero().tolist()],
        "wrong_total": int(bad[index].sum()), "cells_total": int(bad[index].numel()),
        "cause": {"key": key, "en": en, "ko": ko},
    }
