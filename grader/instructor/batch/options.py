"""What a batch grades with: the typed options every child gets, built once from the batch's flags."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from grader.engine.flags import add_grading_arguments, add_hidden_arguments, options_from_args
from grader.engine.lessons import load_lesson, name_of
from grader.engine.options import GradeOptions
from grader.sandbox.flags import add_sandbox_arguments
from grader.sandbox.launch import MiB, SandboxPolicy

# Per concurrent grade: with the zygote its grader and worker add about 0.2 GB to the one shared torch; the
# rest is room for a student's larger model and for machines where each imports its own (process mode).
PER_JOB_BYTES = int(1.5 * 1024**3)


@dataclass(frozen=True)
class Config:
    """The options every child grades with, the time limit of one, and what the batch's command line says
    beyond those options as `grade` flags (changed sandbox limits and --grade-args: a --spawn child's
    command line, and part of the digest the done-markers compare)."""

    options: GradeOptions
    timeout: float = 900.0
    extra_flags: tuple[str, ...] = ()
    archive: Path | None = None  # --hidden-from in --grade-args: opened once, by grade_options()
    key_env: str = "GK_HIDDEN_KEY"

    def grade_flags(self) -> list[str]:
        """These options as `grade` flags (for --spawn children)."""
        policy = self.options.policy
        flags = ["--lesson", name_of(self.options.lesson), "--lang", self.options.lang,
                 "--isolation", policy.isolation, "--memory-mb", str(policy.memory_bytes // MiB)]
        if policy.disk_bytes != SandboxPolicy().disk_bytes:  # only when set: the default digest as before
            flags += ["--disk-mb", str(policy.disk_bytes // MiB)]
        if self.options.hidden:
            flags.append("--hidden")
        if self.options.keyword:
            flags += ["-k", self.options.keyword]
        return flags + list(self.extra_flags)

    def child_argv(self, path: Path, out: Path) -> list[str]:
        return [sys.executable, "-m", "grader.cli", str(path), "--out", str(out), "-q", *self.grade_flags()]

    def grade_options(self) -> GradeOptions:
        """The typed options every forked child grades with, the hidden archive opened (once, in the batch).

        Raises ValueError (the reason) when --grade-args names a hidden archive that cannot be opened."""
        if self.archive is None:
            return self.options
        from grader.instructor.hidden_pack import options_with_archive

        return options_with_archive(self.options, self.archive, self.key_env)

    def digest(self) -> str:
        """What changes the grade (not the time limit: a rerun need not regrade for it): the lesson by
        name and version among the rest (its suites and code are in the markers' suites_hash)."""
        lesson = load_lesson(self.options.lesson)
        key = [name_of(self.options.lesson), lesson.version, self.options.hidden, self.options.keyword,
               self.options.lang, self.options.policy.isolation,
               self.options.policy.memory_bytes // MiB, list(self.extra_flags)]
        return hashlib.sha256(json.dumps(key).encode()).hexdigest()


def config_from_args(args: argparse.Namespace) -> Config:
    """The batch's flags (grader.engine.flags's, as `grade` has them), with --grade-args read as more
    `grade` flags over them: the last one given wins, as on a `grade` command line."""
    extra = argparse.ArgumentParser(prog="grade batch --grade-args", add_help=False)
    add_grading_arguments(extra)
    add_hidden_arguments(extra)
    extra.set_defaults(**vars(args))
    merged = extra.parse_args(shlex.split(args.grade_args))
    options = options_from_args(merged, args.submissions)
    # the class's folder is the grader's: no worker reads another student's files there (uid mode seals it)
    options = replace(options, policy=replace(options.policy, hide=(*options.policy.hide,
                                                                    str(Path(args.submissions).resolve()))))
    return Config(options, timeout=args.timeout,
                  extra_flags=(*sandbox_flags(args), *shlex.split(args.grade_args)),
                  archive=Path(merged.hidden_from) if merged.hidden_from else None, key_env=merged.key_env)


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


def default_jobs() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return cores
    return max(1, min(cores, avail // PER_JOB_BYTES))
