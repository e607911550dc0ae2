"""The README is a front page and the documentation site builds strictly."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pace
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


def test_ci_runs_the_readmes_lines_in_a_fresh_venv() -> None:
    """.ci/run reads the README's Quick start lines itself (so they cannot drift apart) and runs them, as
    written, in a fresh venv made from Debian's python3, never installing into a system Python."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    extract = next(line for line in ci.splitlines() if line.startswith("mapfile -t quick_start"))
    read = subprocess.run(["bash", "-c", f'{extract}\nprintf "%s\\n" "${{quick_start[@]}}"'], cwd=ROOT,
                          capture_output=True, text=True, timeout=pace.seconds(30), check=True)
    assert read.stdout.splitlines() == quick_start()
    assert quick_start()[1].endswith("python -m pytest -n 3")
    runs = [line.strip() for line in ci.splitlines() if not line.lstrip().startswith("#")]
    venv = runs.index('"$BASE_PYTHON" -m venv .venv')
    assert any(line.startswith('BASE_PYTHON="${GK_CI_BASE_PYTHON:-/usr/bin/python3}"') for line in runs)
    assert ". .venv/bin/activate" in runs[venv:]
    assert venv < runs.index('bash -c "${quick_start[0]}"') < runs.index('bash -c "${quick_start[1]}"')
    assert not [line for line in runs[:venv] if "pip install" in line], "nothing goes into a system Python"


def test_every_docs_page_is_in_the_site_and_the_site_builds_strictly(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs is the docs extra's (pip install -e '.[docs]'); .ci/run installs it")
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages == set(re.findall(r"([\w-]+\.md)", nav)), "every page of docs/ is in the nav"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                           timeout=pace.seconds(300),
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
