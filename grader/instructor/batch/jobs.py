"""The job runner: each submission graded by a child of the batch (forked from the preloaded batch, or a
fresh `grade` with --spawn), at most ``-j`` at once, each under a wall-clock limit after which its whole
process tree is killed; a finished child's folder is published with its done-marker in one rename."""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import gc
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from grader.engine.lessons import lesson_record, load_lesson
from grader.engine.options import GradeOptions
from grader.instructor.batch.discovery import MARKER, Entry, suites_hash
from grader.instructor.batch.options import Config
from grader.instructor.batch.progress import Progress
from grader.instructor.similarity.collect import keep_code
from grader.paths import KIT_ROOT, write_atomic
from grader.sandbox import reap
from grader.sandbox.zygote import ForkedProcess

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
_LOCK: Any = None  # the open .lock file of the running batch


def hold_lock(out: Path) -> bool:
    """Hold ``out/.lock`` for the whole run (freed by the OS even on SIGKILL); False if another batch does."""
    global _LOCK
    _LOCK = open(out / ".lock", "w")  # noqa: SIM115
    try:
        fcntl.flock(_LOCK, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _pdeathsig() -> None:
    """In the child before exec: die with the batch, in a process group of its own."""
    os.setsid()
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() == 1:  # the batch died between fork and prctl
        os._exit(1)


def become_subreaper() -> None:
    """Orphans of a crashed grading child (its worker) are re-parented to the batch, which kills them."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def reap_orphans(known: set[int]) -> None:
    """Kill and reap the batch's children it never started: re-parented orphans of its jobs."""
    for pid in reap.children_of(os.getpid()):
        if pid in known:
            continue
        for victim in [*reap.descendants(pid), pid]:
            with contextlib.suppress(OSError):
                os.kill(victim, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def kill_tree(proc: subprocess.Popen | ForkedProcess) -> None:
    """Stop the child so it spawns nothing new, then kill it and everything below it."""
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGSTOP)
    for _ in range(3):
        tree = reap.descendants(proc.pid)
        for pid in tree:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if not tree:
            break
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


@dataclass
class Job:
    entry: Entry
    sub_hash: str
    work: Path
    proc: subprocess.Popen | ForkedProcess
    started: float
    suite_hash: str  # taken as the child starts: what it will read, even if an edit lands mid-batch


def start_job(entry: Entry, sub_hash: str, out: Path, config: Config, options: GradeOptions | None) -> Job:
    """Start grading one entry: forked from the batch with ``options``, or (None) a fresh `grade` process."""
    work = out / ".work" / f"{entry.name}.{uuid.uuid4().hex[:8]}"
    work.mkdir(parents=True)
    suite_hash = suites_hash(config.options)
    if options is not None:
        child = fork_grade(entry.path, work, options, work / "grade.log")
        return Job(entry, sub_hash, work, child, time.monotonic(), suite_hash)
    argv = config.child_argv(entry.path, work)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(KIT_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.setdefault("OMP_NUM_THREADS", "1")
    with open(work / "grade.log", "wb") as log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                env=env, preexec_fn=_pdeathsig)
    return Job(entry, sub_hash, work, proc, time.monotonic(), suite_hash)


def preload(lesson: str) -> None:
    """Import the grader (and torch) once in the batch, and run the graded lesson's warm-up (module
    ``lesson``'s ``GradeHooks.warm_up``), so each forked child starts warm."""
    import grader.engine.runner  # noqa: F401
    import grader.engine.scoring  # noqa: F401
    import grader.report.run  # noqa: F401 (what each child runs)

    with contextlib.suppress(ImportError):
        from grader.report.render import environment

        # Compiled once here rather than in every child (the feedback page alone takes a fifth of a second).
        for name in environment().list_templates():
            environment().get_template(name)
    import torch

    warm_lesson(lesson)
    torch.set_num_threads(1)
    # What the children inherit is out of the collector's sight: its full passes over torch's objects
    # would cost each child a tenth of a second and copy every page they touch.
    gc.collect()
    gc.freeze()
    # The graders it forks then fork their workers from one zygote instead of each starting a
    # Python that imports torch again (grader/sandbox/zygote.py).
    from grader.sandbox.launch import warm

    warm()


def warm_lesson(module: str) -> None:
    """Run the lesson's warm-up (``GradeHooks.warm_up``; none by default); the forked children inherit it."""
    warm_up = load_lesson(module).grade.warm_up
    if warm_up is not None:
        warm_up()


def fork_into_log(log_path: Path | str, grade: Callable[[], int],
                  prepare: Callable[[], None] = lambda: None) -> int:
    """Fork a child that runs ``prepare`` then ``grade`` with stdin closed and its output in ``log_path``,
    and exits with ``grade``'s status (2 for a SystemExit without one, 70 for a crash); the child's pid.
    The batch's children here and a cluster worker's (cluster/host.py) are made this one way."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 70
    try:
        _pdeathsig()
        prepare()
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__  # not rich's proxies
        fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        code = grade()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def fork_grade(path: Path, out: Path, options: GradeOptions, log_path: Path) -> ForkedProcess:
    """Fork a child that grades ``path`` into ``out`` in-process (the batch has no threads, so forking is safe)."""  # noqa: E501
    def release_lock() -> None:
        if _LOCK is not None:  # the lock is the batch's, not this child's
            os.close(_LOCK.fileno())

    def grade() -> int:
        from grader.report.run import run_grade

        return run_grade(path, out, options, quiet=True)

    return ForkedProcess.direct(fork_into_log(log_path, grade, release_lock))


def finish_job(job: Job, out: Path, config: Config, timed_out: bool) -> dict:
    """Classify the child's outcome, write the marker, publish the folder. Returns the marker."""
    return finish_work(Finished(job.entry, job.sub_hash, job.suite_hash, job.work, job.proc.returncode,
                                round(time.monotonic() - job.started, 2), timed_out), out, config)


@dataclass
class Finished:
    """A grade that ended, wherever it ran (a child here, a cluster's worker): its folder under .work."""

    entry: Entry
    sub_hash: str
    suite_hash: str
    work: Path
    code: int | None
    duration: float
    timed_out: bool
    worker: str | None = None  # the cluster worker that graded it (batch/cluster/); None: here


def finish_work(job: Finished, out: Path, config: Config) -> dict:
    """Classify a finished grade, write the marker, publish the folder. Returns the marker."""
    code, duration, timed_out = job.code, job.duration, job.timed_out
    results_file = job.work / "results.json"
    try:
        results = json.loads(results_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        results = None
    name = job.entry.name
    if timed_out:
        status = "timeout"
        reason = (f"grading did not finish within {config.timeout:g} s and was stopped; the code probably "
                  f"loops forever or trains far longer than asked / 채점이 {config.timeout:g}초 안에 끝나지 "
                  f"않아 중단했습니다. 무한 루프이거나 요청보다 훨씬 오래 학습하는 코드일 가능성이 큽니다")
    elif code == 0 and isinstance(results, dict) and "score" in results:
        status, reason = "graded", ""
    elif code == 2 and isinstance(results, dict) and results.get("error"):
        status = "unreadable"
        reason = (f"the submission could not be read: {results['error']} / 제출물을 읽을 수 없습니다: "
                  f"{results['error']}")
    else:
        status = "error"
        tail = _tail(job.work / "grade.log")
        reason = (f"the grader itself failed on this submission (exit status {code}): {tail} / "
                  f"채점기 자체가 이 제출물에서 실패했습니다(종료 코드 {code}). 강사에게 알려 주세요")
    if status != "graded":
        results = _placeholder(name, status, reason, config, results)
        write_json(results_file, results)
    marker = {
        "name": name, "student_id": job.entry.student_id, "path": str(job.entry.path),
        "status": status, "reason": reason, "exit_code": code, "duration": duration,
        "submission_hash": job.sub_hash, "suites_hash": job.suite_hash, "config_hash": config.digest(),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    if job.worker is not None:
        marker["worker"] = job.worker
    write_json(job.work / MARKER, marker)
    # the code `grade similarity` compares, read as the graded lesson's grade read it: DIR/<name>/code/
    keep_code(job.entry.path, job.work, load_lesson(config.options.lesson).layout.modules)
    publish(job.work, out / name, out)
    return marker


def _placeholder(name: str, status: str, reason: str, config: Config, partial: dict | None) -> dict:
    base = partial if isinstance(partial, dict) else {}
    return {
        "schema": 1, "submission": name, "score": 0.0, "max_score": float(base.get("max_score") or 0.0),
        "suites": base.get("suites") or (["public", "hidden"] if config.options.hidden else ["public"]),
        "isolation": base.get("isolation", "none"), "tests": [], "tasks": {}, "skipped": [],
        "lang": config.options.lang, "status": status, "error": reason,
        "lesson": base.get("lesson") or lesson_record(config.options.lesson),
    }


def _tail(path: Path, limit: int = 400) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return (lines[-1] if lines else "no output")[-limit:]


def write_json(path: Path, data: dict) -> None:
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=2))


def publish(work: Path, final: Path, out: Path) -> None:
    """Swap the finished folder in: the old one (if any) is moved aside first, then renamed over."""
    if final.exists():
        trash = out / ".trash" / f"{final.name}.{uuid.uuid4().hex[:8]}"
        trash.parent.mkdir(parents=True, exist_ok=True)
        os.rename(final, trash)
        shutil.rmtree(trash, ignore_errors=True)
    os.rename(work, final)


def run_batch(todo: list[tuple[Entry, str]], out: Path, config: Config, jobs: int, quiet: bool,
              fork: bool = True, options: GradeOptions | None = None,
              on_done: Callable[[], None] | None = None) -> list[dict]:
    """Grade ``todo``; forked children grade with ``options`` (default: ``config.grade_options()``);
    ``on_done`` is called after each submission is published (the gradebook growing as they finish)."""
    become_subreaper()
    if fork and todo and options is None:
        options = config.grade_options()
    if not fork:
        options = None
    if options is not None:
        if jobs > 1:  # the batch's grades take the cores: none of them runs workers beside its own
            options = replace(options, policy=replace(options.policy, siblings=False))
        preload(options.lesson)
    known = set(reap.children_of(os.getpid()))  # children of whoever called us: not ours to kill
    pending = deque(todo)
    running: list[Job] = []
    markers: list[dict] = []
    progress = Progress(len(todo), quiet)
    try:
        while pending or running:
            while pending and len(running) < jobs:
                entry, sub_hash = pending.popleft()
                running.append(start_job(entry, sub_hash, out, config, options))
                known.add(running[-1].proc.pid)
            time.sleep(0.05)
            progress.refresh()
            for job in list(running):
                timed_out = False
                if job.proc.poll() is None:
                    if time.monotonic() - job.started <= config.timeout:
                        continue
                    kill_tree(job.proc)
                    timed_out = True
                running.remove(job)
                # A child that died hard leaves its worker behind, re-parented to us.
                reap_orphans(known)
                marker = finish_job(job, out, config, timed_out)
                markers.append(marker)
                progress.advance(marker)
                if on_done is not None:
                    on_done()
    finally:
        progress.close()
        for job in running:  # Ctrl-C: leave no grader behind
            kill_tree(job.proc)
    return markers
