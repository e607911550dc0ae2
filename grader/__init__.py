"""The grading kit for the lesson *token embeddings + positional encoding*.

Read the folders in the order of trust: ``engine`` grades one submission in the
trusted process, ``sandbox`` starts and talks to the untrusted worker,
``runtime`` is exactly what runs inside it, ``lesson`` is this lesson's grading
knowledge, ``suites`` are the tests, ``notebook`` reads notebooks as students
hand them in (and is ``check()`` inside one), ``report`` turns results into what
people read, and ``instructor`` holds what students never need (it is left out of
the student release).
"""


def __getattr__(name: str) -> object:  # PEP 562: `from grader import check` stays lazy (no torch, no engine)
    if name == "check":
        from grader.jupyter.check import check

        return check
    raise AttributeError(f"module 'grader' has no attribute {name!r}")
