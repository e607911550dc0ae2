"""What --cluster names, and the Dask client it opens.

``--cluster tcp://host:8786`` (or ``tls://…``) is a running scheduler. ``--cluster cluster.toml`` is a small
file::

    scheduler = "tcp://10.0.0.5:8786"      # a running scheduler, or:
    kind = "slurm"                          # "slurm" (dask-jobqueue), "kubernetes" (dask-kubernetes), "local"
    workers = 8                             # scale the cluster to this many workers
    wait = 600                              # seconds to wait for the first worker (a queued job)
    connect = 30                            # seconds to try reaching the scheduler
    [options]                               # keyword arguments of the cluster class (SLURMCluster, …)
    cores = 4

The cluster's package (dask_jobqueue, dask_kubernetes) is imported only when its kind is named.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

INSTALL = ("--cluster needs Dask's distributed, which this kit was installed without: "
           "pip install 'pe-grader[cluster]' (or pip install 'distributed>=2024.1') / "
           "--cluster에는 Dask distributed가 필요합니다: pip install 'pe-grader[cluster]'")
# kind -> (module, class, the package to install)
KINDS: dict[str, tuple[str, str, str]] = {
    "slurm": ("dask_jobqueue", "SLURMCluster", "dask-jobqueue"),
    "pbs": ("dask_jobqueue", "PBSCluster", "dask-jobqueue"),
    "kubernetes": ("dask_kubernetes.operator", "KubeCluster", "dask-kubernetes"),
    "local": ("distributed", "LocalCluster", "distributed"),
}
KEYS = {"scheduler", "kind", "workers", "wait", "connect", "options"}


class ClusterProblem(Exception):
    """The cluster cannot be used, or stopped being usable: one bilingual line for the instructor."""


@dataclass(frozen=True)
class ClusterSpec:
    scheduler: str | None = None  # an address, or None: a cluster object of ``kind`` is started
    kind: str | None = None
    workers: int | None = None
    wait: float = 600.0
    connect: float = 30.0
    options: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        return self.scheduler or f"{self.kind} cluster"


def load_spec(text: str) -> ClusterSpec:
    """``--cluster``'s value: an address (``scheme://…``) or the path of a TOML file. ClusterProblem if
    neither."""
    if "://" in text:
        return ClusterSpec(scheduler=text)
    path = Path(text)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ClusterProblem(f"--cluster {text}: neither a scheduler address (tcp://host:port) nor a "
                             f"readable file ({exc.strerror}) / 스케줄러 주소도, 읽을 수 있는 파일도 "
                             f"아닙니다") from None
    except tomllib.TOMLDecodeError as exc:
        raise ClusterProblem(f"{path}: not valid TOML ({exc}) / 올바른 TOML이 아닙니다") from None
    return spec_from(data, path)


def spec_from(data: dict[str, Any], path: Path) -> ClusterSpec:
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise ClusterProblem(f"{path}: unknown keys {', '.join(unknown)} (known: {', '.join(sorted(KEYS))}) "
                             f"/ 알 수 없는 키: {', '.join(unknown)}")
    scheduler, kind = data.get("scheduler"), data.get("kind")
    if (scheduler is None) == (kind is None):
        raise ClusterProblem(f"{path}: name either scheduler = \"tcp://host:port\" or kind = "
                             f"\"{'|'.join(KINDS)}\" / scheduler와 kind 중 하나만 쓰세요")
    if kind is not None and kind not in KINDS:
        raise ClusterProblem(f"{path}: kind = {kind!r} is not one of {', '.join(KINDS)} / "
                             f"kind는 {', '.join(KINDS)} 중 하나입니다")
    workers, options = data.get("workers"), data.get("options", {})
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ClusterProblem(f"{path}: workers must be a positive whole number / workers는 양의 정수입니다")
    if not isinstance(options, dict):
        raise ClusterProblem(f"{path}: [options] must be a table / [options]는 테이블이어야 합니다")
    try:
        wait, connect = float(data.get("wait", 600)), float(data.get("connect", 30))
    except (TypeError, ValueError):
        raise ClusterProblem(f"{path}: wait and connect are seconds / "
                             f"wait와 connect는 초 단위 숫자입니다") from None
    return ClusterSpec(scheduler=scheduler, kind=kind, workers=workers, wait=wait, connect=connect,
                       options=options)


def require_distributed() -> None:
    """ClusterProblem (how to install it, in one line) when Dask's distributed is not installed."""
    try:
        importlib.import_module("distributed")
    except ImportError:
        raise ClusterProblem(INSTALL) from None


@contextlib.contextmanager
def connect(spec: ClusterSpec) -> Iterator[Any]:
    """A ``distributed.Client`` on the cluster ``spec`` names, with at least one worker; the cluster object
    started for a ``kind`` is closed after."""
    require_distributed()
    from distributed import Client

    # Dask logs a lost connection as a traceback; the batch says it in one line (ClusterProblem).
    quiet = logging.getLogger("distributed.client")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        with _opened(spec, Client) as client:
            yield client
    finally:
        quiet.setLevel(level)


@contextlib.contextmanager
def _opened(spec: ClusterSpec, client_class: Any) -> Iterator[Any]:
    cluster = None
    if spec.kind is not None:
        module, cls, package = KINDS[spec.kind]
        try:
            factory = getattr(importlib.import_module(module), cls)
        except ImportError:
            raise ClusterProblem(f"kind = \"{spec.kind}\" needs {package}: pip install {package} / "
                                 f"{package}가 필요합니다: pip install {package}") from None
        try:
            cluster = factory(**spec.options)
        except Exception as exc:  # the class's own complaint (a bad option, no queue): one line
            raise ClusterProblem(f"cannot start the {spec.kind} cluster ({cls}): {exc} / "
                                 f"{spec.kind} 클러스터를 시작할 수 없습니다") from None
        if spec.workers:
            cluster.scale(spec.workers)
    try:
        try:
            client = client_class(cluster if cluster is not None else spec.scheduler, timeout=spec.connect)
        except (OSError, TimeoutError) as exc:
            raise ClusterProblem(f"cannot reach the scheduler at {spec.describe()}: {exc} / "
                                 f"스케줄러에 연결할 수 없습니다") from None
        try:
            try:
                client.wait_for_workers(1, timeout=spec.wait)
            except (TimeoutError, OSError):
                raise ClusterProblem(f"{spec.describe()} has no worker after {spec.wait:g} s / "
                                     f"{spec.wait:g}초가 지나도 워커가 없습니다") from None
            yield client
        finally:
            with contextlib.suppress(Exception):
                client.close(timeout=10)
    finally:
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close()
