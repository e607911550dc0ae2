"""`grade term` (grader/instructor/term/commands.py)."""

from grader.instructor.term.commands import term_main as main

__all__ = ["main"]
