"""The same answer: over random sequences of edits that break and fix the student's modules
of both lessons with their known mistakes, each warm, incremental re-grade (the user's daemon reusing
what did not change, grader/engine/reuse.py) equals a cold full grade (`--no-daemon`) of the same
files: the score, the failed checks and their messages in both languages.  Beside the known mistakes,
the edits reuse by reading the source would miss: a helper imported inside a function (in a cycle with
the module that imports it) edited, a module an exercise imports where it exists added and removed,
process state set at import (torch's default device) or inside a function a test calls, and another
submission graded from the same folder between two grades of this one.

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
import tempfile
import time
from pathlib import Path

import pace
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.daemon.place import python_module
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
# What reading the source misses: each names the file it writes, or the folder it grades.
SCALE_LINE = "        x = self.tok(ids) * math.sqrt(self.d_model)\n"
HELPED = ("        try:  # a helper imported inside the function, another used where it exists\n"
          "            from scale_extra import scale\n"
          "        except ImportError:\n"
          "            from scale_helper import scale\n"
          "        x = self.tok(ids) * scale(self.d_model)\n")
HELPER = "import math\n\nimport embedding  # a cycle with embedding.py\n\n\ndef scale(d):\n    return {}\n"
EXTRA = {
    "helper_in_function": ("embedding.py", None),  # embedding.py calls scale_helper.scale (correct)
    "helper_broken": ("scale_helper.py", HELPER.format("1.0")),  # no scale: the known mistake, in the helper
    "helper_fixed": ("scale_helper.py", HELPER.format("math.sqrt(d)")),
    "module_added": ("scale_extra.py", "def scale(d):\n    return 1.0\n"),  # taken where it exists
    "module_removed": ("scale_extra.py", ""),
    "state_at_import": ("leetcode.py", "\nimport torch\n\ntorch.set_default_device('meta')\n"),
    # the same inside a function the LeetCode tests call: nothing at import, nothing a source reading sees
    "state_in_function": ("leetcode.py", "\n\n_my_pow = my_pow\n\n\ndef my_pow(x, n):\n    import torch\n\n"
                          "    torch.set_default_device('meta')  # left for every later test\n"
                          "    return _my_pow(x, n)\n"),
    "another_folder": ("", ""),  # `grade other` from the same folder: its own grade, none of this one's
}
EDITS += [("embedding-pe", file, case) for case, (file, _) in EXTRA.items()]


class Folder:
    """One lesson's student folder with its daemon, kept for every example."""

    def __init__(self, lesson: str, base: Path) -> None:
        self.lesson, self.work = lesson, base / lesson
        self.exercises = self.work / "exercises"
        self.exercises.mkdir(parents=True)
        if lesson == "embedding-pe":
            shutil.copy(ROOT / "solutions" / "LEETCODE_LOG.md", self.exercises / "LEETCODE_LOG.md")
            other = self.work / "other"  # another submission graded from the same folder
            shutil.copytree(CORPUS / "bug_no_scale", other, ignore=shutil.ignore_patterns("expect.json"))
        self.reset()
        self.started = False

    def reset(self) -> None:
        for name, text in LESSONS[self.lesson][0].items():
            (self.exercises / name).write_text(text)
        for name in ("scale_helper.py", "scale_extra.py"):
            (self.exercises / name).unlink(missing_ok=True)

    def apply(self, file: str, case: str) -> None:
        """Make one of EXTRA's edits."""
        text = EXTRA[case][1]
        if case == "helper_in_function":
            embedding = self.exercises / "embedding.py"
            embedding.write_text(embedding.read_text().replace(SCALE_LINE, HELPED))
            if not (self.exercises / "scale_helper.py").exists():
                (self.exercises / "scale_helper.py").write_text(HELPER.format("math.sqrt(d)"))
        elif case == "module_removed":
            (self.exercises / file).unlink(missing_ok=True)
        elif case in ("state_at_import", "state_in_function"):
            (self.exercises / file).write_text((self.exercises / file).read_text() + text)
        elif file:
            (self.exercises / file).write_text(text)

    def grade(self, env: dict[str, str], *extra: str, target: str = "exercises") -> dict:
        out = self.work / (("cold" if "--no-daemon" in extra else "reports") + f"-{target}")
        # `grade` as its console script runs: the folder itself is not on the path (-P)
        argv = [*python_module("grader.cli"), target, "--lesson", self.lesson, "--out", str(out), "-q",
                "--lang", "en", *extra]
        subprocess.run(argv, cwd=self.work, env=env, capture_output=True, text=True,
                       timeout=pace.seconds(600))
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
        for folder in made.values():  # the first grade leaves the user's daemon; wait until it listens
            folder.grade(env)
            deadline = time.monotonic() + pace.seconds(180)
            while not list(sockets.glob("*.pid")) and time.monotonic() < deadline:
                time.sleep(0.2)
        assert len(list(sockets.glob("*.pid"))) == 1  # one warm grader for both folders and lessons
        yield made, env
    finally:
        subprocess.run([*python_module("grader.cli"), "--stop-daemon"], cwd=base, env=env,
                       capture_output=True)
        left = list(sockets.iterdir()) if sockets.exists() else []
        shutil.rmtree(base, ignore_errors=True)
        assert left == []  # the daemons left nothing behind


