"""`grade review` (grader/instructor/term/commands.py)."""

from grader.instructor.term.commands import review_main as main

__all__ = ["main"]
