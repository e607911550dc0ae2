"""Running `grade` commands on real batch folders and reading what they wrote (the term's tests)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def grade(*args: str, ok: bool = True, timeout: float = 400) -> subprocess.CompletedProcess:
    """`grade ARGS` in a fresh process from the kit root; with ``ok``, it must exit 0."""
    proc = subprocess.run([sys.executable, "-m", "grader.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)
    if ok:
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc


def gradebook(out: Path) -> dict[str, dict]:
    """gradebook.csv of a batch folder, by submission."""
    text = (out / "gradebook.csv").read_text(encoding="utf-8-sig")
    return {r["submission"]: r for r in csv.DictReader(io.StringIO(text))}


def results(out: Path, name: str) -> dict:
    return json.loads((out / name / "results.json").read_text(encoding="utf-8"))
