"""What runs on a worker: one submission graded by a child forked from this worker thread's warm grader
(host.py), with the options the batch's flags stand for, as a local batch's forked child grades it (the
same isolation level, limits and seeds), under the batch's time limit; where no warm grader can start, by a
fresh `grade` process with those flags, as `grade batch --spawn` grades.

Everything travels in the task as bytes (the submission, the hidden suite sealed under a one-time key,
the course secret that seeds it) into a private folder (mkdtemp: 0700) that is removed when the task ends,
whatever the outcome: nothing of the hidden suite stays on the worker.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from grader.core.seeds import SECRET_ENV, SECRET_FILE_ENV, SEED_ENV
from grader.instructor.batch.cluster.fingerprint import difference, fingerprint, refusal
from grader.instructor.hidden_pack import HIDDEN_TMP_ENV
from grader.paths import KIT_ROOT
from grader.sandbox import reap

PREFIX = "gk-cluster-"  # a task's private folder: its owner file says which worker process made it
KEY_ENV = "GK_CLUSTER_HIDDEN_KEY"  # the one-time key of the task's sealed hidden suite, in the child only
MAX_FILE = 256 * 1024 * 1024  # a report file larger than this is not sent back (the grader caps its own)


@dataclass(frozen=True)
class Task:
    name: str
    filename: str  # the entry's own name (alice, bob.ipynb, carol.zip): `grade` reads it by its suffix
    submission: bytes  # a tar of that entry
    flags: tuple[str, ...]  # the batch's `grade` flags (no --hidden-from: the worker adds its own)
    timeout: float
    lesson: str  # the lesson module: the worker's copy is checked against ``expected`` first
    expected: dict[str, str]
    hidden: bytes | None = None  # the hidden suite and reference, sealed (grader/instructor/hidden_pack.py)
    hidden_key: str = ""
    secret: bytes | None = None  # the course secret: the same seeds as a local batch
    seed: str | None = None  # GK_GRADING_SEED when the instructor set one


def pack_entry(path: Path) -> bytes:
    """A submission (folder, notebook, zip) as a tar, links kept as links (`grade` refuses them as here)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.add(path, arcname=path.name, recursive=True,
                filter=lambda info: None if "__pycache__" in info.name.split("/") else info)
    return buf.getvalue()


def _unpack(blob: bytes, into: Path) -> None:
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r") as tar:
        for member in tar.getmembers():  # our own tar, but nothing may land outside ``into``
            parts = Path(member.name).parts
            if member.name.startswith("/") or ".." in parts or not (member.isfile() or member.isdir()
                                                                     or member.issym()):
                raise ValueError(f"unexpected entry {member.name!r} in the submission's tar")
        if hasattr(tarfile, "tar_filter"):  # Python 3.11.4+: links that point outside refused too
            tar.extractall(into, filter="tar")
        else:  # pragma: no cover
            tar.extractall(into)


