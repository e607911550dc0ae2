"""A cgroup to count CPU in: every process put in it, and every process those start however they detach
(a grade's zygote and its forked workers, a kernel, a daemon), is counted, which ``os.times()`` misses
for any process that is not waited for. cgroup v1 ``cpuacct`` or v2 ``cpu.stat``; needs root. The
benches under bench/ that measure a process tree's CPU share it (bench_suite_cpu.py, bench_filtered.py).
"""

from __future__ import annotations

import os
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")


def cannot_measure() -> str | None:
    """Why no group can be made here, or None."""
    if os.geteuid() != 0:
        return "needs root to make cgroups"
    if not (CGROUP / "cpuacct").is_dir() and not (CGROUP / "cgroup.controllers").is_file():
        return "needs cgroup v1 cpuacct or cgroup v2"
    return None


def parent() -> Path:
    """Where the groups go: the v1 cpuacct hierarchy, else (v2) beside this process's own group."""
    if (CGROUP / "cpuacct").is_dir():
        return CGROUP / "cpuacct"
    return CGROUP / Path("/proc/self/cgroup").read_text().strip().split("::", 1)[-1].lstrip("/")


class CpuGroup:
    """One group and its CPU seconds so far (v1 cpuacct.usage in ns, v2 cpu.stat in µs)."""

    def __init__(self, name: str) -> None:
        self.path, self.v2 = parent() / name, not (CGROUP / "cpuacct").is_dir()
        self.path.mkdir(exist_ok=True)

    def join(self, pid: int) -> None:
        (self.path / "cgroup.procs").write_text(str(pid))

    def seconds(self) -> float:
        if self.v2:
            stat = dict(line.split() for line in (self.path / "cpu.stat").read_text().splitlines())
            return int(stat["usage_usec"]) / 1e6
        return int((self.path / "cpuacct.usage").read_text()) / 1e9

    def pids(self) -> list[int]:
        return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]


def remove(pattern: str) -> None:
    """The groups named ``pattern`` (a glob), once empty; a group still holding a process stays."""
    for group in parent().glob(pattern):
        try:
            group.rmdir()
        except OSError:
            pass
