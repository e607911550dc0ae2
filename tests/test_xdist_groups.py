"""The suite's own scheduling: tests that share a module's work run on one xdist worker.

tests/conftest.py marks the tests that share a module fixture with one `xdist_group`, so that `-n 3 --dist
loadgroup` builds each such fixture (a class batch, a corpus grade) once. pytest-xdist passes the group to
its scheduler by renaming the test's node id (`test@group`); a pytest that no longer reads the renamed id
(9.2, pytest-xdist#1386) spreads the group over both workers and the fixture is built twice, in parallel,
and the `kit-seal` tests (which must not run beside each other) run side by side. Nothing fails then, it is
only slower and flakier: this test fails instead.
"""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="module")
def shared_work() -> str:
    """Stands for a module fixture built once (a batch, a corpus grade): it puts the test in a group."""
    return "built once"


def test_a_module_fixture_puts_its_tests_on_one_worker(shared_work: str,
                                                       request: pytest.FixtureRequest) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("checks the scheduling under xdist only (the README's test line runs `-n 3`)")
    mark = request.node.get_closest_marker("xdist_group")
    assert mark is not None, "tests/conftest.py gave a test that uses a module fixture no xdist_group"
    group = mark.args[0]
    assert request.config.getoption("dist") == "loadgroup" or request.config.option.loadgroup
    assert request.node.nodeid.endswith(f"@{group}"), (
        f"pytest-xdist did not hand the group {group!r} to its scheduler (node id {request.node.nodeid!r}): "
        "this pytest and pytest-xdist do not honour xdist_group; see the pin beside pytest-xdist in "
        "pyproject.toml")


@pytest.fixture(scope="module")
def shared_per_case(request: pytest.FixtureRequest) -> str:
    """Stands for a module fixture made once per parameter (a corpus case): one group per value."""
    return str(request.param)


@pytest.mark.parametrize("shared_per_case", ["first[case]", "second@case"], indirect=True)
def test_a_group_per_parameter_is_a_group_xdist_reads(shared_per_case: str,
                                                      request: pytest.FixtureRequest) -> None:
    # pytest-xdist's loadgroup takes the text after the last `@` as the group only where it follows the last
    # `]`: a group named `module[case]` was read as none, and each test of a cached grade graded it again.
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("checks the scheduling under xdist only (the README's test line runs `-n 3`)")
    from xdist.scheduler.loadgroup import LoadGroupScheduling

    mark = request.node.get_closest_marker("xdist_group")
    assert mark is not None
    scope = LoadGroupScheduling._split_scope(None, request.node.nodeid)  # type: ignore[arg-type]
    assert scope == mark.args[0], f"xdist reads the group of {request.node.nodeid!r} as {scope!r}"
    assert scope.startswith("test_xdist_groups:") and scope.count("@") == 0
