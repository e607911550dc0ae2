"""Notebooks as students hand them in, and `check()` from inside one.

``cells`` turns cells into Python and ``plan`` decides (an `ast` pass, trusted side)
which top-level statements grading needs; ``driver`` writes the staged
``notebook.py`` that runs them one by one in the worker and reads back what
failed; ``messages`` says all of it in the student's terms; ``check`` is the
in-notebook entry point (``from grader import check``).

What was not run or failed reaches results.json as ``artifacts.notebook``::

    {"source": "lesson.ipynb" | null,
     "notes": [{"cell": 3 | null, "line": 2, "code": "drive.mount('/content/drive')",
                "action": "skipped" | "failed" | "stopped",
                "reason": "magic" | "cell_magic" | "syntax" | "notebook_only" | "plotting" | "kit" | "needs"
                          | "output" | "experiment" | "unused" | "main_guard" | "slow" | "budget" | "raised",
                "detail": "...", "file": "embedding.py" (a .py file's notes), "type": "NameError" (raised),
                "defines": ["TinyLM"] (syntax), "important": true, "messages": {"en": "...", "ko": "..."}}]}

``important`` notes (failures, stops, chains from them) come first; the report lists
them and folds the rest (output, demos, notebook commands) away.
"""
