"""Grader-written operations that run inside the worker, on student objects: the kit's, for any lesson.

Each ``probe_<name>(worker, *args)`` returns observations (tensors, shapes,
names), never a verdict: the grader decides.  Everything here runs in the
untrusted process, so a hostile submission could tamper with it; the tests
therefore prefer behavioural observations (outputs for inputs the grader
chose) over self-reported structure, and use structure only to explain.

A lesson's own probes (its harness, its spies) live in its package and reach
the worker beside these (``Lesson.probes``, grader/engine/lesson_api.py); a
name defined here is always the kit's.
"""

from __future__ import annotations

import copy
from typing import Any

import torch
from torch import nn


def _tensor_info(t: torch.Tensor) -> dict:
    return {"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch."), "device": str(t.device)}


def probe_module_summary(worker: Any, module: nn.Module) -> dict:
    """Buffers, parameters, tensor attributes and children of a module tree."""
    if not isinstance(module, nn.Module):
        return {"is_module": False, "type": type(module).__name__}
    buffers = []
    for prefix, sub in module.named_modules():
        for name, buf in sub._buffers.items():
            if buf is None:
                continue
            full = f"{prefix}.{name}" if prefix else name
            buffers.append(dict(_tensor_info(buf), name=full,
                                persistent=name not in sub._non_persistent_buffers_set))
    params = [dict(_tensor_info(p), name=n) for n, p in module.named_parameters(remove_duplicate=False)]
    distinct = len({id(p) for p in module.parameters()})
    plain = []
    for prefix, sub in module.named_modules():
        for name, value in vars(sub).items():
            if isinstance(value, torch.Tensor) and not name.startswith("_"):
                plain.append(dict(_tensor_info(value), name=f"{prefix}.{name}" if prefix else name,
                                  is_parameter=isinstance(value, nn.Parameter)))
    children = {name: type(child).__name__ for name, child in module.named_children()}
    embedding_shapes = {name: [child.num_embeddings, child.embedding_dim]
                        for name, child in module.named_children() if isinstance(child, nn.Embedding)}
    return {
        "is_module": True,
        "type": type(module).__name__,
        "buffers": buffers,
        "parameters": params,
        "distinct_parameters": distinct,
        "plain_tensors": plain,
        "children": children,
        "embeddings": embedding_shapes,
        "training": module.training,
    }


def probe_same_object(worker: Any, obj: Any, path_a: str, path_b: str) -> bool:
    return _walk(obj, path_a) is _walk(obj, path_b)


def _walk(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def probe_set_tensor(worker: Any, module: nn.Module, path: str, value: torch.Tensor) -> None:
    """Copy ``value`` into the parameter or buffer at ``path`` (in place)."""
    with torch.no_grad():
        _walk(module, path).copy_(value)


def probe_device_check(worker: Any, module: nn.Module, ids: torch.Tensor, device: str) -> dict:
    """Move a copy of the module to ``device`` and run a forward on ids there.

    ``device`` is ``meta``, ``cuda`` (real GPU) or ``fakecuda``: the latter runs
    under FakeTensorMode, which simulates CUDA without a GPU and raises on
    mixed-device ops exactly like a real GPU would.
    """
    model = copy.deepcopy(module)
    if device == "fakecuda":
        from torch._subclasses.fake_tensor import FakeTensorMode

        with FakeTensorMode(allow_non_fake_inputs=True):
            model = model.to("cuda")
            out = model(ids.to("cuda"))
            return _result_info(model, out)
    model = model.to(device)
    with torch.no_grad():
        out = model(ids.to(device))
    return _result_info(model, out)


def probe_device_call(worker: Any, target: Any, args: tuple, kwargs: dict, device: str) -> dict:
    """Call ``target`` with its tensor arguments moved to ``device`` (``meta``, ``cuda`` or ``fakecuda``,
    as ``device_check``): a graded name (``module.name``, resolved as ``student.call`` resolves it) or a
    student's object (a module: a copy moved there first). A tensor made inside from no argument stays on
    the CPU, so a mixed op raises as on a GPU. The output's description comes back (a tuple's, each)."""
    fn = worker.resolve(target) if isinstance(target, str) else target
    if isinstance(fn, nn.Module):
        fn = copy.deepcopy(fn)

    def run(to: str) -> dict:
        call = fn.to(to) if isinstance(fn, nn.Module) else fn
        moved = [a.to(to) if isinstance(a, torch.Tensor) else a for a in args]
        named = {k: v.to(to) if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
        out = call(*moved, **named)
        info = _result_info(call, out) if isinstance(call, nn.Module) else {}
        info.update(output=_output_info(out), device=to)
        return info

    if device == "fakecuda":
        from torch._subclasses.fake_tensor import FakeTensorMode

        with FakeTensorMode(allow_non_fake_inputs=True):
            return run("cuda")
    with torch.no_grad():
        return run(device)


def _output_info(out: Any) -> dict:
    if isinstance(out, torch.Tensor):
        return _tensor_info(out)
    if isinstance(out, tuple | list):
        return {"type": type(out).__name__, "items": [_output_info(o) for o in out]}
    return {"type": type(out).__name__}


def _result_info(model: nn.Module, out: Any) -> dict:
    info = {"output": _tensor_info(out) if isinstance(out, torch.Tensor) else {"type": type(out).__name__}}
    info["buffers"] = {n: str(b.device) for n, b in model.named_buffers()}
    info["parameters"] = {n: str(p.device) for n, p in model.named_parameters()}
    return info


def probe_seed(worker: Any, seed: int) -> None:
    torch.manual_seed(seed)
