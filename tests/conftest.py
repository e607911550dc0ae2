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


# -- two workers (`-n 2`), one grade each ------------------------------------------------------------
# Under xdist's default scheduling the tests of one module are spread over both workers, and a module's
# cache (a module-scoped fixture: a graded batch, an attack corpus) is then built once per worker: the
# same minutes twice. The tests of such a module share a worker instead (``--dist loadgroup``, chosen in
# ``pytest_configure`` below for a plain ``-n``); a module that caches per parameter says which
# (``XDIST_GROUP_BY``), so its groups stay small. The heaviest modules start first, so neither worker is
# left alone with one at the end (measured with ``--durations``: the Gradescope containers, batches,
# kernels, the attention suite).
HEAVY_FIRST = (
    "test_gradescope_container", "test_batch", "test_check", "test_report_reading", "test_prefetch",
    "test_lesson_attention_suite", "test_lessons", "test_ci", "test_term", "test_wheel", "test_host",
    "test_attacks", "test_similarity", "test_lesson_attention", "test_notebooks",
)


def pytest_configure(config: pytest.Config) -> None:
    # `-n 2` alone means xdist's "load": make it "loadgroup" in our order (the workers take the controller's
    # options when the session starts, after this); an explicit --dist other than load is left alone.
    if getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadgroup"
        config.option.loadscopereorder = False


def _uses_a_module_cache(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.values() if info is not None else ()
    return any(d.scope == "module" for chain in defs for d in chain)


@pytest.hookimpl(tryfirst=True)  # before xdist turns the group marks into node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not _uses_a_module_cache(item):
            continue
        group = item.module.__name__
        by = getattr(item.module, "XDIST_GROUP_BY", None)
        value = getattr(getattr(item, "callspec", None), "params", {}).get(by) if by else None
        item.add_marker(pytest.mark.xdist_group(f"{group}[{value}]" if isinstance(value, str) else group))
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.module.__name__.rpartition(".")[2], len(rank)))


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