def view(results: dict) -> dict:
    return {"score": results["score"], "max_score": results["max_score"],
            "failed": sorted((t["id"], t["status"], t["messages"]["en"], t["messages"]["ko"])
                             for t in results["tests"] if t["status"] != "passed"),
            "tests": sorted((t["id"], t["status"]) for t in results["tests"]),
            "not_counted": sorted(s["id"] for s in results.get("skipped", []))}


def step(folder: Folder, env: dict[str, str], lesson: str, file: str, case: str) -> tuple[dict, dict]:
    """Make one edit, then grade warm and cold: (warm, cold)."""
    target = "other" if case == "another_folder" else "exercises"
    if case in EXTRA:
        folder.apply(file, case)
    elif case == "fix":
        (folder.exercises / file).write_text(LESSONS[lesson][0][file])
    elif case != "save":
        (folder.exercises / file).write_text(mistake(lesson, file, case))
    warm = folder.grade(env, target=target)
    cold = folder.grade(env, "--no-daemon", target=target)
    assert view(warm) == view(cold), (lesson, file, case)
    assert not any(t.get("reused") for t in cold["tests"])
    return warm, cold


def test_the_edits_reading_the_source_misses_give_the_cold_grade_warm(folders):
    """Each route to a change that reading the source misses, in one sequence: every warm grade equals the
    cold one."""
    made, env = folders
    folder = made["embedding-pe"]
    folder.reset()
    folder.grade(env)
    scores = []
    for case in ("helper_in_function", "helper_broken", "helper_fixed", "module_added", "module_removed",
                 "another_folder", "helper_broken", "state_at_import", "bug_no_scale"):
        # the last: another edit while that state is set (a reused test would not import leetcode.py)
        file = EXTRA[case][0] if case in EXTRA else "embedding.py"
        warm, cold = step(folder, env, "embedding-pe", file, case)
        scores.append(cold["score"])
    # the edits matter: the broken helper, the module added and the state set at import each cost points
    assert scores[1] < scores[0] and scores[3] < scores[4] and scores[7] < scores[0]


def test_state_a_function_leaves_in_the_worker_gives_the_cold_grade_warm(folders):
    """leetcode.py's my_pow sets torch's default device when a LeetCode test calls it: in a cold grade the
    encoding's later tests meet it.  Warm, the worker sees the change while that test runs (the encoding's
    tests were about to be reused from a run without it), so the grade is made again reusing nothing; the
    next edit reuses nothing either (the last run saw it), and once it is taken out a save reuses again."""
    made, env = folders
    folder = made["embedding-pe"]
    folder.reset()
    full = folder.grade(env)
    warm, cold = step(folder, env, "embedding-pe", "leetcode.py", "state_in_function")
    assert cold["score"] < full["score"]  # the state costs the encoding's tests points, cold and warm
    assert not any(t.get("reused") for t in warm["tests"])
    warm, cold = step(folder, env, "embedding-pe", "embedding.py", "bug_no_scale")  # while it is set
    assert not any(t.get("reused") for t in warm["tests"])
    step(folder, env, "embedding-pe", "leetcode.py", "fix")
    step(folder, env, "embedding-pe", "embedding.py", "fix")
    warm, _cold = step(folder, env, "embedding-pe", "", "save")
    assert any(t.get("reused") for t in warm["tests"])


@settings(max_examples=4, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.sampled_from(EDITS), min_size=2, max_size=3))
def test_a_warm_incremental_regrade_equals_a_cold_full_grade(folders, edits):
    made, env = folders
    for folder in made.values():
        folder.reset()
        folder.grade(env)  # the store holds the correct files' run
    for lesson, file, case in edits:
        warm, _cold = step(made[lesson], env, lesson, file, case)
        if case == "save":  # nothing changed: what was not a verdict of the clock or a crash is reused
            assert any(t.get("reused") for t in warm["tests"])
