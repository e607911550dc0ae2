"""What can go wrong when the grader asks the worker something.

These are raised in the grader process.  ``StudentRaised`` carries the type and
message of an exception the student's code raised, as data: the exception
object itself never crosses the boundary.
"""

from __future__ import annotations


class StudentProblem(Exception):
    """Base: the student's code (or its process) did not give an answer."""

    status = "failed"


class StudentRaised(StudentProblem):
    def __init__(self, type_name: str, message: str, where: dict | None = None,
                 frames: list[str] | None = None, bases: list[str] | None = None):
        super().__init__(f"{type_name}: {message}")
        self.type_name = type_name
        self.bases = bases or [type_name]
        self.message = message
        self.where = where
        self.frames = frames or []


class NotAttempted(StudentProblem):
    """The function still raises NotImplementedError. ``code_below``: the raise is the stub's, left above
    a body the student wrote (which never runs): an attempt, told as such."""

    def __init__(self, message: str, where: dict | None = None, code_below: bool = False):
        super().__init__(message)
        self.message = message
        self.where = where
        self.code_below = code_below


class MissingName(StudentProblem):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class ImportFailed(StudentProblem):
    """A student module that did not import. ``near``: for one not there, a file of the submission named
    close to it (embeddings.py for embedding.py), the likely rename."""

    def __init__(self, module: str, kind: str, message: str, where: dict | None, near: str | None = None):
        super().__init__(f"{module}.py: {kind}: {message}")
        self.module = module
        self.kind = kind
        self.message = message
        self.where = where
        self.near = near


# the exit status of a worker its init (runtime/init.py) or the zygote could not start
WORKER_NOT_STARTED = 122


class WorkerCrashed(StudentProblem):
    status = "error"

    def __init__(self, message: str, exit_status: str):
        super().__init__(f"{message} {exit_status}".strip())
        self.message = message
        self.exit_status = exit_status

    @property
    def never_started(self) -> bool:
        """The worker ended before running anything of the student's: it could not be started."""
        return self.exit_status == f"exit status {WORKER_NOT_STARTED}"


class WorkerTimeout(StudentProblem):
    status = "timeout"

    def __init__(self, seconds: float, what: str = "", whole: bool = False):
        super().__init__(f"{what or 'no answer'}: no answer within {seconds:g} s")
        self.seconds = seconds
        self.what = what  # the call that timed out ("count_primes(997)"), "" where unknown
        self.whole = whole  # the whole submission's time budget ran out, not one call's
