"""The attention lesson's own tests (lessons/attention/tests), run as its author runs them.

They live in the lesson's distribution, beside its package, and have a conftest of their own (named
``tests.conftest`` there too), so they run in a pytest of their own rather than in this one's collection.
Its wheel test (test_package.py: build, fresh venv, grade) is left to the lesson's own CI: the kit's
tests/test_wheel.py already grades from a built wheel, and the two would cost the suite about a minute.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pace
import pytest

LESSON = Path(__file__).resolve().parents[1] / "lessons" / "attention"


@pytest.mark.slow
def test_the_attention_lessons_own_suite_passes() -> None:
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests",
                           "--ignore", "tests/test_package.py"],
                          cwd=LESSON, capture_output=True, text=True, timeout=pace.seconds(900))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]
