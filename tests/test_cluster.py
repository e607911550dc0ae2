"""`grade batch --cluster`: a class graded on a Dask cluster (grader/instructor/batch/cluster).

One real local cluster for the module (a scheduler and two worker processes, loopback only) and a class of
three (a correct folder, a buggy one, an unreadable zip), graded with the hidden pack (``-k test_pe``):

* the cluster's gradebook equals `grade batch -j 2`'s, though a worker is SIGKILLed mid-task;
* a scheduler that goes away stops the batch with one line, and a rerun grades only what was not written;
* a worker whose kit or lesson differs is refused by name before anything is graded.

The rest (the --cluster spec and its config file, the cluster kinds, the install hint) are unit tests.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types
from dataclasses import replace
from pathlib import Path

import pace
import pytest

from grader.instructor import batch
from grader.instructor.batch.cluster import ClusterProblem, ClusterSpec, load_spec
from grader.instructor.batch.cluster import fingerprint as fp
from grader.instructor.batch.cluster import run as cluster_run
from grader.instructor.batch.cluster import spec as cluster_spec
from grader.instructor.batch.cluster import task as task_mod
from grader.instructor.batch.cluster.task import Task, grade_task, pack_entry
from tests.test_batch import ROOT, read_gradebook, without_durations

FLAGS = ["-k", "test_pe", "--timeout", "120", "-q"]


def _grade(*args: str, ok: bool = True, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "grader.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=pace.seconds(400), env=env)
    if ok:
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


@pytest.fixture(scope="module")
def klass(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sub = tmp_path_factory.mktemp("cluster-class") / "submissions"
    sub.mkdir()
    shutil.copytree(ROOT / "examples" / "reference", sub / "alice")
    shutil.copytree(ROOT / "examples" / "buggy", sub / "dave")
    (sub / "garbage.zip").write_bytes(os.urandom(3000))
    return sub


@pytest.fixture(scope="module")
def cluster():  # type: ignore[no-untyped-def]
    distributed = pytest.importorskip("distributed")
    local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                     scheduler_port=0, dashboard_address=None, worker_dashboard_address=None)
    client = distributed.Client(local)
    yield local, client
    client.close()
    local.close()


def test_cluster_gradebook_equals_local_with_a_worker_killed_mid_task(klass: Path, cluster, tmp_path: Path,
                                                                     ) -> None:
    local, client = cluster
    here, there = tmp_path / "local", tmp_path / "cluster"
    env = {**os.environ, "GK_COURSE_SECRET": "one course's secret"}  # both batches: the same seeds
    _grade("batch", str(klass), "--out", str(here), "-j", "2", *FLAGS, env=env)
    proc = subprocess.Popen([sys.executable, "-m", "grader.cli", "batch", str(klass), "--out", str(there),
                             "--cluster", local.scheduler_address, *FLAGS], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    victim = victim_key = None
    deadline = time.monotonic() + pace.seconds(300)
    while victim is None and proc.poll() is None and time.monotonic() < deadline:
        for worker, keys in client.processing().items():
            graded = [k for k in keys if str(k).startswith(("grade-alice-", "grade-dave-"))]
            if graded:
                victim, victim_key = worker, str(graded[0])
                break
        time.sleep(0.05)
    assert victim is not None, "no submission was seen grading on a worker"
    os.kill(client.run(os.getpid, workers=[victim])[victim], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=pace.seconds(400))
    assert proc.returncode == 0, stdout[-3000:] + stderr[-3000:]
    assert without_durations(read_gradebook(there)) == without_durations(read_gradebook(here))
    rows = read_gradebook(there)
    assert sorted(r["submission"] for r in rows) == ["alice", "dave", "garbage"]  # each counted once
    name = victim_key.split("-")[1]
    marker = json.loads((there / name / "batch.json").read_text())
    assert marker["status"] == "graded" and marker["worker"] != victim  # regraded on another worker
    assert not list(there.glob(".work/*"))  # nothing half-written left
    for name in ("alice", "dave"):  # the hidden pack ran, with the seeds a local batch draws
        ours, theirs = (json.loads((d / name / "results.json").read_text()) for d in (there, here))
        assert ours["replay"] == theirs["replay"] and "hidden" in ours["suites"]
        assert [(t["id"], t["status"], t["score"]) for t in ours["tests"]] == [
            (t["id"], t["status"], t["score"]) for t in theirs["tests"]]


def test_a_scheduler_gone_stops_the_batch_and_a_rerun_resumes(klass: Path, cluster, tmp_path: Path) -> None:
    local, _ = cluster
    sub = tmp_path / "two"
    sub.mkdir()
    (sub / "garbage.zip").write_bytes((klass / "garbage.zip").read_bytes())
    shutil.copytree(klass / "alice", sub / "alice")
    port = _free_port()
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
            "--port", str(port), "--no-dashboard"]
    scheduler = subprocess.Popen(dask, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", f"tcp://127.0.0.1:{port}",
                               "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = tmp_path / "out"
    try:
        proc = subprocess.Popen([sys.executable, "-m", "grader.cli", "batch", str(sub), "--out", str(out),
                                 "--cluster", f"tcp://127.0.0.1:{port}", "--public-only", *FLAGS], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + pace.seconds(300)
        while not list(out.glob("*/batch.json")) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        scheduler.kill()
        stdout, stderr = proc.communicate(timeout=pace.seconds(300))
    finally:
        for p in (scheduler, worker):
            p.kill()
            p.wait()
    written = sorted(p.parent.name for p in out.glob("*/batch.json"))
    assert proc.returncode == 2 and len(written) == 1, stdout + stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "scheduler went away" in lines[0] and "rerun" in lines[0], stderr
    rerun = _grade("batch", str(sub), "--out", str(out), "--cluster", local.scheduler_address,
                   "--public-only", *FLAGS[:-1])
    assert "1 already graded, 1 to grade" in rerun.stdout
    assert sorted(r["submission"] for r in read_gradebook(out)) == ["alice", "garbage"]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_worker_with_another_lesson_is_refused_by_name_before_any_grade(
        klass: Path, cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local, client = cluster
    mine = fp.fingerprint("lesson_embedding_pe")
    monkeypatch.setattr(cluster_run, "fingerprint", lambda lesson: {**mine, "lesson_version": "2"})
    args = batch.build_parser().parse_args([str(klass), "--out", str(tmp_path), "-k", "test_pe"])
    config = batch.config_from_args(args)
    todo, _ = batch.plan(batch.discover(klass), tmp_path, config)
    with pytest.raises(ClusterProblem) as exc:
        cluster_run.grade_on_cluster(ClusterSpec(scheduler=local.scheduler_address), todo, tmp_path, config,
                                     quiet=True)
    workers = set(client.scheduler_info()["workers"])
    assert any(f"worker {w} " in str(exc.value) for w in workers), exc.value
    assert "lesson embedding-pe 1" in str(exc.value) and "instructor's is embedding-pe 2" in str(exc.value)
    assert not (tmp_path / ".work").exists() and not list(tmp_path.glob("*/batch.json"))


# -- units ---------------------------------------------------------------------------------------------


def test_a_task_checks_its_worker_first_and_leaves_nothing(klass: Path) -> None:
    mine = fp.fingerprint("lesson_embedding_pe")
    task = Task("alice", "alice", pack_entry(klass / "alice"), (), 60.0, "lesson_embedding_pe",
                {**mine, "kit_hash": "0" * 16})
    result = grade_task(task)
    assert "grades with another copy: kit" in result["refused"] and "files" not in result


def test_fingerprints_differ_by_kit_or_lesson() -> None:
    mine = fp.fingerprint("lesson_embedding_pe")
    assert fp.difference(mine, dict(mine)) == ""
    assert fp.difference(mine, {**mine, "python": "3.99"}) == ""  # reported, not compared
    assert fp.difference(mine, {**mine, "kit": "9.9"}).startswith("kit 9.9")
    assert "lesson" in fp.difference(mine, {**mine, "lesson_hash": "x"})


def test_hidden_flags_are_the_workers_own() -> None:
    args = batch.build_parser().parse_args(["subs", "--out", "o", "--grade-args",
                                            "--hidden-from a.gkpack --key-env K"])
    config = batch.config_from_args(args)
    flags = cluster_run.task_flags(config)
    assert "--hidden-from" not in flags and "--key-env" not in flags and "--hidden" in flags
    assert flags == tuple(f for f in config.grade_flags() if f not in ("--hidden-from", "a.gkpack",
                                                                       "--key-env", "K"))


def test_spec_from_an_address_or_a_file(tmp_path: Path) -> None:
    assert load_spec("tcp://127.0.0.1:8786") == ClusterSpec(scheduler="tcp://127.0.0.1:8786")
    f = tmp_path / "cluster.toml"
    f.write_text('kind = "slurm"\nworkers = 4\n[options]\ncores = 2\nqueue = "gpu"\n')
    assert load_spec(str(f)) == ClusterSpec(kind="slurm", workers=4, options={"cores": 2, "queue": "gpu"})
    for text, words in [('scheduler = "tcp://x:1"\nkind = "slurm"\n', "either"),
                        ('kind = "mesos"\n', "one of"),
                        ('kind = "local"\nwrkers = 2\n', "unknown keys wrkers"),
                        ("kind = \n", "not valid TOML")]:
        f.write_text(text)
        with pytest.raises(ClusterProblem, match=words):
            load_spec(str(f))
    with pytest.raises(ClusterProblem, match="neither a scheduler address"):
        load_spec(str(tmp_path / "absent.toml"))


def test_a_named_kind_is_imported_only_then_and_gets_its_options(monkeypatch: pytest.MonkeyPatch) -> None:
    distributed = pytest.importorskip("distributed")
    made: dict = {}

    class SLURMCluster:  # dask_jobqueue's, stood in for by an in-process cluster of threads
        def __init__(self, **options: object) -> None:
            made["options"] = options
            self.inner = distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0",
                                                  worker_dashboard_address=None)

        def scale(self, n: int) -> None:
            made["scale"] = n
            self.inner.scale(n)

        def close(self) -> None:
            made["closed"] = True
            self.inner.close()

        def __getattr__(self, name: str) -> object:
            return getattr(self.inner, name)

    monkeypatch.setitem(sys.modules, "dask_jobqueue", types.SimpleNamespace(SLURMCluster=SLURMCluster))
    spec = ClusterSpec(kind="slurm", workers=1, wait=60, options={"queue": "gpu", "cores": 1})
    with cluster_spec.connect(spec) as client:
        assert len(client.scheduler_info()["workers"]) == 1
    assert made == {"options": {"queue": "gpu", "cores": 1}, "scale": 1, "closed": True}
    monkeypatch.setitem(sys.modules, "dask_kubernetes", None)
    monkeypatch.setitem(sys.modules, "dask_kubernetes.operator", None)
    with pytest.raises(ClusterProblem, match="pip install dask-kubernetes"):
        with cluster_spec.connect(replace(spec, kind="kubernetes")):
            pass


def test_without_dask_the_batch_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    (tmp_path / "subs").mkdir()
    code = batch.main([str(tmp_path / "subs"), "--out", str(tmp_path / "out"), "--cluster", "tcp://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "pip install 'pe-grader[cluster]'" in err
    assert not (tmp_path / "out").exists()  # nothing written


@pytest.mark.parametrize("warm", [True, False], ids=["warm-grader", "cold-grade"])
def test_a_task_past_its_time_is_a_timeout_and_its_folder_goes(warm: bool, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    hang = tmp_path / "subs" / "hang"  # loops forever in the graded function
    shutil.copytree(ROOT / "solutions", hang, ignore=shutil.ignore_patterns("__pycache__"))
    with open(hang / "embedding.py", "a") as fh:
        fh.write("\n\ndef sinusoidal_pe(max_len, d_model):\n    while True:\n        pass\n")
    if not warm:  # no warm grader on this worker: a cold `grade` under the same limit
        monkeypatch.setattr(task_mod, "warm_host", lambda lesson: types.SimpleNamespace(grade=lambda r: None))
    roots: list[Path] = []
    real = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda **kw: roots.append(Path(real(**kw))) or roots[-1])
    stale = Path(real(prefix=task_mod.PREFIX))  # a killed worker's task: its owner is gone
    (stale / "owner").write_text("999999999 1")
    (stale / "hidden.gkpack").write_bytes(b"sealed")
    mine = fp.fingerprint("lesson_embedding_pe")
    task = Task("hang", "hang", pack_entry(hang), ("-k", "test_pe"), 3.0, "lesson_embedding_pe", mine)
    result = grade_task(task)
    assert result["timed_out"] and not stale.exists() and roots and not roots[0].exists()
    out = tmp_path / "out"
    args = batch.build_parser().parse_args([str(hang.parent), "--out", str(out), "--public-only"])
    config = batch.config_from_args(args)
    entry = batch.discover(hang.parent)[0]
    marker = cluster_run.write_result(entry, "h", "s", result, tmp_path / "out", config, "src")
    assert marker["status"] == "timeout" and marker["worker"] == result["worker"]
    assert json.loads((tmp_path / "out" / "hang" / "results.json").read_text())["status"] == "timeout"


def test_a_hidden_from_archive_is_resealed_for_the_tasks(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import tarfile

    from grader.instructor import hidden_pack

    archive = tmp_path / "hidden.gkpack"
    monkeypatch.setenv("GK_HIDDEN_KEY", "a-course-passphrase-long-enough")
    assert hidden_pack.main([str(archive)]) == 0
    monkeypatch.setenv("GK_HIDDEN_KEY", "a-course-passphrase-long-enough")
    args = batch.build_parser().parse_args([str(tmp_path), "--out", str(tmp_path / "o"), "--grade-args",
                                            f"--hidden-from {archive}"])
    sealed = cluster_run.sealed_hidden(batch.config_from_args(args))
    assert sealed is not None and "GK_HIDDEN_KEY" not in os.environ  # read once, never passed on
    blob, key = sealed
    names = tarfile.open(fileobj=io.BytesIO(hidden_pack.open_sealed(blob, key)), mode="r:gz").getnames()
    assert "hidden/test_pe.py" in names and "solutions/embedding.py" in names
    public = batch.config_from_args(batch.build_parser().parse_args([str(tmp_path), "--out", "o",
                                                                     "--public-only"]))
    assert cluster_run.sealed_hidden(public) is None


def test_an_unreachable_scheduler_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setenv("GK_COURSE_SECRET_FILE", str(tmp_path / "secret"))  # what the batch sets, undone after
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "garbage.zip").write_bytes(b"not a zip")
    spec = tmp_path / "cluster.toml"
    spec.write_text('scheduler = "tcp://127.0.0.1:1"\nconnect = 1\n')  # nothing listens on port 1
    code = batch.main([str(tmp_path / "subs"), "--out", str(tmp_path / "out"), "--cluster", str(spec), "-q",
                       "--public-only"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "cannot reach the scheduler at tcp://127.0.0.1:1" in err
    assert not list((tmp_path / "out").glob("*/batch.json"))
