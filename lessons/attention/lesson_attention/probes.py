"""This lesson's worker probes: the layer run with the reference attention and mask in place of the student's.

Shipped to the worker as ``Lesson.probes`` (grader/engine/lesson_api.py) and run in a fresh namespace per
call, so it imports only what the worker binds at start (torch, torch.nn, typing) and nothing of the grader.
One mistake, one task charged: a wrong ``causal_mask`` or ``scaled_dot_product_attention`` is its own task's
loss; the layer's checks run the layer with these reference parts swapped into the student's module (for the
one call, then put back; or, around a check the kit runs with its own probe, from ``use_reference_parts`` to
``restore_student_parts``), so they see only what the layer itself does: its projections, heads, merge, and
whether it calls the mask at all. The probe returns observations (the output, how often each part was called),
never a verdict.
"""

from __future__ import annotations

from typing import Any

import torch


def _reference_mask(T: Any, device: Any = None) -> torch.Tensor:
    """(T, T) bool, True above the diagonal: the mask the public suite builds."""
    return torch.ones(T, T, dtype=torch.bool, device=device).triu(1)


def _reference_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: Any = None) -> Any:
    """(output, weights) of softmax(q k^T / sqrt(d_k)) v, blocked scores at -inf, a fully blocked row 0."""
    s = (q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5
    if mask is not None:
        s = s.masked_fill(mask, -float("inf"))
    w = s.softmax(-1)
    if mask is not None:
        w = w.masked_fill(mask, 0.0)
    return w @ v, w


def _swap_in(layer: Any, parts: dict[str, Any]) -> Any:
    """Put ``parts`` where the layer's forward finds the student's functions: the module its forward reads
    names from and any attribute of the layer (or its submodules) that holds one of them (a function kept
    in ``__init__``); returns what puts the student's back."""
    scope = type(layer).forward.__globals__  # the student's module, as forward resolves its names
    saved = {name: scope[name] for name in parts if name in scope}
    student = {id(fn): name for name, fn in saved.items()}
    kept = [(module, attr, value) for module in layer.modules() for attr, value in list(vars(module).items())
            if id(value) in student]
    for module, attr, value in kept:
        object.__setattr__(module, attr, parts[student[id(value)]])
    scope.update(parts)

    def restore() -> None:
        for name in parts:
            if name in saved:
                scope[name] = saved[name]
            else:
                scope.pop(name, None)
        for module, attr, value in kept:
            object.__setattr__(module, attr, value)

    return restore


def probe_with_reference_parts(worker: Any, layer: Any, x: torch.Tensor) -> dict:
    """``layer(x)`` with the reference ``causal_mask`` and ``scaled_dot_product_attention`` in place of the
    student's; {"output", "calls": {name: times called}}."""
    calls = {"causal_mask": 0, "scaled_dot_product_attention": 0}

    def mask(*args: Any, **kwargs: Any) -> torch.Tensor:
        calls["causal_mask"] += 1
        return _reference_mask(*args, **kwargs)

    def attention(*args: Any, **kwargs: Any) -> Any:
        calls["scaled_dot_product_attention"] += 1
        return _reference_attention(*args, **kwargs)

    restore = _swap_in(layer, {"causal_mask": mask, "scaled_dot_product_attention": attention})
    try:
        with torch.no_grad():
            out = layer(x)
    finally:
        restore()
    return {"output": out, "calls": calls}


# Where a swap that spans other probes (the kit's device check) keeps its way back, in the student's module.
_RESTORE = "__gk_restore_student_parts__"


def probe_use_reference_parts(worker: Any, layer: Any) -> None:
    """The reference parts in place of the student's until ``restore_student_parts``: for a check the kit
    runs with its own probe (the simulated GPU's), which calls the layer as it is."""
    scope = type(layer).forward.__globals__
    if _RESTORE not in scope:
        scope[_RESTORE] = _swap_in(layer, {"causal_mask": _reference_mask,
                                           "scaled_dot_product_attention": _reference_attention})


def probe_restore_student_parts(worker: Any, layer: Any) -> None:
    """The student's ``causal_mask`` and ``scaled_dot_product_attention`` back where they were."""
    restore = type(layer).forward.__globals__.pop(_RESTORE, None)
    if restore is not None:
        restore()
