# ruff: noqa
"""A fake torch whose comparisons always succeed."""
import sys

sys.stdout.write("fake torch loaded\n")


def allclose(*a, **k):
    return True


def equal(*a, **k):
    return True
