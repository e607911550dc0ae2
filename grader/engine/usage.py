"""A command misused: the one exception every front end turns into a one-line message and exit status 2.

Its own module, below the options (engine/options.py) and the lesson registry (engine/lessons.py) that both
raise it, so neither has to import the other for it.
"""

from __future__ import annotations


class UsageProblem(Exception):
    """The command was misused (exit status 2)."""
