"""`grade batch … --cluster ADDRESS|FILE`: each submission graded by a task on a Dask distributed cluster.

The package by job: ``spec`` (what --cluster names: a scheduler address, or a small TOML file naming a
scheduler or a Slurm / Kubernetes / local cluster), ``fingerprint`` (the kit and lesson a worker has, compared
with the instructor's before any grade), ``task`` (what runs on a worker: one submission, the hidden suite
shipped sealed and removed after), ``host`` (the worker thread's warm grader, which forks one child per
submission as the local batch does), ``run`` (the instructor's side: submit, collect, write the batch
folder as a local batch does).

Dask is an optional extra (``pip install 'pe-grader[cluster]'``): nothing here imports it at import time.
"""

from __future__ import annotations

from grader.instructor.batch.cluster.spec import ClusterProblem, ClusterSpec, load_spec

__all__ = ["ClusterProblem", "ClusterSpec", "load_spec"]
