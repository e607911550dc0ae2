"""Running `grade` commands on real batch folders and reading what they wrote (the term's tests)."""

from __future__ import annotations

import contextlib
import csv
import ctypes
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from grader.cli import main as grade_main
from grader.core import seeds

ROOT = Path(__file__).resolve().parent.parent
PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 36, 37  # linux/prctl.h
# `grade` commands that only read and write batch folders (the term's, `grade similarity`): in-process
HERE = ("review", "adjust", "term", "merge", "export", "similarity")


def grade(*args: str, ok: bool = True, timeout: float = 400, here: bool | None = None
          ) -> subprocess.CompletedProcess:
    """`grade ARGS` from the kit root; with ``ok``, it must exit 0.

    A grade (`grade PATH`, `grade batch`) runs in a fresh process, as the student or instructor runs it
    (the zygote, the forked workers).  The commands in HERE grade nothing: they run here, through the
    same entry point (grader.cli.main), their output and exit status captured as a process's would be,
    saving a Python start and the kit's imports per call.  ``here`` says which, for a call that knows
    better (a batch refused, or with everything already graded, grades nothing either)."""
    if here is None:
        here = bool(args) and args[0] in HERE
    proc = _in_process(list(args)) if here else subprocess.run(
        [sys.executable, "-m", "grader.cli", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=timeout)
    if ok:
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc


def _in_process(argv: list[str]) -> subprocess.CompletedProcess:
    """`grade argv` run by grader.cli.main here: what it printed and its status; the environment and the
    working folder as they were before (a batch names its secret in the environment, grader/core/seeds), and
    a batch's lock on its folder freed, as its process's end frees it; not left a child subreaper."""
    out, err = io.StringIO(), io.StringIO()
    env, cwd, reaper = dict(os.environ), os.getcwd(), _subreaper()
    try:
        os.chdir(ROOT)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = grade_main(argv)
            except SystemExit as exc:  # argparse's usage errors, as a process would exit
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                if isinstance(exc.code, str):
                    print(exc.code, file=sys.stderr)
    finally:
        if argv and argv[0] == "batch":  # its lock on the folder, held until its process ends
            _release_batch_lock()
        _subreaper(reaper)  # a batch makes its process the reaper of orphans: this one stays as it was
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
    return subprocess.CompletedProcess(["grade", *argv], code, out.getvalue(), err.getvalue())


def _release_batch_lock() -> None:
    """What the end of a `grade batch` process does for it: its folder's lock (batch/jobs.py) freed."""
    from grader.instructor.batch import jobs

    if jobs._LOCK is not None:
        jobs._LOCK.close()
        jobs._LOCK = None


def _subreaper(value: int | None = None) -> int:
    """Whether this process is a child subreaper (prctl); with ``value``, made so or not first."""
    libc = ctypes.CDLL(None, use_errno=True)
    if value is not None:
        libc.prctl(PR_SET_CHILD_SUBREAPER, value, 0, 0, 0)
    flag = ctypes.c_int(0)
    libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0)
    return flag.value


def gradebook(out: Path) -> dict[str, dict]:
    """gradebook.csv of a batch folder, by submission."""
    text = (out / "gradebook.csv").read_text(encoding="utf-8-sig")
    return {r["submission"]: r for r in csv.DictReader(io.StringIO(text))}


def results(out: Path, name: str) -> dict:
    return json.loads((out / name / "results.json").read_text(encoding="utf-8"))


def seed(graded: Path, out: Path, names: list[str] | tuple[str, ...]) -> Path:
    """A fresh ``out`` holding the folders of ``names`` from the batch folder ``graded`` and the secret their
    inputs were drawn with, as a batch that graded them leaves them: the next `grade batch` of the same
    code with the same grading flags there finds them done (their markers' hashes match) and grades none."""
    out.mkdir(parents=True)
    if (graded / seeds.BATCH_SECRET).exists():  # made on the first draw (a public run draws none)
        shutil.copy2(graded / seeds.BATCH_SECRET, out / seeds.BATCH_SECRET)
    for name in names:
        shutil.copytree(graded / name, out / name)
    return out
