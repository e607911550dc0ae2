"""Checks shared by the suites of any lesson: each turns a wrong value into a TA-style message.

Every comparison happens here, in the grader process, on plain tensors rebuilt
from bytes, with torch functions the submission cannot reach.
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

import torch

from grader.core import seeds
from grader.core.errors import StudentRaised
from grader.core.feedback import Cause, Said, check, expect_check, fail_check
from grader.core.lang import particle
from grader.core.reference import Reference  # noqa: F401  (re-exported: suites import it from here)
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
    frame: FrameType | None = sys._getframe(1)
    outer: FrameType | None = None
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
    that may run inside whichever test asks first, or beside the tests (a lesson's prefetch),
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


def as_tensor(value: Any, what: Said | str) -> torch.Tensor:
    """The value must be a real tensor that came back with data."""
    if isinstance(value, MetaTensor):
        fail_check(check(what, Said("a tensor with values", "값이 있는 텐서"),
                         Said(f"a tensor on device '{value.device}' (no data)",
                              f"device '{value.device}' 텐서(값 없음)")),
                   Said("{lead}expected {expected}; found {found}.",
                        "{lead}{expected}를 기대했는데 {found}가 왔습니다."))
    if not isinstance(value, torch.Tensor):
        kind = type(value).__name__
        fail_check(check(what, Said("a torch.Tensor", "torch.Tensor를 반환해야 함"),
                         Said(kind, f"{particle(kind, '이')} 왔습니다"),
                         fix=Said("Return the tensor itself.", "텐서 자체를 반환하세요.")))
    assert type(value) is torch.Tensor  # protocol.decode only ever builds plain tensors
    return value


def _fix(en: str, ko: str) -> Said | None:
    return Said(en, ko) if en or ko else None


def check_shape(t: torch.Tensor, shape: tuple[int, ...], what: Said | str, fix_en: str = "",
                fix_ko: str = "") -> None:
    """``fix_en``/``fix_ko``: what to do about a wrong shape, in the student's terms."""
    if tuple(t.shape) != tuple(shape):
        want = str(tuple(shape))
        fail_check(check(what, Said(f"shape {want}", f"모양이 {particle(want, '이어야')} 함"),
                         Said(f"{tuple(t.shape)}", f"{tuple(t.shape)}입니다"), fix=_fix(fix_en, fix_ko)))


def check_dtype(t: torch.Tensor, dtype: torch.dtype, what: Said | str, fix_en: str = "", fix_ko: str = "",
                explained_by: str | None = None, cause: str = "") -> None:
    """``explained_by``: a lesson's cause that makes this check fail although its own code may be right;
    ``cause``: the key this mistake goes by where it makes other checks fail (a lesson's links)."""
    if t.dtype != dtype:
        fail_check(check(what, Said(f"dtype {dtype}", f"dtype이 {particle(str(dtype), '이어야')} 함"),
                         Said(f"{t.dtype}", f"{t.dtype}입니다"), fix=_fix(fix_en, fix_ko),
                         explained_by=explained_by, cause=Cause("", "", cause) if cause else None))


def check_finite(t: torch.Tensor, what: str) -> None:
    """A floating tensor must hold no NaN or inf (a softmax over an all-masked row, a division by 0)."""
    expect_check(not t.is_floating_point() or bool(torch.isfinite(t).all()),
                 check(what, Said("finite numbers", "유한한 값이어야 함"),
                       Said("NaN or inf", "NaN 또는 inf가 있습니다")))


def max_diff(actual: torch.Tensor, expected: torch.Tensor) -> float:
    return float((actual.double() - expected.double()).abs().max()) if actual.numel() else 0.0


def first_mismatch(actual: torch.Tensor, expected: torch.Tensor, atol: float) -> tuple[int, ...] | None:
    bad = ((actual.double() - expected.double()).abs() > atol).nonzero()
    return tuple(int(i) for i in bad[0]) if len(bad) else None


def wrong_cells(found: torch.Tensor, expected: torch.Tensor, atol: float) -> torch.Tensor:
    """A mask over ``found``: cells outside ``expected``'s shape, not finite, or off by more than atol."""
    mask = torch.ones(found.shape, dtype=torch.bool)
    rows, cols = min(found.shape[0], expected.shape[0]), min(found.shape[1], expected.shape[1])
    a, b = found[:rows, :cols], expected[:rows, :cols]
    mask[:rows, :cols] = ~torch.isfinite(a) | ((a - b).abs() > atol)
    return mask


def check_close(value: Any, want: torch.Tensor, what: str, *, atol: float = 1e-5, fix_en: str = "",
                fix_ko: str = "", cause: str = "") -> torch.Tensor:
    """The generic value check: ``value`` (what the student's call returned) must be a tensor of ``want``'s
    shape, finite where ``want`` is, and within ``atol`` of it everywhere. A failure names the shape, or the
    first cell off and by how much; ``fix_en``/``fix_ko`` say what to do, ``cause`` is the mistake's key
    (``raised``). Returns the tensor, for further checks."""
    out = as_tensor(value, what)
    check_shape(out, tuple(want.shape), what, fix_en, fix_ko)
    if bool(torch.isfinite(want).all()):
        check_finite(out, what)
    cell = first_mismatch(out, want, atol)
    if cell is not None:
        diff, at = max_diff(out, want), str(list(cell))
        fail_check(check(what, Said(f"values within {atol:g} of the reference's",
                                    f"기준 풀이의 값과 {atol:g} 이내여야 함"),
                         Said(f"values off by up to {diff:.3g} (first at {at}: {float(out[cell]):.4g} "
                              f"instead of {float(want[cell]):.4g})",
                              f"최대 {diff:.3g}만큼 다른 값입니다({at}에서 처음: "
                              f"{float(want[cell]):.4g} 대신 {float(out[cell]):.4g})"),
                         fix=_fix(fix_en, fix_ko), cause=Cause("", "", cause) if cause else None))
    return out


