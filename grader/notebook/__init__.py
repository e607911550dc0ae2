"""Notebooks as students hand them in, and `check()` from inside one.

``cells`` turns cells into Python and ``plan`` decides (an `ast` pass, trusted side)
which top-level statements grading needs; ``driver`` writes the staged
``notebook.py`` that runs them one by one in the worker and reads back what
failed; ``messages`` says all of it in the student's terms; ``check`` is the
in-notebook entry point (``from grader import check``).
"""
