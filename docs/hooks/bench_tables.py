"""MkDocs hook: ``<!-- bench: NAME -->`` in a page becomes the table of bench/results/NAME.json.

The benchmarks write those files (bench/record.py); the page shows the last run's figures with its
machine, load, date and command, so no figure is copied by hand. A marker naming no record fails the
build (strict or not): a page would otherwise promise figures it does not have.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"
MARKER = re.compile(r"<!-- bench: ([a-z0-9_.-]+) -->")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(record: dict[str, Any]) -> str:
    load = record["load"]
    runs = f"median of {record['runs']} runs; " if record["runs"] > 1 else ""
    head = (f"{record['machine']}, Python {record['python']}, torch {record['torch']}; {runs}load average "
            f"{load[0]} before, {load[1]} after; {record['date']} (`{record['command']}`).")
    columns = record["columns"]
    align = ["---"] + ["---:" if i == 1 else "---" for i in range(1, len(columns))]
    lines = [head, "", "| " + " | ".join(map(_cell, columns)) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(map(_cell, row)) + " |" for row in record["rows"]]
    return "\n".join(lines) + "\n"


def table_for(name: str) -> str:
    path = RESULTS / f"{name}.json"
    try:
        return render(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError) as exc:
        raise _build_error(f"<!-- bench: {name} -->: cannot read {path}: {exc}") from exc


def _build_error(message: str) -> Exception:
    """MkDocs' own error in a build (it stops the build with the message); a plain one where the tables
    are read without MkDocs (the tests, which need not install the docs extra)."""
    try:
        from mkdocs.exceptions import PluginError
    except ImportError:
        return RuntimeError(message)
    return PluginError(message)


def on_page_markdown(markdown: str, **_: Any) -> str:
    return MARKER.sub(lambda m: table_for(m.group(1)), markdown)
