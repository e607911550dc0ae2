"""`grade batch SUBMISSIONS_DIR --out DIR`: grade a whole class.

Each submission is graded by its own `grade` process (which runs the student's
code in its own sandboxed worker), at most ``-j`` at once, each under a wall
clock limit after which its whole process tree is killed.

Nothing is lost and nothing half-done is trusted:

* a child writes into a private folder ``DIR/.work/<name>.<nonce>/``; when it
  has finished, the batch writes ``batch.json`` (the done-marker: status,
  content hashes of the submission, of the suites and of the options) into
  that folder and renames the folder to ``DIR/<name>/`` in one step, so a
  ``DIR/<name>/`` with a ``batch.json`` is always complete;
* a rerun skips a submission whose marker matches the current hashes, and
  grades the rest; ``.work`` left by a killed run is thrown away;
* the children die with the batch (``PR_SET_PDEATHSIG``), so a SIGKILLed batch
  leaves no grader running that could write later.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import ctypes
import fcntl
import gc
import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from grader.core import seeds
from grader.engine.options import GradeOptions
from grader.paths import KIT_ROOT, SOLUTIONS, SUITES_DIR, write_atomic
from grader.report import classpages
from grader.sandbox import reap
from grader.sandbox.flags import add_sandbox_arguments

SOLUTIONS_DIR = SOLUTIONS
MARKER = "batch.json"
MANIFEST = "batch-manifest.json"
RESERVED = {".work", ".trash", ".lock", "gradebook.csv", "summary.html", MANIFEST, "summary_files",
            "similarity.csv", "similarity.html"}
FINAL_STATUSES = {"graded", "unreadable", "timeout"}  # "error" (the grader's own failure) is retried
# Per concurrent grade: with the zygote its grader and worker add about 0.2 GB to the one shared torch; the
# rest is room for a student's larger model and for machines where each imports its own (process mode).
PER_JOB_BYTES = int(1.5 * 1024**3)
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
_LOCK: Any = None  # the open .lock file of the running batch


# -- what to grade ---------------------------------------------------------------


@dataclass
class Entry:
    name: str
    path: Path
    student_id: str


def discover(root: Path) -> list[Entry]:
    """Every visible entry of ``root`` is one submission, named after it."""
    items = sorted(p for p in root.iterdir() if not p.name.startswith((".", "~$")))
    stems: dict[str, int] = {}
    for p in items:
        stems[_stem(p)] = stems.get(_stem(p), 0) + 1
    entries = []
    for p in items:
        # alice.zip next to alice/ would collide: then both keep their full names.
        name = _stem(p) if stems[_stem(p)] == 1 else p.name
        if name in RESERVED:
            name += "_submission"
        entries.append(Entry(name, p, name))
    return entries


def _stem(p: Path) -> str:
    return p.name.removesuffix(".zip").removesuffix(".ipynb") if p.is_file() else p.name


def read_roster(path: Path) -> dict[str, str]:
    """Submission name -> student id from a CSV with a header.

    The name column is one of submission/name/file/folder/login; the id column
    one of id/student_id/sid/email. Without a recognised header the first two
    columns are used.
    """
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = [r for r in csv.reader(fh) if any(c.strip() for c in r)]
    if not rows:
        return {}
    head = [c.strip().lower() for c in rows[0]]
    names = [i for i, c in enumerate(head)
             if c in ("submission", "name", "file", "folder", "login", "github")]
    ids = [i for i, c in enumerate(head) if c in ("id", "student_id", "sid", "student", "email")]
    if names and ids:
        ni, ii, body = names[0], ids[0], rows[1:]
    else:
        ni, ii, body = 0, 1, rows
    roster = {}
    for r in body:
        if len(r) > max(ni, ii) and r[ni].strip():
            key = r[ni].strip().removesuffix(".zip").removesuffix(".ipynb")
            roster[key] = r[ii].strip() or key
    return roster


def shard_of(entries: list[Entry], k: int, n: int) -> list[Entry]:
    """The k-th (1-based) of n slices: sort by a hash of the name, deal round-robin.

    Deterministic from the names alone (every shard computes the same split)
    and balanced to within one submission.
    """
    ordered = sorted(entries, key=lambda e: (hashlib.sha256(e.name.encode()).hexdigest(), e.name))
    return [e for i, e in enumerate(ordered) if i % n == k - 1]


def parse_shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard expects K/N such as 2/8, got {text!r}") from None
    if not (n >= 1 and 1 <= k <= n):
        raise argparse.ArgumentTypeError(f"--shard {text}: K must be between 1 and N")
    return k, n


# -- content hashes ----------------------------------------------------------------


def hash_tree(path: Path, skip_dotfiles: bool = False) -> str:
    """sha256 over relative paths and bytes; links are hashed by target, never followed."""
    h = hashlib.sha256()
    if path.is_file() and not path.is_symlink():
        h.update(path.read_bytes())
        return h.hexdigest()
    for p in sorted(path.rglob("*")):
        rel = p.relative_to(path).as_posix()
        if "__pycache__" in p.parts or p.suffix == ".pyc" or (skip_dotfiles and p.name.startswith(".")):
            continue
        if p.is_symlink():
            h.update(f"L {rel} -> {os.readlink(p)}\n".encode())
        elif p.is_file():
            h.update(f"F {rel} {p.stat().st_size}\n".encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def suites_hash(hidden: bool = True) -> str:
    """The tests that run and the reference they compare against (grader/suites + solutions)."""
    h = hashlib.sha256()
    roots = (SUITES_DIR, SOLUTIONS_DIR) if hidden else (SUITES_DIR / "public", SUITES_DIR / "pytest.ini")
    for root in roots:
        h.update(hash_tree(root, skip_dotfiles=True).encode() if root.exists() else b"absent")
    return h.hexdigest()


# -- options -------------------------------------------------------------------------


@dataclass
class Config:
    hidden: bool = True
    keyword: str | None = None
    lang: str = "en"
    isolation: str = "auto"
    memory_mb: int = 4096
    timeout: float = 900.0
    grade_args: list[str] = field(default_factory=list)

    def grade_flags(self) -> list[str]:
        """These options as `grade` flags (for --spawn children; --grade-args is validated by them)."""
        flags = ["--lang", self.lang, "--isolation", self.isolation, "--memory-mb", str(self.memory_mb)]
        if self.hidden:
            flags.append("--hidden")
        if self.keyword:
            flags += ["-k", self.keyword]
        return flags + self.grade_args

    def child_argv(self, path: Path, out: Path) -> list[str]:
        return [sys.executable, "-m", "grader.cli", str(path), "--out", str(out), "-q", *self.grade_flags()]

    def grade_options(self) -> GradeOptions:
        """The typed options every forked child grades with, built once in the batch.

        Raises ValueError (the reason) when --grade-args names a hidden archive that cannot be opened."""
        from grader import cli

        args = cli.build_parser().parse_args(["-", *self.grade_flags()])
        options = cli.options_from_args(args)
        if args.hidden_from:
            options = cli.with_hidden_archive(options, Path(args.hidden_from), args.key_env)
        return options

    def digest(self) -> str:
        """What changes the grade (not the time limit: a rerun need not regrade for it)."""
        key = [self.hidden, self.keyword, self.lang, self.isolation, self.memory_mb, self.grade_args]
        return hashlib.sha256(json.dumps(key).encode()).hexdigest()


def default_jobs() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return cores
    return max(1, min(cores, avail // PER_JOB_BYTES))


# -- done-markers --------------------------------------------------------------------


def read_marker(student_dir: Path) -> dict | None:
    """The marker of a finished submission, or None if absent or unreadable."""
    try:
        marker = json.loads((student_dir / MARKER).read_text(encoding="utf-8"))
        json.loads((student_dir / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) else None


def is_done(marker: dict | None, sub_hash: str, suite_hash: str, config_hash: str, retry: bool) -> bool:
    if marker is None:
        return False
    if marker.get("status") not in FINAL_STATUSES or (retry and marker.get("status") != "graded"):
        return False
    return (marker.get("submission_hash"), marker.get("suites_hash"), marker.get("config_hash")) == (
        sub_hash, suite_hash, config_hash)


def plan(entries: list[Entry], out: Path, config: Config, *, force: bool = False,
         retry: bool = False) -> tuple[list[tuple[Entry, str]], list[Entry]]:
    """(to grade with their submission hash, already done) for this out folder."""
    suite_hash, config_hash = suites_hash(config.hidden), config.digest()
    todo, done = [], []
    for e in entries:
        sub_hash = hash_tree(e.path)
        marker = read_marker(out / e.name)
        if not force and is_done(marker, sub_hash, suite_hash, config_hash, retry):
            done.append(e)
        else:
            todo.append((e, sub_hash))
    return todo, done


# -- running one child ---------------------------------------------------------------


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


def kill_tree(proc: subprocess.Popen) -> None:
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


class ForkedChild:
    """A forked grading child, with the bits of Popen's interface the batch uses."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.returncode = -1
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = time.monotonic() + (timeout if timeout is not None else 1e9)
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"pid {self.pid}", timeout or 0)
            time.sleep(0.02)
        return int(self.returncode)  # type: ignore[arg-type]

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)


