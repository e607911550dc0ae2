"""Shared fixtures for the kit's own tests: grade a submission once, read its results."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pace
import pytest
from cdp_browser import Chromium, find_chromium
from filelock import FileLock

from grader.engine.runner import GradeOptions, grade_path

ROOT = Path(__file__).resolve().parent.parent
# No test leaves a warm grader behind (grader/daemon/): `grade` run by a test grades cold unless the
# test asks for the daemon itself (GK_DAEMON=1 in a child's environment, with this removed).
os.environ["GK_NO_DAEMON"] = "1"
# The suite grades the course's lesson wherever nothing names one, as the checkout's pyproject.toml says
# ([tool.grade]): its temporary folders lie outside the checkout, and both lessons are installed here
# (grader/engine/lessons.py ``choose``). Tests of that choice remove it (monkeypatch.delenv).
os.environ["GK_LESSON"] = "embedding-pe"
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


# -- work done once per run, not once per xdist worker ---------------------------------------------------
# Under `-n 2` a module's tests are spread over both workers, and a module-scoped fixture is then built by
# each worker that runs one of its tests: the same grade twice. What such a fixture builds is made once
# for the whole run instead: the workers' temporary folders share a parent, and the first worker to ask
# builds under a file lock while the others wait for it and read what it left. A build that fails leaves
# nothing behind, so the next worker to ask builds again (and fails the same way, with its own message).
def run_folder(factory: pytest.TempPathFactory) -> Path:
    """A folder every worker of this run shares (the run's own temporary folder without xdist)."""
    base = factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "once"
    shared.mkdir(exist_ok=True)
    return shared


def built_once(factory: pytest.TempPathFactory, key: str, build: Callable[[Path], None]) -> Path:
    """The folder ``build`` fills (it gets a fresh, empty one), built by one worker for the whole run."""
    shared = run_folder(factory)
    folder, done = shared / key, shared / f"{key}.done"
    with FileLock(str(shared / f"{key}.lock")):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


def computed_once(factory: pytest.TempPathFactory, key: str, compute: Callable[[], dict]) -> dict:
    """What ``compute`` returns (JSON), computed by one worker for the whole run."""
    def build(folder: Path) -> None:
        (folder / "value.json").write_text(json.dumps(compute()), encoding="utf-8")
    return json.loads((built_once(factory, key, build) / "value.json").read_text(encoding="utf-8"))


# A module that caches its grades per parameter (a dict filled on first use) names that parameter
# (RUN_TOGETHER_BY): its tests then run one parameter after another rather than one test function after
# another, so that xdist, which hands each worker runs of consecutive tests, sends the tests of one cached
# grade to one worker and the grade is made once, not once per worker. The module's tests without that
# parameter keep their order, after the others.
def _param(item: pytest.Item, name: str) -> object:
    return getattr(getattr(item, "callspec", None), "params", {}).get(name)


def _module_group(item: pytest.Item) -> str | None:
    """The xdist group of a test that shares work with the other tests of its module: a module- or
    class-scoped fixture, or a grade cached per RUN_TOGETHER_BY parameter. None for a test on its own."""
    module = getattr(item, "module", None)
    if module is None:
        return None
    name = getattr(module, "RUN_TOGETHER_BY", None)
    if name and _param(item, name) is not None:
        return _group_name(module.__name__, [_param(item, name)])
    info = getattr(item, "_fixtureinfo", None)
    shared = sorted(n for n, defs in (info.name2fixturedefs.items() if info is not None else ())
                    if any(d.scope in ("module", "class") for d in defs))
    if not shared:
        return None
    # A module fixture made once per parameter (a corpus case): one group per value, not per module.
    params = [_param(item, n) for n in shared if _param(item, n) is not None]
    return _group_name(module.__name__, params) if params else module.__name__


def _group_name(module: str, params: list[object]) -> str:
    """``module:param,...``. Never ending in ``]`` (nor holding ``@``): pytest-xdist reads the group after the
    last ``@`` only where that ``@`` follows the last ``]`` (a parameter's own ``@``), so a group named like a
    parameter, ``test_attacks[hang]``, is no group at all and its tests spread over both workers."""
    text = ",".join(str(p) for p in params)
    return f"{module}:{text.translate(str.maketrans('[]@', '()_'))}"


@pytest.hookimpl(tryfirst=True)  # before xdist names each test by its group (--dist loadgroup)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # --dist loadgroup hands out the tests outside a group one by one, alternately to each worker: the
    # tests of one module then wait on both workers for the same module fixture (built_once). Tests that
    # share a module's work run as one group, on one worker; the others still spread one by one.
    for item in items:
        group = None if item.get_closest_marker("xdist_group") else _module_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    start = 0
    while start < len(items):
        module = getattr(items[start], "module", None)
        end = start + 1
        while end < len(items) and getattr(items[end], "module", None) is module:
            end += 1
        name = getattr(module, "RUN_TOGETHER_BY", None)
        if name:
            rank: dict[object, int] = {}
            for item in items[start:end]:
                if _param(item, name) is not None:
                    rank.setdefault(_param(item, name), len(rank))
            items[start:end] = sorted(items[start:end], key=lambda i: rank.get(_param(i, name), len(rank)))
        start = end


def _grade_the_reference_watching_its_prefetch() -> dict:
    """The reference graded with the hidden suite, and what became of each early start of the experiment's
    runs that grade made (lesson_embedding_pe/prefetch.py): the parts it was asked for, whether each was
    done and none failed. Watching changes nothing of the grade; tests/test_prefetch.py reads what it saw."""
    from lesson_embedding_pe import prefetch

    made: list[prefetch.Prefetch] = []
    real = prefetch.Prefetch.__init__

    def spy(self: prefetch.Prefetch, *args: object, **kwargs: object) -> None:
        made.append(self)
        real(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(prefetch.Prefetch, "__init__", spy)
        results = grade(ROOT / "solutions")
    return {"results": results,
            "prefetches": [{"parts": sorted(p.parts),
                            "done": all(part.done.is_set() and not part.failed for part in p.parts.values())}
                           for p in made]}


@pytest.fixture(scope="session")
def reference_graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """``{"results": ..., "prefetches": [...]}``: the reference graded with the hidden suite, once for the
    whole run, and the prefetches that grade made (_grade_the_reference_watching_its_prefetch)."""
    return computed_once(tmp_path_factory, "reference_graded", _grade_the_reference_watching_its_prefetch)


@pytest.fixture(scope="session")
def reference_results(reference_graded: dict) -> dict:
    """The reference graded with the hidden suite, once for the whole run."""
    return reference_graded["results"]


# Three submissions graded by `grade` as a user runs it (from the checkout, English), the reports of each in
# its folder: tests/test_reports.py reads every report of the three, and the modules that need only the
# results of one of these grades read its results.json instead of grading it again (test_feedback_views:
# the buggy example with the hidden suite; test_trusted_feedback: the stubs). Each is graded once per run,
# by whichever worker asks first, and only where some test asks for it.
CLI_RUNS = {
    "reference": ["solutions"],
    "stub": ["exercises"],
    "buggy": ["examples/buggy", "--hidden", "--hidden-visibility", "hidden"],
}


def _grade_cli(name: str, out: Path) -> None:
    command = [sys.executable, "-m", "grader.cli", *CLI_RUNS[name], "--out", str(out), "--lang", "en"]
    done = subprocess.run(command, cwd=ROOT, env=dict(os.environ, GRADE_LANG="en"), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=pace.seconds(600))
    assert done.returncode == 0, f"grade {name} exited {done.returncode}:\n{done.stdout[-3000:]}"
    assert "could not write the feedback reports" not in done.stdout, done.stdout


@pytest.fixture(scope="session")
def cli_graded(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """The output folder of one of CLI_RUNS by its name, graded once for the whole run (read it, never
    write into it). Callable from threads at once (test_reports grades the three side by side)."""
    run_folder(tmp_path_factory)  # the run's temporary folder made here, never by two threads racing

    def folder(name: str) -> Path:
        return built_once(tmp_path_factory, f"cli-{name}", lambda out: _grade_cli(name, out))
    return folder


@pytest.fixture(scope="session")
def notebook_kernel(tmp_path_factory: pytest.TempPathFactory):
    """One python3 kernel per test process for the notebooks tests run (tests/notebook_kernel.py), reset
    before each notebook to what a fresh kernel holds: a kernel's start and the kit's imports in it cost
    more than most of those notebooks. Session-scoped, so the tests that use it alone stay spread over
    the xdist workers (one kernel each)."""
    pytest.importorskip("nbclient", reason="nbclient and ipykernel are test dependencies "
                                           "(pip install -e .[test])")
    from tests.notebook_kernel import SharedKernel

    kernel = SharedKernel(tmp_path_factory.getbasetemp())
    yield kernel
    kernel.close()


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
