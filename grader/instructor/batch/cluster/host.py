"""A warm grader on a cluster worker: one process per worker thread that has imported the grader and torch
and run the lesson's warm-up once (as `grade batch` does before it forks), then forks one child per
submission, which grades it with the options the batch's flags stand for, exactly as a local batch's
forked child does (grader/instructor/batch/jobs.py).

    python -m grader.instructor.batch.cluster.host LESSON_MODULE

It reads one JSON request a line on stdin ({path, out, log, flags, env, timeout}) and answers each with
one JSON line ({code, timed_out, duration}) on the stdout it was started with; whatever the grader prints
goes to stderr. It has no threads, so forking is safe; a child past its time is killed with its whole tree,
and a child's orphans are reaped, as in the local batch. The course secret and the hidden suite's key come
in each request's ``env``, set in that child only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path

from grader.core.seeds import SECRET_ENV, SECRET_FILE_ENV, SEED_ENV
from grader.engine.flags import add_grading_arguments, add_hidden_arguments, options_from_args
from grader.engine.options import GradeOptions
from grader.sandbox import reap


def options_for(flags: list[str], path: Path) -> GradeOptions:
    """The options a local batch's children grade with (batch/options.py's config_from_args), from its
    `grade` flags, the lesson's folders as installed here; ValueError: a hidden archive that cannot be
    opened."""
    parser = argparse.ArgumentParser(prog="grade", add_help=False)
    add_grading_arguments(parser)
    add_hidden_arguments(parser)
    args = parser.parse_args(flags)
    options = options_from_args(args, path)
    options = replace(options, policy=replace(options.policy, hide=(*options.policy.hide,
                                                                    str(path.parent.resolve()))))
    if args.hidden_from:
        from grader.instructor.hidden_pack import options_with_archive

        options = options_with_archive(options, Path(args.hidden_from), args.key_env)
    return options


def fork_child(request: dict) -> int:
    """Fork the child that grades ``request`` (in the environment the request names, without the host's
    secrets); its pid."""
    from grader.instructor.batch.jobs import fork_into_log

    def take_environment() -> None:
        for name in (SECRET_ENV, SECRET_FILE_ENV, SEED_ENV):
            os.environ.pop(name, None)
        os.environ.update(request["env"])

    def grade() -> int:
        path = Path(request["path"])
        try:
            options = options_for(list(request["flags"]), path)
        except ValueError as exc:
            print(f"grade: --hidden-from: {exc}", file=sys.stderr)
            return 2
        from grader.report.run import run_grade

        return run_grade(path, Path(request["out"]), options, quiet=True)

    return fork_into_log(request["log"], grade, take_environment)


def handle(request: dict, known: set[int]) -> dict:
    """Grade one request in a forked child under its time limit; ``known``: this host's own children
    (the zygote its children fork their workers from), never reaped."""
    from grader.instructor.batch.jobs import kill_tree, reap_orphans
    from grader.sandbox.zygote import ForkedProcess

    started = time.monotonic()
    child = ForkedProcess.direct(fork_child(request))
    timed_out = False
    while child.poll() is None:
        if time.monotonic() - started > float(request["timeout"]):
            kill_tree(child)
            timed_out = True
            break
        time.sleep(0.05)
    reap_orphans(known | {child.pid})  # what the child left behind (its worker, re-parented to us) is killed
    # A grade's worker is forked by the zygote, not by the grade: a grade killed past its time leaves its
    # worker (a student's loop, at full CPU) below the zygote. One request at a time here, so whatever is
    # below the zygote now is that grade's.
    for pid in known:
        for victim in reap.descendants(pid):
            with contextlib.suppress(OSError):
                os.kill(victim, signal.SIGKILL)
    duration = round(time.monotonic() - started, 2)
    return {"code": child.returncode, "timed_out": timed_out, "duration": duration}


def main(argv: list[str]) -> int:
    from grader.instructor.batch.jobs import become_subreaper, preload

    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # nothing printed by the grader mixes into the replies
    preload(argv[0])
    become_subreaper()
    known = set(reap.children_of(os.getpid()))  # the zygote preload started: kept for every grade
    replies.write(json.dumps({"ready": True}) + "\n")
    replies.flush()
    for line in sys.stdin:
        if line.strip():
            replies.write(json.dumps(handle(json.loads(line), known)) + "\n")
            replies.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