@dataclass
class Job:
    entry: Entry
    sub_hash: str
    work: Path
    proc: subprocess.Popen | ForkedChild
    started: float
    suite_hash: str  # taken as the child starts: what it will read, even if an edit lands mid-batch


def start_job(entry: Entry, sub_hash: str, out: Path, config: Config, options: GradeOptions | None) -> Job:
    """Start grading one entry: forked from the batch with ``options``, or (None) a fresh `grade` process."""
    work = out / ".work" / f"{entry.name}.{uuid.uuid4().hex[:8]}"
    work.mkdir(parents=True)
    suite_hash = suites_hash(config.hidden)
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


def preload() -> None:
    """Import the grader (and torch) once in the batch, so each forked child starts warm."""
    import grader.cli  # noqa: F401
    import grader.engine.runner  # noqa: F401
    import grader.engine.scoring  # noqa: F401

    with contextlib.suppress(ImportError):
        from grader.report.render import environment

        # Compiled once here rather than in every child (the feedback page alone takes a fifth of a second).
        for name in environment().list_templates():
            environment().get_template(name)
    import torch

    from grader.lesson.experiment import header

    header()  # the bag-of-tokens bounds (exact fractions, cached)
    torch.set_num_threads(1)
    # What the children inherit is out of the collector's sight: its full passes over torch's objects
    # would cost each child a tenth of a second and copy every page they touch.
    gc.collect()
    gc.freeze()
    # The graders it forks then fork their workers from one zygote instead of each starting a
    # Python that imports torch again (grader/sandbox/zygote.py).
    from grader.sandbox.launch import warm

    warm()