def grade_task(task: Task) -> dict:
    """Grade ``task`` on this worker; {code, timed_out, duration, files: {relative path: bytes}, worker}
    or {refused: reason} when this worker's kit or lesson differs from the instructor's."""
    worker = _worker_name()
    diff = difference(task.expected, fingerprint(task.lesson))
    if diff:
        return {"refused": refusal(worker, diff)}
    sweep_stale()
    root = Path(tempfile.mkdtemp(prefix=PREFIX))
    (root / "owner").write_text(f"{os.getpid()} {reap.start_time(os.getpid())}")
    try:
        inbox, work = root / "in", root / "out"
        inbox.mkdir()
        work.mkdir()
        _unpack(task.submission, inbox)
        flags, env = list(task.flags), {}  # env: set in the grading child only
        if task.secret is not None:  # as a file, byte for byte: the seeds are the local batch's
            secret_file = root / "course-secret"
            secret_file.write_bytes(task.secret)
            env[SECRET_FILE_ENV] = str(secret_file)
        if task.seed is not None:
            env[SEED_ENV] = task.seed
        if task.hidden is not None:
            sealed = root / "hidden.gkpack"
            sealed.write_bytes(task.hidden)
            flags += ["--hidden-from", str(sealed), "--key-env", KEY_ENV]
            env[KEY_ENV] = task.hidden_key
            env[HIDDEN_TMP_ENV] = str(root)  # the decrypted copy inside this task's folder
        path, log = inbox / task.filename, work / "grade.log"
        answer = warm_host(task.lesson).grade({"path": str(path), "out": str(work), "log": str(log),
                                               "flags": flags, "env": env, "timeout": task.timeout})
        if answer is not None:
            code, timed_out, duration = answer["code"], answer["timed_out"], answer["duration"]
        else:  # no warm grader here (it could not start, or died): a cold `grade`, as `--spawn` runs
            argv = [sys.executable, "-m", "grader.cli", str(path), "--out", str(work), "-q", *flags]
            code, timed_out, duration = _run(argv, {**child_env(), **env}, log, task.timeout)
        return {"code": code, "timed_out": timed_out, "duration": duration, "files": _collect(work),
                "worker": worker}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def child_env() -> dict[str, str]:
    """The worker's environment for what grades here: the kit importable, one thread for BLAS, and none of
    the secrets a task hands its own grading child."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(KIT_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.setdefault("OMP_NUM_THREADS", "1")
    for name in (SECRET_ENV, SECRET_FILE_ENV, SEED_ENV, KEY_ENV, HIDDEN_TMP_ENV):
        env.pop(name, None)
    return env


class Host:
    """This worker thread's warm grader (batch/cluster/host.py): started once, then one forked
    child per submission, as a local batch grades."""

    def __init__(self, lesson: str) -> None:
        from grader.instructor.batch.jobs import _pdeathsig

        self.proc = subprocess.Popen([sys.executable, "-m", "grader.instructor.batch.cluster.host", lesson],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=child_env(), text=True, preexec_fn=_pdeathsig)
        self.ready = self._read() == {"ready": True}

    def _read(self) -> dict | None:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        try:
            return dict(json.loads(line)) if line else None
        except ValueError:
            return None

    def close(self) -> None:
        """End the host: its stdin closed, it returns from its loop (killed if it does not)."""
        with contextlib.suppress(Exception):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def alive(self) -> bool:
        return self.ready and self.proc.poll() is None

    def grade(self, request: dict) -> dict | None:
        """The host's answer, or None when it is gone (the caller grades cold)."""
        if not self.alive():
            return None
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except OSError:
            return None
        return self._read()


_HOSTS = threading.local()


def warm_host(lesson: str) -> Host:
    """This thread's warm grader for ``lesson`` (a fresh one when it has none, or its last one died)."""
    hosts = getattr(_HOSTS, "by_lesson", None)
    if hosts is None:
        hosts = _HOSTS.by_lesson = {}
    host = hosts.get(lesson)
    if host is None or (host.ready and not host.alive()):
        host = hosts[lesson] = Host(lesson)
        atexit.register(host.close)
    return host


def sweep_stale() -> None:
    """Remove the folders of tasks whose worker was killed before its cleanup (SIGKILL, a lost node): the
    hidden suite in them must not outlive the task."""
    for path in Path(tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            pid, started = (path / "owner").read_text().split()
        except (OSError, ValueError):
            continue
        if reap.start_time(int(pid)) != started:
            shutil.rmtree(path, ignore_errors=True)


def _run(argv: list[str], env: dict[str, str], log_path: Path,
         timeout: float) -> tuple[int | None, bool, float]:
    from grader.instructor.batch.jobs import _pdeathsig, kill_tree

    started = time.monotonic()
    with open(log_path, "wb") as log:
        # _pdeathsig: the grade dies with this worker (a killed worker leaves nothing grading)
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                env=env, preexec_fn=_pdeathsig)
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_tree(proc)
        timed_out = True
    finally:
        if proc.returncode is None:  # the task itself was interrupted: leave no grader behind
            kill_tree(proc)
    return proc.returncode, timed_out, round(time.monotonic() - started, 2)


def _collect(work: Path) -> dict[str, bytes]:
    files = {}
    for f in sorted(work.rglob("*")):
        if f.is_file() and not f.is_symlink() and f.stat().st_size <= MAX_FILE:
            files[f.relative_to(work).as_posix()] = f.read_bytes()
    return files


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        import socket

        return socket.gethostname()


def worker_fingerprint(lesson: str) -> dict[str, str]:
    """For ``Client.run``: this worker's kit and lesson."""
    return fingerprint(lesson)
