"""The instructor's side of a cluster batch: the workers checked, one task per submission submitted, and
each result written into the batch folder exactly as a local child's (.work, the done-marker, one rename),
so a cluster batch is resumable, and its gradebook the local one's.

A worker that dies mid-task: the scheduler gives its task to another worker (Dask's own recovery, up to
``distributed.scheduler.allowed-failures`` deaths, then KilledWorker: an "error" row a rerun retries); each
task's result is written once, when its future completes, so nothing is counted twice. A scheduler that
goes away: the batch stops with one line; what was written stays, and a rerun grades the rest.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import uuid
from pathlib import Path
from typing import Any

from grader.core import seeds
from grader.instructor.batch.cluster.fingerprint import difference, fingerprint, refusal
from grader.instructor.batch.cluster.spec import ClusterProblem, ClusterSpec, connect
from grader.instructor.batch.cluster.task import Task, grade_task, pack_entry, worker_fingerprint
from grader.instructor.batch.discovery import Entry, suites_hash
from grader.instructor.batch.jobs import Finished, finish_work, write_json
from grader.instructor.batch.options import Config
from grader.instructor.batch.progress import Progress

RETRIES = 1  # a task that raised (not a grade that failed: that is a result) is tried once more


def grade_on_cluster(spec: ClusterSpec, todo: list[tuple[Entry, str]], out: Path, config: Config,
                     quiet: bool) -> list[dict]:
    """Grade ``todo`` on the cluster; the markers written. ClusterProblem: the batch must stop."""
    with connect(spec) as client:
        expected = check_workers(client, config)
        if not quiet:
            print(f"cluster {spec.describe()}: {len(client.scheduler_info()['workers'])} workers, kit "
                  f"{expected['kit']} ({expected['kit_hash']}), lesson {expected['lesson']} "
                  f"{expected['lesson_version']} ({expected['lesson_hash']}) on each")
        return collect(client, todo, out, config, quiet, expected)


def check_workers(client: Any, config: Config) -> dict[str, str]:
    """The instructor's fingerprint, after every worker's matched it: ClusterProblem naming the first
    worker that differs (before anything is graded)."""
    mine = fingerprint(config.options.lesson)
    theirs = client.run(worker_fingerprint, config.options.lesson)
    for worker, found in sorted(theirs.items()):
        diff = difference(mine, found)
        if diff:
            raise ClusterProblem(refusal(worker, diff))
    return mine


def task_flags(config: Config) -> tuple[str, ...]:
    """The --spawn child's `grade` flags without --hidden-from/--key-env (the worker names its own copy)."""
    flags, out = config.grade_flags(), []
    skip = False
    for flag in flags:
        if skip:
            skip = False
            continue
        if flag in ("--hidden-from", "--key-env"):
            skip = True
            continue
        if flag.startswith(("--hidden-from=", "--key-env=")):
            continue
        out.append(flag)
    return tuple(out)


def sealed_hidden(config: Config) -> tuple[bytes, str] | None:
    """The hidden suite and reference the batch grades with, sealed under a one-time key (None for a
    public-only batch). ValueError: a --hidden-from archive that cannot be opened."""
    if not config.options.hidden:
        return None
    from grader.instructor.hidden_pack import build_tar, seal

    options = config.grade_options()  # --hidden-from opened here, once
    with tempfile.TemporaryDirectory(prefix="gk-noref-") as empty:
        solutions = options.solutions_dir if options.solutions_dir is not None else Path(empty)
        payload, _ = build_tar(options.suites_dir / "hidden", solutions)
    key = secrets.token_urlsafe(32)
    return seal(payload, key, log2_n=10), key  # a random key: the slow key derivation adds nothing


def collect(client: Any, todo: list[tuple[Entry, str]], out: Path, config: Config, quiet: bool,
            expected: dict[str, str]) -> list[dict]:
    from distributed import as_completed

    try:
        hidden = sealed_hidden(config)
    except ValueError as exc:
        raise ClusterProblem(f"--hidden-from: {exc}") from None
    secret, source = seeds.course_secret()
    suite_hash = suites_hash(config.options)
    flags = task_flags(config)
    futures: dict[Any, tuple[Entry, str]] = {}
    for entry, sub_hash in todo:
        task = Task(entry.name, entry.path.name, pack_entry(entry.path), flags, config.timeout,
                    config.options.lesson, expected, hidden[0] if hidden else None,
                    hidden[1] if hidden else "", secret, os.environ.get(seeds.SEED_ENV))
        future = client.submit(grade_task, task, key=f"grade-{entry.name}-{uuid.uuid4().hex[:8]}",
                               pure=False, retries=RETRIES)
        futures[future] = (entry, sub_hash)
    markers: list[dict] = []
    progress = Progress(len(todo), quiet)
    try:
        for future in as_completed(futures):
            entry, sub_hash = futures.pop(future)
            result = _outcome(future)
            if "refused" in result:
                raise ClusterProblem(result["refused"])
            marker = write_result(entry, sub_hash, suite_hash, result, out, config, source)
            markers.append(marker)
            progress.advance(marker)
    finally:
        progress.close()
        for future in futures:  # stopped early: nothing left grading for a batch that is gone
            future.cancel()
    return markers


def _outcome(future: Any) -> dict:
    """The task's result; a task that failed on the cluster (its worker died too often, it raised) is an
    error row (retried by a rerun); a lost scheduler is ClusterProblem."""
    from distributed import CancelledError

    try:
        return dict(future.result())
    except CancelledError:
        raise ClusterProblem("the cluster's scheduler went away; what was graded is written, rerun the "
                             "same command to grade the rest / 스케줄러 연결이 끊겼습니다. 채점된 것은 "
                             "저장되었으니 같은 명령을 다시 실행하면 나머지를 채점합니다") from None
    except Exception as exc:  # KilledWorker, an exception raised on the worker
        return {"code": None, "timed_out": False, "duration": 0.0, "files": {},
                "failure": f"{type(exc).__name__}: {exc}"[:300]}


def write_result(entry: Entry, sub_hash: str, suite_hash: str, result: dict, out: Path, config: Config,
                 secret_source: str) -> dict:
    """The worker's files into ``out/.work/<name>.<nonce>/``, then marked and published as locally."""
    work = out / ".work" / f"{entry.name}.{uuid.uuid4().hex[:8]}"
    work.mkdir(parents=True)
    for rel, data in result["files"].items():
        target = (work / rel).resolve()
        if not target.is_relative_to(work.resolve()):  # a name the worker should never send
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    if "failure" in result:
        (work / "grade.log").write_text(f"the cluster could not grade it: {result['failure']}\n",
                                        encoding="utf-8")
    _restore_secret_source(work / "results.json", secret_source)
    return finish_work(Finished(entry, sub_hash, suite_hash, work, result["code"], result["duration"],
                                bool(result["timed_out"]), result.get("worker")), out, config)


def _restore_secret_source(path: Path, source: str) -> None:
    """The worker was handed a copy of the instructor's secret; results.json says where the instructor's
    came from, as a local batch's does."""
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    replay = results.get("replay") if isinstance(results, dict) else None
    if isinstance(replay, dict) and replay.get("made_from") == "submission":
        replay["secret"] = source
        write_json(path, results)
