"""MkDocs hook: pages made from the project's own sources at build time, so they cannot drift.

* the CLI reference (cli.md, marker ``<!-- cli-reference -->``): each command's own `--help`;
* the home page (index.md, marker ``<!-- readme -->``): the README, its links into docs/ made relative.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MARKER = "<!-- cli-reference -->"
README_MARKER = "<!-- readme -->"
ROOT = Path(__file__).resolve().parents[2]


def _help(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "100", "LANG": "C.UTF-8", "GK_NO_DAEMON": "1"}
    proc = subprocess.run([sys.executable, "-m", "grader.cli", *args, "--help"], capture_output=True,
                          text=True, timeout=120, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"`grade {' '.join(args)} --help` failed: {proc.stderr.strip()[-500:]}")
    return proc.stdout.rstrip()


def reference() -> str:
    from grader.cli import COMMANDS

    parts = ["## `grade`\n\nGrade one submission (the student's command, and each child of a batch).\n\n"
             f"```text\n{_help()}\n```\n"]
    for name in sorted(COMMANDS):
        parts.append(f"## `grade {name}`\n\n```text\n{_help(name)}\n```\n")
    return "\n".join(parts)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ANN001 (MkDocs' hook signature)
    if MARKER in markdown:
        return markdown.replace(MARKER, reference())
    if README_MARKER in markdown:
        readme = (ROOT / "README.md").read_text(encoding="utf-8").replace("](docs/", "](")
        return markdown.replace(README_MARKER, readme)
    return markdown
