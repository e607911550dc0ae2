"""A benchmark's figures as a file the docs render (docs/hooks/bench_tables.py), not pasted by hand.

Each benchmark writes ``bench/results/<name>.json`` beside its Markdown table: where and how it was
measured (machine, Python, torch, load, the command, the date) and the table's columns and rows as
text. docs/performance.md and docs/warm-grader.md name a record by a marker (``<!-- bench: NAME -->``)
and the site shows the figures of the last run that wrote it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
from collections.abc import Sequence
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def torch_build() -> str:
    """torch's version, whose suffix says the build (``+cu130``, ``+cpu``)."""
    import torch

    return str(torch.__version__)


def write_record(name: str, *, command: str, runs: int, load: tuple[float, float],
                 columns: Sequence[str], rows: Sequence[Sequence[str]], out_dir: Path = RESULTS) -> Path:
    """Write bench/results/<name>.json and return its path."""
    record = {
        "name": name,
        "date": dt.date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "python": platform.python_version(),
        "torch": torch_build(),
        "runs": runs,
        "load": [round(load[0], 1), round(load[1], 1)],
        "command": command,
        "columns": list(columns),
        "rows": [list(map(str, row)) for row in rows],
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.json"
    path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


def record_name(stem: str) -> str:
    """``footprint-cu130`` / ``footprint-cpu``: one record per torch build, so both stay on the page."""
    build = torch_build().partition("+")[2] or "pypi"
    return f"{stem}-{build}"
