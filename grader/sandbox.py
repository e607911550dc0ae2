"""Starting the worker process with the isolation the machine allows.

``process``: its own session and process group, rlimits, a scrubbed
environment, ``python -I``.  Stronger levels (namespaces, an unprivileged
uid) wrap the same command; see ``SandboxPolicy.isolation``.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

GiB = 1024**3
MiB = 1024**2
RUNTIME_FILES = {"worker.py": "gk_worker.py", "protocol.py": "gk_protocol.py", "probes.py": "gk_probes.py"}


@dataclass
class SandboxPolicy:
    isolation: str = "auto"  # auto | namespaces | process
    memory_bytes: int = 4 * GiB
    cpu_seconds: int = 900
    file_size: int = 64 * MiB
    open_files: int = 512
    output_limit: int = 64 * 1024
    threads: int = 1

    def describe(self) -> str:
        return "process" if self.isolation in ("auto", "process") else self.isolation


@dataclass
class Launch:
    process: subprocess.Popen
    isolation: str
    scratch: Path
    cleanup_paths: list[Path] = field(default_factory=list)

    def terminate(self) -> None:
        """Kill the worker and everything in its process group, then clean up."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.kill()
        except OSError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for path in self.cleanup_paths:
            shutil.rmtree(path, ignore_errors=True)


def make_runtime(into: Path) -> Path:
    """Copy the worker's own files (and nothing else of the grader) into ``into``."""
    into.mkdir(parents=True, exist_ok=True)
    here = Path(__file__).parent
    for src, dst in RUNTIME_FILES.items():
        shutil.copyfile(here / src, into / dst)
    return into


def scrubbed_env(scratch: Path, threads: int) -> dict[str, str]:
    """Only what Python and torch need: no tokens, no paths into the grader."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(scratch),
        "TMPDIR": str(scratch),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "PYTHONHASHSEED": "0",
        "OMP_NUM_THREADS": str(threads),
        "MKL_NUM_THREADS": str(threads),
        "GK_THREADS": str(threads),
        "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES", ""),
        "MPLBACKEND": "Agg",
    }
    if "CUDA_VISIBLE_DEVICES" not in os.environ:
        env.pop("CUDA_VISIBLE_DEVICES")
    return env


def _limits(policy: SandboxPolicy) -> list[tuple[int, int]]:
    return [
        (resource.RLIMIT_AS, policy.memory_bytes),
        (resource.RLIMIT_CPU, policy.cpu_seconds),
        (resource.RLIMIT_FSIZE, policy.file_size),
        (resource.RLIMIT_NOFILE, policy.open_files),
        (resource.RLIMIT_CORE, 0),
    ]


def _preexec(policy: SandboxPolicy) -> None:
    for which, value in _limits(policy):
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            pass


def launch_worker(sub_dir: Path, sock: socket.socket, policy: SandboxPolicy, *, notebook: bool = False) -> Launch:
    scratch = Path(tempfile.mkdtemp(prefix="gk-worker-"))
    runtime = make_runtime(scratch / "runtime")
    fd = sock.fileno()
    argv = [sys.executable, "-I", "-X", "utf8", str(runtime / "gk_worker.py"), "--fd", str(fd), "--sub", str(sub_dir)]
    if notebook:
        argv.append("--notebook")
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=[fd],
        env=scrubbed_env(scratch, policy.threads),
        cwd=str(sub_dir),
        start_new_session=True,
        preexec_fn=lambda: _preexec(policy),
    )
    return Launch(process, "process", scratch, [scratch])
