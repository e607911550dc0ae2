"""The same answer (issue 39): over random sequences of edits that break and fix the student's modules
of both lessons with their known mistakes, each warm, incremental re-grade (the folder's daemon reusing
what did not change, grader/engine/reuse.py) equals a cold full grade (`--no-daemon`) of the same
files: the score, the failed checks and their messages in both languages.

Slow (two real grades per step, a few minutes on two cores): it runs where GK_LOOP_PROPERTY=1, in its own
job (`GK_LOOP_PROPERTY=1 python -m pytest tests/test_reuse_property.py -q`).  Every grade is a student's
public run and draws from the lesson's public seed (core/seeds.py), the same after any edit, as `grade`
does for a student: what is compared is what a student gets.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import CORPUS, ROOT

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not os.environ.get("GK_LOOP_PROPERTY"),
    reason="slow: two real grades per edit; its own job runs it (GK_LOOP_PROPERTY=1)")]

ATTENTION = ROOT / "lessons" / "attention"
# lesson -> (its module's files as graded correct, the known mistakes: (file, case))
LESSONS = {
    "embedding-pe": ({f: (ROOT / "solutions" / f).read_text() for f in ("embedding.py", "leetcode.py",
                                                                           "reversal.py")},
                     [("embedding.py", "bug_no_scale"), ("embedding.py", "bug_swapped_sincos"),
                      ("leetcode.py", "bug_leetcode_pow_negative"), ("reversal.py", "bug_reversal_no_flip")]),
    "attention": ({"causal_attention.py": (ATTENTION / "examples" / "right" / "causal_attention.py")
                   .read_text()},
                  [("causal_attention.py", "wrong")]),
}


def mistake(lesson: str, file: str, case: str) -> str:
    if lesson == "attention":
        return (ATTENTION / "examples" / case / file).read_text()
    return (CORPUS / case / file).read_text()


# An edit: (lesson, file, case): break with a known mistake, "fix" with the correct file, "save" unchanged.
EDITS = [(lesson, f, c) for lesson, (_, bugs) in LESSONS.items() for f, c in bugs]
EDITS += [(lesson, f, "fix") for lesson, (good, _) in LESSONS.items() for f in good]
EDITS += [(lesson, "", "save") for lesson in LESSONS]


class Folder:
    """One lesson's student folder with its daemon, kept for every example."""

    def __init__(self, lesson: str, base: Path) -> None:
        self.lesson, self.work = lesson, base / lesson
        self.exercises = self.work / "exercises"
        self.exercises.mkdir(parents=True)
        if lesson == "embedding-pe":
            shutil.copy(ROOT / "solutions" / "LEETCODE_LOG.md", self.exercises / "LEETCODE_LOG.md")
        self.reset()
        self.started = False

    def reset(self) -> None:
        for name, text in LESSONS[self.lesson][0].items():
            (self.exercises / name).write_text(text)

    def grade(self, env: dict[str, str], *extra: str) -> dict:
        out = self.work / ("cold" if "--no-daemon" in extra else "reports")
        argv = [sys.executable, "-c", "import sys; from grader.cli import program; sys.exit(program())",
                "exercises", "--lesson", self.lesson, "--out", str(out), "-q", "--lang", "en", *extra]
        subprocess.run(argv, cwd=self.work, env=env, capture_output=True, text=True, timeout=600)
        return json.loads((out / "results.json").read_text())


@pytest.fixture(scope="module")
def folders():
    base = Path(tempfile.mkdtemp(prefix="gkp-"))  # short: a Unix socket's path has at most 107 bytes
    env = {k: v for k, v in os.environ.items() if k not in ("GK_NO_DAEMON", "CI", "GITHUB_ACTIONS")}
    env.update(GK_DAEMON="1", XDG_RUNTIME_DIR=str(base), GK_DAEMON_IDLE="600")
    env.pop("GK_GRADING_SEED", None)
    made = {lesson: Folder(lesson, base) for lesson in LESSONS}
    sockets = base / f"gk-daemon-{os.getuid()}"
    try:
        for folder in made.values():  # the first grade leaves the folder's daemon; wait until it listens
            before = len(list(sockets.glob("*.pid"))) if sockets.exists() else 0
            folder.grade(env)
            deadline = time.monotonic() + 180
            while len(list(sockets.glob("*.pid"))) <= before and time.monotonic() < deadline:
                time.sleep(0.2)
        yield made, env
    finally:
        for folder in made.values():
            subprocess.run([sys.executable, "-m", "grader.cli", "--stop-daemon", "--lesson", folder.lesson],
                           cwd=folder.work, env=env, capture_output=True)
        left = list(sockets.iterdir()) if sockets.exists() else []
        shutil.rmtree(base, ignore_errors=True)
        assert left == []  # the daemons left nothing behind


def view(results: dict) -> dict:
    return {"score": results["score"], "max_score": results["max_score"],
            "failed": sorted((t["id"], t["status"], t["messages"]["en"], t["messages"]["ko"])
                             for t in results["tests"] if t["status"] != "passed"),
            "tests": sorted((t["id"], t["status"]) for t in results["tests"]),
            "not_counted": sorted(s["id"] for s in results.get("skipped", []))}


@settings(max_examples=4, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.sampled_from(EDITS), min_size=2, max_size=3))
def test_a_warm_incremental_regrade_equals_a_cold_full_grade(folders, edits):
    made, env = folders
    for folder in made.values():
        folder.reset()
        folder.grade(env)  # the store holds the correct files' run
    for lesson, file, case in edits:
        folder = made[lesson]
        if case == "fix":
            (folder.exercises / file).write_text(LESSONS[lesson][0][file])
        elif case != "save":
            (folder.exercises / file).write_text(mistake(lesson, file, case))
        warm = folder.grade(env)
        cold = folder.grade(env, "--no-daemon")
        assert view(warm) == view(cold), (lesson, file, case)
        assert not any(t.get("reused") for t in cold["tests"])
        if case == "save":  # nothing changed: what was not a verdict of the clock or a crash is reused
            assert any(t.get("reused") for t in warm["tests"])
