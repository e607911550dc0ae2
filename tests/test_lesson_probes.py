"""A lesson's own worker probes (``Lesson.probes``): shipped beside the kit's into every worker of its
grades, at each isolation level this machine allows (the zygote's forked workers included), and absent
from the workers of a lesson that declares none; a kit probe's name stays the kit's."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
import torch

from grader.core import tamper
from grader.core.errors import StudentRaised
from grader.engine.lessons import installed, load_lesson
from grader.paths import RUNTIME_DIR
from grader.runtime.worker import LESSON_PROBES
from grader.sandbox.client import WorkerClient
from grader.sandbox.launch import RUNTIME_FILES, SandboxPolicy, make_runtime, namespaces_status, uid_status

# A uid-level grade seals the shared checkout (takes its 'other' bits off) while it runs, and a
# grade at another level beside it on the same checkout cannot read it: these run on one xdist
# worker, one after another (pyproject's --dist loadgroup).
pytestmark = pytest.mark.xdist_group("kit-seal")

NAMESPACES, WHY_NO_NAMESPACES = namespaces_status()
UID, WHY_NO_UID = uid_status()

PROBES = textwrap.dedent('''
    from __future__ import annotations

    from typing import Any

    import torch


    def probe_doubled(worker: Any, x: torch.Tensor) -> torch.Tensor:
        return _twice(x)


    def _twice(x: torch.Tensor) -> torch.Tensor:  # a helper of its own, in its own namespace
        return x * 2


    def probe_square_of(worker: Any, target: str, n: int) -> int:
        """Runs the student's code, as a harness does."""
        return worker.resolve(target)(n) ** 2


    def probe_seed(worker: Any, seed: int) -> str:  # the kit has this name: never called
        return "the lesson's"
''')

LEVELS = [
    pytest.param("process", False, id="process"),
    pytest.param("uid", False, id="uid",
                 marks=pytest.mark.skipif(not UID, reason=f"no uid level: {WHY_NO_UID}")),
    pytest.param("namespaces", False, id="namespaces",
                 marks=pytest.mark.skipif(not NAMESPACES, reason=f"no namespaces: {WHY_NO_NAMESPACES}")),
    pytest.param("namespaces", True, id="namespaces-zygote",
                 marks=pytest.mark.skipif(not NAMESPACES, reason=f"no namespaces: {WHY_NO_NAMESPACES}")),
]


def _probe(client: WorkerClient, name: str, *args: object) -> object:
    return client.request({"op": "probe", "name": name}, args, {}, 60.0)


@pytest.fixture()
def setup(tmp_path: Path) -> tuple[Path, Path]:
    staging = tmp_path / "staging"
    staging.mkdir()
    (staging / "mathy.py").write_text("def inc(n):\n    return n + 1\n")
    probes = tmp_path / "lesson" / "probes.py"
    probes.parent.mkdir()
    probes.write_text(PROBES)
    return staging, probes


@pytest.mark.parametrize(("isolation", "zygote"), LEVELS)
def test_a_lessons_probes_reach_its_workers_and_no_others(setup, isolation: str, zygote: bool) -> None:
    staging, probes = setup
    policy = SandboxPolicy(isolation=isolation, zygote=zygote, probes=str(probes))
    with WorkerClient(staging, policy=policy) as client:
        assert client.isolation == isolation
        assert torch.equal(_probe(client, "doubled", torch.arange(3)), torch.tensor([0, 2, 4]))
        assert _probe(client, "square_of", "mathy.inc", 3) == 16
        assert _probe(client, "seed", 5) is None  # the kit's probe_seed, not the lesson's
        assert _probe(client, "module_summary", 3) == {"is_module": False, "type": "int"}  # the kit's too
    # A lesson with no probes of its own (from the same zygote, where there is one): the kit's only.
    with WorkerClient(staging, policy=SandboxPolicy(isolation=isolation, zygote=zygote)) as client:
        assert _probe(client, "seed", 5) is None
        with pytest.raises(StudentRaised, match="unknown probe 'doubled'") as raised:
            _probe(client, "doubled", torch.arange(3))
        assert raised.value.type_name == "ProtocolError"


def test_the_runtime_holds_the_lessons_file_only_when_it_has_one(tmp_path: Path, setup) -> None:
    _, probes = setup
    kit = make_runtime(tmp_path / "kit")
    assert sorted(p.name for p in kit.iterdir()) == sorted(RUNTIME_FILES.values())
    with_lesson = make_runtime(tmp_path / "lesson", probes)
    assert (with_lesson / LESSON_PROBES).read_text() == PROBES
    assert (with_lesson / LESSON_PROBES).stat().st_mode & 0o777 == 0o644  # a worker's uid reads it


def _probe_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("probe_")}


def test_this_courses_harness_is_its_lessons_not_the_kits() -> None:
    kit = _probe_names(RUNTIME_DIR / "probes.py")
    assert {"probe_module_summary", "probe_same_object", "probe_device_check", "probe_seed"} <= kit
    course = load_lesson("lesson_embedding_pe").probes
    assert course is not None and "probe_reversal_component" in _probe_names(course)
    assert "probe_reversal_component" not in kit


@pytest.mark.parametrize("lesson", sorted(installed()))
def test_no_lessons_probe_shadows_a_kit_probe(lesson: str) -> None:
    """A kit name is always the kit's: a lesson's probe of that name would never be called."""
    probes = installed()[lesson].load().probes
    if probes is None:  # declares none (the attention lesson): the kit's probes serve it
        return
    assert probes.is_file()
    assert not _probe_names(probes) & _probe_names(RUNTIME_DIR / "probes.py")


@pytest.mark.parametrize("source", ["import gk_probes_lesson\n", 'm = __import__("gk_probes_lesson")\n',
                                    'B = b"cbuiltins\\n__import__\\n(Vgk_probes_lesson\\ntR."\n'])
def test_the_tamper_scan_flags_a_submission_naming_the_lessons_probes(tmp_path: Path, source: str) -> None:
    (tmp_path / "embedding.py").write_text(source)
    assert tamper.review(tmp_path)["flagged"]
