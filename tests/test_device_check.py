"""The kit's device check (grader.core.testkit.device_check) on a lesson's functions, by name: on the GPU
FakeTensorMode simulates where torch is built with CUDA, and on the meta device that stands in for it with
the CPU wheel (Gradescope's), where fake CUDA tensors cannot be made."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
import torch

from grader.engine.lessons import load_lesson
from grader.engine.runner import GradeOptions, grade_path

LESSON = '''
from grader.engine.lesson_api import Layout, Lesson, Task

LESSON = Lesson(
    name="Devices",
    tasks=(Task("double", "Doubling", "두 배", ("double",)), Task("shift", "Shift", "이동", ("shift",)),
           Task("triple", "Tripling", "세 배", ("triple",))),
    layout=Layout(modules=("ops",), probe_modules=("ops",)),
)
'''

SUITE = '''
import pytest
import torch

from grader.core.feedback import Cause
from grader.core.testkit import device_check


@pytest.mark.task("double")
def test_double(student):
    info = device_check(student, "double", torch.ones(2, 3), what="double(x)")
    assert [item["shape"] for item in info["output"]["items"]] == [[2, 3], []]


@pytest.mark.task("shift")
def test_shift(student):
    device_check(student, "ops.shift", torch.ones(2, 3), what="shift(x)",
                 cause=Cause("a tensor made on the CPU", "CPU에 만든 텐서", "made_on_cpu"))


@pytest.mark.task("triple")
def test_triple(student):
    device_check(student, "triple", torch.ones(2, 3), what="triple(x)")
'''

SUBMISSION = '''
import torch


def double(x):
    return x * 2, x.sum()


def shift(x):
    return x + torch.ones(x.shape[-1])  # made on the CPU: fine there, refused on a GPU


def triple(x):
    raise NotImplementedError("triple")
'''


@pytest.mark.parametrize("cuda_built", [True, False], ids=["fakecuda", "cpu-wheel-meta"])
def test_a_function_runs_on_a_simulated_gpu_with_either_wheel(cuda_built: bool, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    if cuda_built and not torch.backends.cuda.is_built():
        pytest.skip("this torch is the CPU wheel: FakeTensorMode cannot make CUDA tensors")
    monkeypatch.setattr(torch.backends.cuda, "is_built", lambda: cuda_built)  # the grader's choice of device
    (tmp_path / "devices_lesson.py").write_text(textwrap.dedent(LESSON), encoding="utf-8")
    (tmp_path / "suites" / "public").mkdir(parents=True)
    (tmp_path / "suites" / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "suites" / "public" / "test_ops.py").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "ops.py").write_text(textwrap.dedent(SUBMISSION), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        results = grade_path(tmp_path / "sub", GradeOptions(lesson="devices_lesson",
                                                            suites_dir=tmp_path / "suites"))
    finally:
        load_lesson.cache_clear()
        sys.modules.pop("devices_lesson", None)
    by_task = {t["task"]: t for t in results["tests"]}
    double = by_task["double"]
    assert double["status"] == "passed", double.get("message")  # a tuple's every item on the device
    shift = by_task["shift"]
    device = "cuda" if cuda_built else "meta"
    assert shift["status"] == "failed", shift
    assert f"shift(x): on a (simulated) GPU: expected it to work on {device} inputs" in shift["message"]
    assert "Likely cause: a tensor made on the CPU" in shift["message"]
    assert "(시뮬레이션한) GPU의" in shift["messages"]["ko"]
    # the student's own stub reads as not started, on the device as anywhere
    assert "Not attempted" in by_task["triple"]["message"], by_task["triple"]
