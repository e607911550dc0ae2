"""Shared fixtures for the kit's own tests: grade a submission once, read its results."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from cdp_browser import Chromium, find_chromium
from filelock import FileLock

from grader.engine.runner import GradeOptions, grade_path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"


def grade(path: Path, *, hidden: bool = True, keyword: str | None = None, lang: str = "en") -> dict:
    """Run the real grader (worker process, pytest suites, scoring) on a submission."""
    return grade_path(Path(path), GradeOptions(hidden=hidden, keyword=keyword, lang=lang))


def task_scores(results: dict) -> dict[str, tuple[float, float]]:
    return {task: (t["score"], t["max_score"]) for task, t in results["tasks"].items()}


def failed_messages(results: dict, task: str, lang: str = "en") -> str:
    return "\n".join(t["messages"][lang] for t in results["tests"]
                     if t["task"] == task and t["status"] != "passed")


def load_expect(case: Path) -> dict:
    return json.loads((case / "expect.json").read_text())


@pytest.fixture(scope="session")
def reference_results(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The reference graded with the hidden suite, once for the whole run: under xdist the workers'
    temporary folders share a parent, and the first worker's grade is every worker's (a file lock)."""
    shared = tmp_path_factory.getbasetemp().parent
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return grade(ROOT / "solutions")
    cached = shared / "reference_results.json"
    with FileLock(str(cached) + ".lock"):
        if cached.is_file():
            return json.loads(cached.read_text(encoding="utf-8"))
        results = grade(ROOT / "solutions")
        cached.write_text(json.dumps(results), encoding="utf-8")
        return results


@pytest.fixture(scope="module")
def chromium():
    """A headless Chromium driven over DevTools (tests/cdp_browser.py); skipped where there is none."""
    binary = find_chromium()
    if binary is None:
        pytest.skip("no Chromium binary on PATH: apt-get install -y chromium fonts-nanum (Debian) to run the "
                    "browser tests")
    with (tempfile.TemporaryDirectory(prefix="gk-chromium-") as profile,
          Chromium(binary, Path(profile)) as browser):
        yield browser
