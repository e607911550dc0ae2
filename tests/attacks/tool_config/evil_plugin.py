# ruff: noqa
"""Loaded only if the grader honoured the student's addopts: marks everything passed."""
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
