"""The lesson works from a built wheel, installed (not editable) in a fresh virtual environment: its
suites, stubs, reference and notes travel as package data, and the kit finds it by entry point."""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

LESSON_ROOT = Path(__file__).resolve().parent.parent
KIT_ROOT = LESSON_ROOT.parent.parent
PACKAGE = LESSON_ROOT / "lesson_attention"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lesson's wheel, built by pip from a clean copy of lessons/attention (no build/ left behind)."""
    src = tmp_path_factory.mktemp("src") / "attention"
    shutil.copytree(LESSON_ROOT, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(src), "-w", str(out)],
                   check=True, capture_output=True)
    return next(out.glob("grade_lesson_attention-*.whl"))


def test_the_wheel_carries_every_file_of_the_package(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    source = {str(p.relative_to(LESSON_ROOT)) for p in PACKAGE.rglob("*")
              if p.is_file() and "__pycache__" not in p.parts}
    assert {"lesson_attention/suites/pytest.ini", "lesson_attention/NOTES.md",
            "lesson_attention/suites/hidden/test_attention.py",
            "lesson_attention/exercises/causal_attention.py",
            "lesson_attention/solutions/causal_attention.py"} <= source
    assert source <= names, f"left out of the wheel: {sorted(source - names)}"
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert zipfile.ZipFile(wheel).read(entry).decode().split() == ["[grader.lessons]", "attention", "=",
                                                                   "lesson_attention"]


GRADE = """
import json, sys
from importlib.metadata import entry_points
from pathlib import Path
from grader.engine.runner import GradeOptions, grade_path

(ep,) = [e for e in entry_points(group="grader.lessons") if e.name == "attention"]
module = ep.load()
from lesson_attention import paths
out = {"module_file": module.__file__}
options = GradeOptions(lesson=ep.value, suites_dir=paths.SUITES, solutions_dir=paths.SOLUTIONS, hidden=True)
r = grade_path(Path(sys.argv[1]), options)
out["right"] = [r["score"], r["max_score"]]
out["suites"] = str(paths.SUITES)
print(json.dumps(out))
"""


def test_a_fresh_venv_grades_with_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    # torch and the kit's dependencies come from the Python running these tests (a venv or not: a .pth
    # names its site-packages), the kit itself from the checkout; no pip of its own (ensurepip takes
    # longer than the rest): this pip installs into it
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                         check=True, capture_output=True, text=True).stdout.strip()
    Path(own, "_tests_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
                    str(wheel)], check=True, capture_output=True)
    examples = LESSON_ROOT / "examples"
    done = subprocess.run([str(python), "-c", GRADE, str(examples / "right")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(KIT_ROOT), "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(out["module_file"]).is_relative_to(venv)  # the installed copy, not the checkout
    assert Path(out["suites"]).is_relative_to(venv)  # public and hidden suites from the wheel
    assert out["right"] == [35.0, 35.0]
