"""`grade adjust` (grader/instructor/term/commands.py)."""

from grader.instructor.term.commands import adjust_main as main

__all__ = ["main"]