def fork_grade(path: Path, out: Path, options: GradeOptions, log_path: Path) -> ForkedChild:
    """Fork a child that grades ``path`` into ``out`` in-process (the batch has no threads, so forking is safe)."""  # noqa: E501
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return ForkedChild(pid)
    code = 70
    try:
        _pdeathsig()
        if _LOCK is not None:  # the lock is the batch's, not this child's
            os.close(_LOCK.fileno())
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__  # not rich's proxies
        fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        from grader.cli import run_grade

        code = run_grade(path, out, options, quiet=True)
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


def finish_job(job: Job, out: Path, config: Config, timed_out: bool) -> dict:
    """Classify the child's outcome, write the marker, publish the folder. Returns the marker."""
    duration = round(time.monotonic() - job.started, 2)
    code = job.proc.returncode
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
    write_json(job.work / MARKER, marker)
    from grader.instructor.similarity.collect import keep_code

    keep_code(job.entry.path, job.work)  # the code `grade similarity` compares: DIR/<name>/code/
    publish(job.work, out / name, out)
    return marker


def _placeholder(name: str, status: str, reason: str, config: Config, partial: dict | None) -> dict:
    base = partial if isinstance(partial, dict) else {}
    return {
        "schema": 1, "submission": name, "score": 0.0, "max_score": float(base.get("max_score") or 0.0),
        "suites": base.get("suites") or (["public", "hidden"] if config.hidden else ["public"]),
        "isolation": base.get("isolation", "none"), "tests": [], "tasks": {}, "skipped": [],
        "lang": config.lang, "status": status, "error": reason,
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


# -- the batch -------------------------------------------------------------------------


class Progress:
    """A rich progress bar with done / failed / remaining and an ETA (nothing when quiet)."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.total, self.done, self.failed = total, 0, 0
        self.bar = None
        self.last = 0.0
        if quiet or total == 0:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        self.bar = RichProgress(
            TextColumn("[bold]grading / 채점"), BarColumn(), MofNCompleteColumn(),
            TextColumn("done {task.fields[ok]} · failed {task.fields[bad]} · remaining {task.fields[left]}"),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            auto_refresh=False)  # no refresh thread: the batch forks, and must stay single-threaded
        self.task = self.bar.add_task("batch", total=total, ok=0, bad=0, left=total)
        self.bar.start()

    def advance(self, marker: dict) -> None:
        self.done += 1
        if marker["status"] != "graded":
            self.failed += 1
        if self.bar is not None:
            if marker["status"] != "graded":
                from rich.markup import escape

                self.bar.console.print(f"[yellow]{escape(marker['name'])}: {marker['status']}[/] "
                                       f"{escape(marker['reason'][:200])}")
            self.bar.update(self.task, advance=1, ok=self.done - self.failed, bad=self.failed,
                            left=self.total - self.done)
            self.bar.refresh()

    def refresh(self) -> None:
        now = time.monotonic()
        if self.bar is not None and now - self.last >= 0.5:
            self.last = now
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def run_batch(todo: list[tuple[Entry, str]], out: Path, config: Config, jobs: int, quiet: bool,
              fork: bool = True, options: GradeOptions | None = None) -> list[dict]:
    """Grade ``todo``; forked children grade with ``options`` (default: ``config.grade_options()``)."""
    become_subreaper()
    if fork and todo and options is None:
        options = config.grade_options()
    if not fork:
        options = None
    if options is not None:
        if jobs > 1:  # the batch's grades take the cores: none of them runs workers beside its own
            options = replace(options, policy=replace(options.policy, siblings=False))
        preload()
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
    finally:
        progress.close()
        for job in running:  # Ctrl-C: leave no grader behind
            kill_tree(job.proc)
    return markers


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="grade batch", description=(
        "Grade every submission in a folder (one entry = one student) in parallel, in sandboxed workers. "
        "Rerunning skips what is done. / 폴더 안의 모든 제출물을 병렬로 채점합니다. 다시 실행하면 끝난 것은 "
        "건너뜁니다."))
    p.add_argument("submissions", type=Path, help="folder holding one folder/notebook/zip per student")
    p.add_argument("--out", type=Path, required=True,
                   help="output folder (per-student reports, gradebook.csv)")
    p.add_argument("-j", "--jobs", type=int, default=None,
                   help="submissions at once (default: cores, memory allowing)")
    p.add_argument("--force", action="store_true", help="regrade everything, even what is done")
    p.add_argument("--retry", action="store_true", help="also regrade rows that timed out or were unreadable")
    p.add_argument("--roster", type=Path, help="CSV mapping submission names to student ids")
    p.add_argument("--shard", type=parse_shard, default=(1, 1), metavar="K/N",
                   help="grade only the K-th of N deterministic slices (merge them with `grade merge`)")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per submission (default 900)")
    p.add_argument("--public-only", action="store_true", help="run only the public suite (no --hidden)")
    p.add_argument("-k", dest="keyword", default=None, help="only tests matching this pytest -k expression")
    p.add_argument("--lang", choices=("ko", "en"), default=None, help="language of the feedback")
    p.add_argument("--isolation", choices=("auto", "namespaces", "process"), default="auto")
    p.add_argument("--memory-mb", type=int, default=4096, help="memory limit of each student process (MiB)")
    add_sandbox_arguments(p)
    p.add_argument("--grade-args", default="",
                   help="extra arguments for each `grade` call, e.g. '--hidden-from F'")
    p.add_argument("--spawn", action="store_true",
                   help="start each child as a fresh `python -m grader.cli` instead of forking a preloaded "
                        "one")
    p.add_argument("--no-similarity", action="store_true",
                   help="skip the code similarity check at the end (grade similarity DIR runs it later)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return p


def sandbox_flags(args: argparse.Namespace) -> list[str]:
    """The sandbox limits given to the batch, passed on to each `grade` (only those changed)."""
    probe = argparse.ArgumentParser(add_help=False)
    add_sandbox_arguments(probe)
    flags: list[str] = []
    for action in probe._actions:
        value = getattr(args, action.dest, action.default)
        if action.option_strings and value != action.default:
            flags += [action.option_strings[0], str(value)]
    return flags


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from grader.cli import default_lang

    src, out = args.submissions, args.out
    if not src.is_dir():
        print(f"grade batch: {src} is not a folder of submissions / 제출물 폴더가 아닙니다", file=sys.stderr)
        return 2
    config = Config(hidden=not args.public_only, keyword=args.keyword, lang=args.lang or default_lang(),
                    isolation=args.isolation, memory_mb=args.memory_mb, timeout=args.timeout,
                    grade_args=sandbox_flags(args) + shlex.split(args.grade_args))
    if (config.hidden and "--hidden-from" not in args.grade_args
            and not any((SUITES_DIR / "hidden").glob("test_*.py"))):
        print("grade batch: this copy of the kit has no hidden suite; use --public-only, or run from the "
              "instructor copy / 이 키트에는 비공개 테스트가 없습니다. --public-only를 쓰거나 강사용 "
              "키트에서 실행하세요", file=sys.stderr)
        return 2
    roster = read_roster(args.roster) if args.roster else {}
    everyone = [e for e in discover(src) if e.path.resolve() != out.resolve()]
    for e in everyone:
        e.student_id = roster.get(e.name, e.name)
    k, n = args.shard
    entries = shard_of(everyone, k, n)
    out.mkdir(parents=True, exist_ok=True)
    seeds.use_batch_secret(out)  # no course secret given: a random one kept beside the batch (replayable)
    global _LOCK
    lock = _LOCK = open(out / ".lock", "w")  # noqa: SIM115 (held for the whole run; freed by the OS even on SIGKILL)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"grade batch: another batch is writing to {out} / 다른 채점이 이미 이 폴더에 쓰고 있습니다",
              file=sys.stderr)
        return 2
    # Whatever a killed run left half-done is discarded, never read.
    for leftover in (".work", ".trash"):
        shutil.rmtree(out / leftover, ignore_errors=True)
    submitted = {e.name for e in everyone}
    manifest = {"source": str(src.resolve()), "shard": f"{k}/{n}", "names": sorted(e.name for e in entries),
                "roster_missing": sorted(set(roster) - submitted), "roster": roster, "hidden": config.hidden}
    write_json(out / MANIFEST, manifest)
    todo, done = plan(entries, out, config, force=args.force, retry=args.retry)
    jobs = max(1, args.jobs or default_jobs())
    if not args.quiet:
        print(f"{len(entries)} submissions: {len(done)} already graded, {len(todo)} to grade with -j {jobs} "
              f"/ 제출물 {len(entries)}개: {len(done)}개는 이미 채점됨, {len(todo)}개 채점 (-j {jobs})")
    try:
        options = config.grade_options() if todo and not args.spawn else None
    except ValueError as exc:  # --grade-args '--hidden-from ARCHIVE' that cannot be opened
        print(f"grade batch: --hidden-from: {exc}", file=sys.stderr)
        return 2
    markers = run_batch(todo, out, config, jobs, args.quiet, fork=not args.spawn, options=options)
    if not args.no_similarity:  # before the summary, which links to similarity.html
        from grader.instructor.similarity import run_after_batch

        run_after_batch(out, quiet=args.quiet)
    book = classpages.write_class_report(out)
    if not args.quiet:
        failed = sum(m["status"] != "graded" for m in markers)
        print(f"graded {len(markers)} now ({failed} not graded normally); gradebook: {book.gradebook} ; "
              f"summary: {book.summary} / 이번에 {len(markers)}개 채점 (정상 채점 아님 {failed}개)")
    return 0
