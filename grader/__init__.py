"""The grading kit: any lesson's submissions graded in a sandbox, reported in Korean and English.

Read the folders in the order of trust: ``engine`` grades one submission in the
trusted process, ``sandbox`` starts and talks to the untrusted worker (``daemon``
keeps one warm between grades), ``runtime`` is exactly what runs inside it,
``notebook`` reads notebooks as students hand them in, ``jupyter`` is ``check()``
inside one, ``report`` turns results into what people read, and ``instructor``
holds what students never need (it is left out of the student release). The
lessons are packages of their own under ``lessons/`` (found by entry point,
``engine/lessons.py``); they import the kit through ``author`` only.
docs/architecture.md maps the tree.
"""


def __getattr__(name: str) -> object:  # PEP 562: `from grader import check` stays lazy (no torch, no engine)
    if name == "check":
        from grader.jupyter.check import check

        return check
    raise AttributeError(f"module 'grader' has no attribute {name!r}")