def raised(outcome: Any, kind: str, what: str, why_en: str, why_ko: str, cause: str = "") -> None:
    """The call must have raised ``kind`` (or a subclass name the student chose to derive). ``cause``:
    the key the checks of one missing validation share (0, -3 and 2.5 unchecked: one card, not three),
    whether the call returned or raised something else."""
    expected, why = Said(kind, f"{particle(kind, '가')} 발생해야 함"), _fix(why_en, why_ko)
    named = Cause("", "", cause) if cause else None
    if outcome.error is None:
        fail_check(check(what, expected, Said("the call returned normally", "정상적으로 반환했습니다"),
                         fix=why, cause=named),
                   Said("{lead}expected {expected}; {found}.{tail}",
                        "{lead}{expected_stem} 하는데 {found}.{tail}"))
    if kind not in outcome.error.bases:
        error = f"{outcome.error.type_name}: {outcome.error.message}"
        fail_check(check(what, expected, Said(error, f"{error} 예외가 발생했습니다"), fix=why, cause=named))


def mentions(message: str, *numbers: int) -> bool:
    """Does the message name each number (as a whole number, not a digit of another)?"""
    import re

    # Signs are not compared: "got -4" and "d_model=-4" and "length-20" all name the number.
    found = {int(m) for m in re.findall(r"\d+", message)}
    return all(abs(n) in found for n in numbers)


def simulated_gpu() -> tuple[str, str]:
    """(the device ``device_check`` asks the worker for, the device its output lands on). Where torch is
    built with CUDA (PyPI's default wheel), a GPU simulated without one: FakeTensorMode (``fakecuda``), which
    raises on mixed devices as a GPU does. The CPU wheel (what Gradescope installs) cannot make even fake
    CUDA tensors, so there the meta device stands in: it too refuses a CPU tensor mixed into an op."""
    return ("fakecuda", "cuda") if torch.backends.cuda.is_built() else ("meta", "meta")


def _devices(info: Any) -> list[str]:
    """Every device in an output's description (a tuple's items too)."""
    if not isinstance(info, dict):
        return []
    if "items" in info:
        return [d for item in info["items"] for d in _devices(item)]
    return [str(info["device"])] if "device" in info else []


def device_check(student: Any, target: Any, *args: Any, what: str, cause: Cause | None = None,
                 template: Said | None = None, **kwargs: Any) -> dict[str, Any]:
    """Run ``target`` on a simulated GPU (``simulated_gpu``) with its tensor arguments moved there, and check
    that it runs and its output is there; the worker's description of the run comes back (``output``: shape,
    dtype, device, a tuple's ``items``; for a module, its ``buffers`` and ``parameters`` by device).

    ``target``: a graded name (``"attention.causal_mask"``, or a bare name of the lesson's contract) or a
    student's object that ``student.call`` returned (an ``nn.Module``: a copy is moved there first). Pass
    CPU tensors: each is moved in the worker (a meta tensor sent from here would arrive as a description).
    A raise in the student's code fails the check with ``cause`` (the likely mistake: a tensor made on the
    CPU); the student's own ``raise NotImplementedError`` still reads as not attempted, while torch's own
    (an op the device lacks, raised from a finished line) is an ordinary failure. ``template``: the
    check's sentence (default: the kit's)."""
    probe_device, device = simulated_gpu()
    by_name = isinstance(target, str)
    if by_name and "." not in target and target in student.home:  # a bare name: its module by the contract
        target = f"{student.home[target]}.{target}"
    try:
        info = student.probe("device_call", target, args, kwargs, probe_device)
    except StudentRaised as exc:
        error = f"{exc.type_name}: {exc.message[:300]}"
        if by_name:
            expected = Said(f"it to work on {device} inputs",
                            f"(시뮬레이션한) GPU의 {device} 입력으로 동작해야 함")
        else:
            expected = Said(f".to({device!r}) then forward on {device} inputs to work",
                            f"(시뮬레이션한) GPU에서 .to({device!r}) 후 {device} 입력으로 forward가 "
                            "동작해야 함")
        # "WHAT: on a (simulated) GPU, expected ..." / "WHAT: (시뮬레이션한) GPU에서 ...이어야 하는데 ..."
        fail_check(check(Said(f"{what}: on a (simulated) GPU", what), expected,
                         Said(error, f"{error} 예외가 발생했습니다"), cause=cause),
                   template or Said("{lead}expected {expected}; found {found}.{tail}",
                                    "{lead}{expected_stem} 하는데 {found}.{tail}"))
    found = info["output"]
    devices = _devices(found)
    expect_check(bool(devices) and all(d.startswith(device) for d in devices),
                 check(what, Said(f"the output on {device}", f"출력이 {device}에 있어야 함"),
                       Said(f"{found}", f"{found}입니다")))
    return info
