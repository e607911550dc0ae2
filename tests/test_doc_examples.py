"""The docs' shell examples are true: every `grade` line in a bash block of the README and docs/ parses
with the command's real argument parser, and the student's first commands run for real in a release copy.

Parsing is checked in-process: argparse's parse is stopped right after it succeeds (nothing is graded),
so a flag renamed in the code and not in the docs fails here rather than in a newcomer's terminal.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pace
import pytest

from grader import cli

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```(?:bash|sh|shell|console)\n(.*?)```", re.S)
# Placeholders the docs write in capitals stand for a value; `[--flag X]` is an optional part, kept.
OPTIONAL = re.compile(r"\[(--[^\]]+)\]")


class Parsed(Exception):
    """Raised by the patched parse once the command line was accepted."""


def grade_lines() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for block in BLOCK.findall(page.read_text(encoding="utf-8")):
            for raw in block.splitlines():
                for part in raw.split("&&"):
                    command = part.split("  #")[0].split(" # ")[0].strip()
                    if command.startswith("grade ") or command == "grade":
                        found.append((f"{page.name}: {raw.strip()}", OPTIONAL.sub(r"\1", command)))
    return found


LINES = grade_lines()


def test_the_docs_show_grade_commands() -> None:
    assert len(LINES) >= 20, LINES  # the extraction itself works (a regex gone wrong finds nothing)


@pytest.mark.parametrize("command", [c for _, c in LINES], ids=[where[:90] for where, _ in LINES])
def test_every_grade_line_in_the_docs_parses(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = argparse.ArgumentParser.parse_args

    def parse_then_stop(self: argparse.ArgumentParser, args=None, namespace=None):  # noqa: ANN001, ANN202
        real(self, args, namespace)
        raise Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
    monkeypatch.setenv("GK_NO_DAEMON", "1")
    argv = shlex.split(command)[1:]
    with pytest.raises(Parsed):
        try:
            cli.main(argv)
        except SystemExit as exc:
            pytest.fail(f"`{command}` is refused by its parser (exit {exc.code})")


def test_the_students_first_commands_run_in_a_release_copy(tmp_path: Path) -> None:
    """students.md's `grade -k sinusoidal_pe` and `grade --lang ko`, as written, in `grade release`'s copy."""
    copy = tmp_path / "copy"
    run = [sys.executable, "-m", "grader.cli"]
    subprocess.run([*run, "release", str(copy)], cwd=ROOT, check=True, capture_output=True)
    page = (ROOT / "docs" / "students.md").read_text(encoding="utf-8")
    assert "grade -k sinusoidal_pe" in page and "grade --lang ko" in page
    proc = subprocess.run([*run, "-k", "sinusoidal_pe", "--lang", "ko", "--no-daemon"], cwd=copy,
                          capture_output=True, text=True, timeout=pace.seconds(600))
    assert proc.returncode in (0, 1), proc.stderr[-2000:]  # 1: the stubs fail, as they should
    assert "sinusoidal_pe" in proc.stdout and (copy / "reports").is_dir(), proc.stdout[-2000:]
