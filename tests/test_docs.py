"""The README is a front page and the documentation site builds strictly (issue 38)."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def quick_start() -> list[str]:
    """The README's two quick-start command lines."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Quick start.*?```bash\n(.*?)```", text, re.S)
    assert block, "the README has a Quick start with a bash block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_is_a_front_page_with_two_commands() -> None:
    assert len((ROOT / "README.md").read_bytes()) <= 15_000
    lines = quick_start()
    assert len(lines) == 2 and "grade batch examples" in lines[0] and "pytest" in lines[1]


def test_ci_runs_the_readmes_test_command() -> None:
    """.ci/run installs what the README's second line installs and runs the same pytest."""
    readme = shlex.split(quick_start()[1])
    ci = next(line for line in (ROOT / ".ci" / "run").read_text().splitlines() if "pytest" in line
              and not line.startswith("#"))
    ci_words = shlex.split(ci)
    installed = {w for w in readme if w.startswith((".", "./"))} | {readme[readme.index("-e") + 1]}
    assert installed <= set(ci_words), (installed, ci)
    assert readme[-3:] == ci_words[-3:] == ["pytest", "-n", "2"]


def test_every_docs_page_is_in_the_site_and_the_site_builds_strictly(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs is the docs extra's (pip install -e '.[docs]'); .ci/run installs it")
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages == set(re.findall(r"([\w-]+\.md)", nav)), "every page of docs/ is in the nav"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    cli = (tmp_path / "site" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "usage: grade batch" in cli and "usage: grade export" in cli  # generated from --help


def test_every_benchmark_table_in_the_docs_comes_from_a_record() -> None:
    """Each ``<!-- bench: NAME -->`` names a file the benchmark wrote, and renders as a full table."""
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    import bench_tables

    markers = [m.group(1) for page in (ROOT / "docs").glob("*.md")
               for m in bench_tables.MARKER.finditer(page.read_text(encoding="utf-8"))]
    assert len(markers) >= 4, markers  # footprint (both builds), the uid level's two
    for name in markers:
        table = bench_tables.table_for(name).splitlines()
        columns = table[2].count(" | ") + 1
        assert len(table) > 4 and all(row.count(" | ") + 1 == columns for row in table[4:]), (name, table)
    assert not re.search(r"^\| [^|]*\| \d+(\.\d+)? (s|MiB) \|", (ROOT / "docs" / "performance.md")
                         .read_text(encoding="utf-8"), re.M), "a figure pasted into performance.md by hand"
