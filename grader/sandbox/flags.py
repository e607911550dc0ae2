"""Command-line flags for the sandbox's limits, shared by `grade` and `grade batch`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from grader.sandbox.launch import MiB, SandboxPolicy, SandboxUnavailable, resolve_isolation

_DEFAULTS = SandboxPolicy()


def add_sandbox_arguments(p: argparse.ArgumentParser) -> None:
    """Limits of the student's process; --isolation and --memory-mb are defined by the caller."""
    g = p.add_argument_group("sandbox limits (per worker process)")
    g.add_argument("--cpu-seconds", type=int, default=_DEFAULTS.cpu_seconds,
                   help=f"CPU time of one worker process (default {_DEFAULTS.cpu_seconds})")
    g.add_argument("--processes", type=int, default=_DEFAULTS.processes,
                   help=f"processes and threads the student's code may run at once (default "
                        f"{_DEFAULTS.processes})")
    g.add_argument("--file-size-mb", type=int, default=_DEFAULTS.file_size // MiB,
                   help=f"largest file it may write, MiB (default {_DEFAULTS.file_size // MiB})")
    g.add_argument("--open-files", type=int, default=_DEFAULTS.open_files,
                   help=f"open file descriptors (default {_DEFAULTS.open_files})")
    g.add_argument("--scratch-mb", type=int, default=_DEFAULTS.scratch_bytes // MiB,
                   help=f"size of its private /tmp, MiB (namespaces mode; default "
                        f"{_DEFAULTS.scratch_bytes // MiB})")
    g.add_argument("--disk-mb", type=int, default=_DEFAULTS.disk_bytes // MiB,
                   help=f"what its files may take on disk, MiB; over it the worker is stopped (uid mode, "
                        f"where no private /tmp can be mounted; default {_DEFAULTS.disk_bytes // MiB})")
    g.add_argument("--output-kb", type=int, default=_DEFAULTS.output_limit // 1024,
                   help=f"stdout+stderr kept for the report, KiB; the rest is drained and dropped "
                        f"(default {_DEFAULTS.output_limit // 1024})")
    g.add_argument("--call-timeout", type=float, default=_DEFAULTS.call_seconds,
                   help=f"wall seconds for one call unless a test sets its own (default "
                        f"{_DEFAULTS.call_seconds:g})")
    g.add_argument("--import-timeout", type=float, default=_DEFAULTS.import_seconds,
                   help=f"wall seconds to import a student file (default {_DEFAULTS.import_seconds:g})")
    g.add_argument("--time-limit", type=float, default=_DEFAULTS.submission_seconds,
                   help=f"wall seconds for all of one submission's code (default "
                        f"{_DEFAULTS.submission_seconds:g})")


def policy_from_args(args: argparse.Namespace) -> SandboxPolicy:
    """The policy the flags describe; exits with status 2 if the `--isolation` asked for cannot be had."""
    def get(name: str, default: Any) -> Any:  # argparse's Namespace: untyped
        return getattr(args, name, default)

    policy = SandboxPolicy(
        isolation=str(get("isolation", "auto")),
        memory_bytes=int(get("memory_mb", _DEFAULTS.memory_bytes // MiB)) * MiB,
        cpu_seconds=int(get("cpu_seconds", _DEFAULTS.cpu_seconds)),
        processes=int(get("processes", _DEFAULTS.processes)),
        file_size=int(get("file_size_mb", _DEFAULTS.file_size // MiB)) * MiB,
        open_files=int(get("open_files", _DEFAULTS.open_files)),
        scratch_bytes=int(get("scratch_mb", _DEFAULTS.scratch_bytes // MiB)) * MiB,
        output_limit=int(get("output_kb", _DEFAULTS.output_limit // 1024)) * 1024,
        call_seconds=float(get("call_timeout", _DEFAULTS.call_seconds)),
        import_seconds=float(get("import_timeout", _DEFAULTS.import_seconds)),
        submission_seconds=float(get("time_limit", _DEFAULTS.submission_seconds)),
        hide=tuple(str(x) for x in [get("out", None)] if x),
        disk_bytes=int(get("disk_mb", _DEFAULTS.disk_bytes // MiB)) * MiB,
    )
    try:
        resolve_isolation(policy)
    except SandboxUnavailable as exc:
        if policy.isolation == "auto":  # as root, neither namespaces nor uid: never process by surprise
            print(f"grade: {exc}.", file=sys.stderr)
        else:
            print(f"grade: --isolation {policy.isolation}: {exc}. Use --isolation auto (the strongest level "
                  f"this machine allows) or process (weaker).", file=sys.stderr)
        raise SystemExit(2) from None
    return policy
