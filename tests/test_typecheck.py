"""The type checker passes over the kit and the lesson packages: `python -m mypy` with pyproject.toml's
[tool.mypy].

A cold run (its cache in a fresh folder, as CI has it): about 8 s of CPU, torch and numpy read as Any
(the two lessons add about 1.5 s to the kit's 6.5).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pace
import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_nothing_in_the_kit(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy is in the test extra: pip install -e '.[test]'")
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
                          cwd=ROOT, capture_output=True, text=True, timeout=pace.seconds(600))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout, done.stdout
