"""A memory and process-count cgroup per worker, where the machine lets us make one.

cgroup v2 (one unified tree) or v1 (``memory`` and ``pids`` hierarchies).  The
memory limit counts what the worker really uses (resident pages, its /tmp),
unlike ``RLIMIT_AS``, which counts reserved address space: ``import torch``
alone reserves about 3.2 GB there.  The group also lists every process the
worker started, however it detached, which makes teardown exact.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")


@dataclass
class Cgroup:
    dirs: list[Path] = field(default_factory=list)
    version: int = 2

    @classmethod
    def create(cls, name: str, memory_bytes: int, processes: int) -> Cgroup | None:
        """A fresh group with the limits, or None where cgroups are not writable (not root, read-only)."""
        try:
            if (ROOT / "cgroup.controllers").is_file():
                return cls._create_v2(name, memory_bytes, processes)
            if (ROOT / "memory").is_dir():
                return cls._create_v1(name, memory_bytes, processes)
        except OSError:
            pass
        return None

    @classmethod
    def _create_v2(cls, name: str, memory_bytes: int, processes: int) -> Cgroup | None:
        own = _own_v2_path()
        # Our own group usually holds processes, so its children cannot get controllers;
        # try beside it, then at the top.
        for parent in (ROOT / own.lstrip("/")).parent, ROOT:
            path = parent / name
            try:
                path.mkdir()
            except OSError:
                continue
            group = cls([path], 2)
            if (path / "memory.max").exists():
                _write(path / "memory.max", memory_bytes)
                _write_quiet(path / "memory.swap.max", 0)
                _write_quiet(path / "pids.max", processes)
                return group
            group.remove()
        return None

    @classmethod
    def _create_v1(cls, name: str, memory_bytes: int, processes: int) -> Cgroup | None:
        memory = ROOT / "memory" / name
        memory.mkdir()
        group = cls([memory], 1)
        try:
            _write(memory / "memory.limit_in_bytes", memory_bytes)
            _write_quiet(memory / "memory.memsw.limit_in_bytes", memory_bytes)
            pids = ROOT / "pids" / name
            if (ROOT / "pids").is_dir():
                pids.mkdir()
                group.dirs.append(pids)
                _write(pids / "pids.max", processes)
        except OSError:
            group.remove()
            return None
        return group

    def join(self, pid: int) -> None:
        """Move ``pid`` in; called in the child before exec, so all its descendants start inside."""
        for path in self.dirs:
            fd = os.open(path / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(fd, str(pid).encode())
            finally:
                os.close(fd)

    def pids(self) -> set[int]:
        found: set[int] = set()
        for path in self.dirs:
            try:
                found |= {int(x) for x in (path / "cgroup.procs").read_text().split()}
            except (OSError, ValueError):
                pass
        return found

    def memory_exceeded(self) -> bool:
        """Did the kernel kill something here for going over the memory limit?"""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            for line in (self.dirs[0] / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    return True
        except (OSError, ValueError, IndexError):
            pass
        return False

    def kill_all(self, timeout: float = 5.0) -> set[int]:
        """SIGKILL every member until the group is empty; returns the pids killed."""
        from grader.sandbox.reap import kill_until_gone

        if self.version == 2 and self.dirs and (self.dirs[0] / "cgroup.kill").exists():
            _write_quiet(self.dirs[0] / "cgroup.kill", 1)
        return kill_until_gone(self.pids, timeout)

    def remove(self) -> None:
        for path in reversed(self.dirs):
            for _ in range(50):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # members still exiting
                    time.sleep(0.02)


def sweep_stale(min_age: float = 60.0) -> int:
    """Remove empty worker groups left by graders that were killed before their teardown."""
    removed = 0
    now = time.time()
    own = (ROOT / _own_v2_path().lstrip("/")).parent
    for parent in {ROOT, ROOT / "memory", ROOT / "pids", own}:
        for path in parent.glob("gk-*"):
            try:
                if now - path.stat().st_mtime < min_age or (path / "cgroup.procs").read_text().strip():
                    continue
                path.rmdir()
                removed += 1
            except OSError:
                pass
    return removed


def _own_v2_path() -> str:
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            if line.startswith("0::"):
                return line[3:] or "/"
    except OSError:
        pass
    return "/"


def _write(path: Path, value: int) -> None:
    path.write_text(str(value))


def _write_quiet(path: Path, value: int) -> None:
    try:
        _write(path, value)
    except OSError:
        pass


# -- what this process's own container allows (Gradescope's, a CI runner's...) ----------------


def container_limits() -> dict[str, float]:
    """This container's memory (MiB) and CPUs, from its cgroup (v2 or v1), else the machine's."""
    groups: dict[str, str] = {}
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        _, controllers, path = line.split(":", 2)
        for c in (controllers.split(",") if controllers else ["unified"]):
            groups[c] = path.lstrip("/")
    cg = Path("/sys/fs/cgroup")

    def first(files: list[Path]) -> str:
        return next((v for v in map(_read, files) if v), "")

    if "unified" in groups and (cg / "cgroup.controllers").exists():  # v2
        mem_raw = first([cg / groups["unified"] / "memory.max", cg / "memory.max"])
        quota, _, period = (first([cg / groups["unified"] / "cpu.max", cg / "cpu.max"])
                            or "max").partition(" ")
    else:  # v1: the memory and cpu hierarchies, our own group first, then the container's root
        mem_raw = first([cg / "memory" / groups.get("memory", "") / "memory.limit_in_bytes",
                         cg / "memory" / "memory.limit_in_bytes"])
        cpu = cg / "cpu" / groups.get("cpu", groups.get("cpuacct", ""))
        quota, period = first([cpu / "cpu.cfs_quota_us", cg / "cpu" / "cpu.cfs_quota_us"]), \
            first([cpu / "cpu.cfs_period_us", cg / "cpu" / "cpu.cfs_period_us"])
    mem = _meminfo_mb()
    if mem_raw.isdigit():
        mem = min(mem, int(mem_raw) / 2**20)
    cpus = float(os.cpu_count() or 1)
    if quota.lstrip("-").isdigit() and int(quota) > 0 and period.isdigit() and int(period) > 0:
        cpus = min(cpus, int(quota) / int(period))
    return {"memory_mb": round(mem), "cpus": round(cpus, 2)}


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _meminfo_mb() -> float:
    for line in _read(Path("/proc/meminfo")).splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) / 1024
    return float("inf")
