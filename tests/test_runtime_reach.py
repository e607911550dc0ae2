"""Forging attacks on the worker's runtime (tests/attacks/forge_runtime_*), graded through the real grader.

Each attack is the unforged twin tests/corpus/bug_pe_plain_attr (a plain-attribute
``pe``, which loses the buffer and device points) plus code that looks for the live
runtime through one route (sys.modules, gc, frames, the closures and globals of what
the grader hands over, ctypes and friends) and patches the probes wherever it finds
them.  Graded with the tamper scan and the source evidence switched off, every attack must
earn exactly what its twin earns, and must show (by the ROUTE lines it prints) that its routes
ran and were stopped: the runtime layer holds on its own.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.engine.runner import GradeOptions, grade_path

HERE = Path(__file__).resolve().parent
TWIN = HERE / "corpus" / "bug_pe_plain_attr"
ATTACKS = HERE / "attacks"
# The structural tests the forgeries go after, the equivariance tests (which hand `fn`
# over) and a few value tests (which run forward inside the probes).
KEYWORD = ("buffer or submodules or meta or cuda_simulated or tied or untied or equivariant "
           "or positions_break or output_shape")
NAMES = ("modules", "gc", "frames", "closures", "ctypes")
# What each attack must report as stopped: the route ran into the wall, not past it.
MUST_BE_BLOCKED = {
    "modules": ["ROUTE import: blocked gk_probes: ImportError",
                "ROUTE import: blocked gk_server: ImportError"],
    "gc": ["ROUTE gc: blocked AuditDenied", "ROUTE gc in forward: blocked AuditDenied"],
    "frames": ["ROUTE sys._current_frames: blocked AuditDenied"],
    "closures": ["ROUTE fn globals/closure: ran"],
    "ctypes": ["ROUTE ctypes frames: blocked AuditDenied", "ROUTE ctypes address: blocked AuditDenied",
               "ROUTE /proc/self/mem: blocked AuditDenied", "ROUTE pickle __main__: blocked AuditDenied",
               "ROUTE marshal: blocked AuditDenied", "ROUTE code.replace: blocked AuditDenied",
               "ROUTE settrace: blocked AuditDenied", "ROUTE ctypes frames in forward: blocked AuditDenied"],
}


def _grade(folder: Path) -> dict:
    return grade_path(folder, GradeOptions(hidden=True, keyword=KEYWORD))


def _attack_folder(base: Path, name: str) -> Path:
    folder = base / "submission"
    shutil.copytree(TWIN, folder)
    (folder / "expect.json").unlink()
    # The twin's embedding.py, the shared forging prelude (find a namespace holding the probes, patch
    # it), then this route's search: one file, as a student would hand it in.
    parts = (TWIN / "embedding.py", ATTACKS / "forge_runtime_common.txt",
             ATTACKS / f"forge_runtime_{name}" / "route.txt")
    (folder / "embedding.py").write_text("".join(part.read_text() for part in parts))
    return folder


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Graded with the trusted layers switched off (the tamper scan and the source evidence), so
    what is left between the forgery and a point is the runtime being out of reach."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("grader.core.tamper.review", lambda staging: {"flagged": False, "reasons": []})
        mp.setattr("grader.engine.student.Student.source_shows", lambda self, evidence, what: None)
        out = {"twin": _grade(TWIN)}
        for name in NAMES:
            out[name] = _grade(_attack_folder(tmp_path_factory.mktemp(name), name))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_the_tamper_scan_flags_every_runtime_forgery(tmp_path: Path, name: str) -> None:
    """With every layer on, these forgeries are also listed for review (their probe points withheld)."""
    from grader.core import tamper

    review = tamper.review(_attack_folder(tmp_path, name))
    assert review["flagged"] and review["reasons"], name


def _scores(results: dict) -> dict[str, float]:
    return {task: t["score"] for task, t in results["tasks"].items()}


def test_every_runtime_attack_is_graded_and_documented() -> None:
    folders = {p.name.removeprefix("forge_runtime_") for p in ATTACKS.glob("forge_runtime_*") if p.is_dir()}
    assert folders == set(NAMES)
    assert all((ATTACKS / f"forge_runtime_{name}" / "ATTACK.md").is_file() for name in NAMES)


def test_twin_loses_the_structural_points(graded: dict[str, dict]) -> None:
    """The forgeries have something to gain: the twin fails the buffer and device tests."""
    twin = graded["twin"]
    failed = {t["id"].split("::")[1] for t in twin["tests"] if t["status"] != "passed"}
    assert "test_sin_table_is_a_buffer" in failed and "test_sin_pe_is_a_registered_buffer" in failed
    assert any(f.startswith("test_to_meta_moves_everything") for f in failed)
    assert twin["tasks"]["TokenAndPosEmbedding"]["score"] < twin["tasks"]["TokenAndPosEmbedding"]["max_score"]


@pytest.mark.parametrize("name", NAMES)
def test_forging_gains_nothing(graded: dict[str, dict], name: str) -> None:
    twin, attack = graded["twin"], graded[name]
    assert _scores(attack) == _scores(twin), f"forge_runtime_{name} changed the scores"
    assert attack["score"] == twin["score"]
    status = {t["id"]: t["status"] for t in twin["tests"]}
    changed = [t["id"] for t in attack["tests"]
               if t["status"] == "passed" and status.get(t["id"]) != "passed"]
    assert not changed, f"forge_runtime_{name} passed tests its twin fails: {changed}"


@pytest.mark.parametrize("name", NAMES)
def test_routes_ran_and_were_stopped(graded: dict[str, dict], name: str) -> None:
    output = graded[name]["worker"]["output"]
    assert "ROUTE " in output, f"forge_runtime_{name} never ran"
    for line in MUST_BE_BLOCKED[name]:
        assert line in output, f"forge_runtime_{name}: expected {line!r} in\n{output[:3000]}"


def test_a_student_audit_hook_is_dropped(graded: dict[str, dict]) -> None:
    """sys.addaudithook returns quietly, but the hook never sees an event (it would see the
    runtime's own)."""
    output = graded["ctypes"]["worker"]["output"]
    assert "ROUTE audit hook: installed" in output
    assert "ROUTE audit hook: saw" not in output


def test_nothing_of_the_runtime_is_a_module(graded: dict[str, dict]) -> None:
    output = graded["modules"]["worker"]["output"]
    assert "ROUTE sys.modules: found" not in output
    assert "ROUTE __main__: names []" in output  # an empty stand-in


def test_frames_reach_no_runtime_namespace(graded: dict[str, dict]) -> None:
    """The main thread's frames (where student code runs) lead to the bootstrap and to
    per-task namespaces only; the serve loop is on another thread, out of reach."""
    output = graded["frames"]["worker"]["output"]
    reached = [line for line in output.splitlines() if line.startswith("ROUTE sys._getframe: reached")]
    assert reached
    for line in reached:
        assert "gk_server" not in line and "gk_protocol" not in line and "gk_guard" not in line, line
