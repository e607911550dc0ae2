
"""A closed pipe ends `grade` quietly (`grade lessons | head -1`), as Unix tools do: exit 0 or 141, no
traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pace


def test_closed_pipe_ends_quietly() -> None:
    read, write = os.pipe()
    os.close(read)  # the reader has gone before the first line is written
    code = "import sys; from grader.cli import program; sys.exit(program())"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code, "lessons"],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=pace.seconds(300),
        )
    finally:
        os.close(write)
    assert proc.returncode in (0, 141), proc.stderr
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr, proc.stderr
