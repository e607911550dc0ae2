"""`grade batch`, `grade merge`: a class of mixed submissions, a SIGKILL mid-run, shards.

Runs the real command (`python -m grader.cli batch ...`) on a dozen submissions
built from examples/, tests/corpus/ and solutions/: correct folders, a
notebook, zips, buggy ones, three unreadable files, one that loops forever and
one that kills its own worker. To stay fast it runs the public pe and tying
tests only (``--public-only -k``) at ``-j 2``; the whole module takes about two
minutes on two cores:

* ``main``: one uninterrupted unsharded batch;
* ``shards``: shard 1/2 on ``main``'s grades (its own `grade batch --shard 1/2`
  finds them done and renders its gradebook), shard 2/2 graded for real, killed
  with SIGKILL after its first result, then rerun; merged, they must equal
  ``main``.

Commands that grade nothing (a rerun with everything done, a merge) run
in-process through grader.cli.main (tests/batch_cli.py).
"""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pace
import pytest

from grader.engine.options import GradeOptions
from grader.instructor import batch
from grader.instructor.term.model import load_class
from grader.report import classpages
from lesson_embedding_pe import class_report
from tests import batch_cli

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
# Per submission: the class's slowest real submission grades in a few seconds (under 3 s with a load of 7
# on 2 cores); the one that loops forever is stopped at the timeout, each second of it a core spinning (in
# the batch, then in the SIGKILLed shard and its rerun). 10 s on a quiet machine, longer on a busy one:
# read once, when the first batch starts, so that every batch of the module has the same grading flags.
@functools.cache
def timeout() -> int:
    return round(max(10.0, pace.seconds(4)))


def flags() -> list[str]:
    return ["--public-only", "-k", "test_pe or test_tying", "-j", "2", "--timeout", str(timeout()), "-q"]


UNREADABLE = {"garbage": "not a readable zip", "notes.txt": "expected a folder",
              "broken": "not a readable Jupyter"}
FULL = ("alice", "bob", "erin")


def _zip_folder(src: Path, dest: Path, prefix: str) -> None:
    with zipfile.ZipFile(dest, "w") as zf:
        for f in sorted(src.iterdir()):
            if f.is_file() and f.name != "expect.json":
                zf.write(f, f"{prefix}{f.name}")


def build_class(root: Path) -> Path:
    """A dozen submissions of every kind an instructor receives."""
    sub = root / "submissions"
    sub.mkdir()
    shutil.copytree(ROOT / "examples" / "reference", sub / "alice")             # correct folder
    shutil.copy(ROOT / "examples" / "notebook.ipynb", sub / "bob.ipynb")        # notebook
    _zip_folder(CORPUS / "bug_wrong_base", sub / "carol.zip", "carol/")         # zip, wrapped, buggy pe
    shutil.copytree(ROOT / "examples" / "buggy", sub / "dave")                  # buggy folder
    _zip_folder(ROOT / "solutions", sub / "erin.zip", "exercises/")             # zip in the kit's layout
    shutil.copytree(ROOT / "exercises", sub / "stub")                           # untouched stubs
    shutil.copytree(CORPUS / "syntax_error", sub / "syntax", ignore=shutil.ignore_patterns("expect.json"))
    (sub / "garbage.zip").write_bytes(os.urandom(3000))                         # unreadable
    (sub / "notes.txt").write_text("I could not finish, sorry\n")               # not a submission
    (sub / "broken.ipynb").write_text('{"cells": [ oops')                       # damaged notebook
    hang = sub / "hang"                                                         # loops forever
    shutil.copytree(ROOT / "solutions", hang, ignore=shutil.ignore_patterns("__pycache__"))
    with open(hang / "embedding.py", "a") as fh:
        fh.write("\n\ndef sinusoidal_pe(max_len, d_model):\n    while True:\n        pass\n")
    # floods output, kills its worker
    hostile = sub / "hostile"
    shutil.copytree(ROOT / "solutions", hostile, ignore=shutil.ignore_patterns("__pycache__"))
    text = (hostile / "embedding.py").read_text()
    (hostile / "embedding.py").write_text(text + "\nimport os as _os\nprint('x' * 1_000_000)\n_os._exit(3)\n")
    roster = root / "roster.csv"
    roster.write_text("submission,student_id\nalice,2024-001\ndave,=HYPERLINK(\"http://x\")\nzoe,2024-099\n",
                      encoding="utf-8")
    return sub


def run_batch(*args: str, timeout: float = 300, here: bool = False) -> subprocess.CompletedProcess:
    """`grade ARGS`, which must exit 0: in a fresh process, or ``here`` for a command that grades nothing."""
    return batch_cli.grade(*args, timeout=timeout, here=here)


def read_gradebook(out: Path) -> list[dict]:
    raw = (out / "gradebook.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "gradebook.csv must start with a UTF-8 BOM (Excel)"
    return list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline="")))


def without_durations(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "duration_s"} for r in rows]


@pytest.fixture(scope="module")
def klass(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("class")
    return build_class(root), root / "roster.csv"


@pytest.fixture(scope="module")
def main(klass: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    sub, roster = klass
    out = tmp_path_factory.mktemp("main") / "out"
    run_batch("batch", str(sub), "--out", str(out), "--roster", str(roster), *flags())
    return out


@pytest.fixture(scope="module")
def shards(klass: tuple[Path, Path], main: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Shard 1 on main's grades; shard 2 graded, SIGKILLed after its first result, then rerun."""
    sub, roster = klass
    base = tmp_path_factory.mktemp("shards")
    one, two = base / "one", base / "two"
    # shard 1's submissions as main graded them (the same code and grading flags: its batch grades none)
    names = [e.name for e in batch.shard_of(batch.discover(sub), 1, 2)]
    batch_cli.seed(main, one, names)
    plan = run_batch("batch", str(sub), "--out", str(one), "--roster", str(roster), "--shard", "1/2",
                     *flags()[:-1], here=True)
    assert f"{len(names)} already graded, 0 to grade" in plan.stdout, plan.stdout
    argv = [sys.executable, "-m", "grader.cli", "batch", str(sub), "--out", str(two), "--roster", str(roster),
            "--shard", "2/2", *flags()]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + pace.seconds(120)
    first: list[Path] = []
    while not first and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
        first = list(two.glob("*/batch.json"))
    assert first, "no result appeared before the deadline"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    survivors = _processes_mentioning(str(two))
    # read once its grading children are gone: one that was writing its marker as the batch died may
    # still finish it, and what is finished is kept
    done_before = {p.parent.name: p.read_text() for p in two.glob("*/batch.json")}
    rerun = run_batch(*argv[3:-1])  # same command without -q, to read its plan line
    merged = base / "merged"
    run_batch("merge", str(one), str(two), "--out", str(merged), "-q", here=True)
    return {"one": one, "two": two, "merged": merged, "done_before": done_before, "survivors": survivors,
            "rerun_stdout": rerun.stdout}


def _processes_mentioning(text: str, wait: float = 15.0) -> list[str]:
    """Command lines still running that mention ``text`` (forked children share the batch's), after ``wait``."""  # noqa: E501
    deadline = time.monotonic() + wait
    while True:
        found = []
        for d in os.listdir("/proc"):
            if d.isdigit() and int(d) != os.getpid():
                try:
                    cmd = (Path(f"/proc/{d}/cmdline").read_bytes().replace(b"\0", b" ")
                           .decode(errors="replace"))
                except OSError:
                    continue
                if text in cmd:
                    found.append(f"{d}: {cmd}")
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


# -- the gradebook of one uninterrupted batch ---------------------------------------------------


def test_gradebook_rows_and_scores(main: Path) -> None:
    rows = {r["submission"]: r for r in read_gradebook(main)}
    names = {"alice", "bob", "carol", "dave", "erin", "stub", "syntax", "garbage", "notes.txt", "broken",
             "hang", "hostile", "zoe"}
    assert set(rows) == names
    full = float(rows["alice"]["max"])
    assert full > 0
    for name in FULL:  # a folder, a notebook and a zip of correct code
        assert rows[name]["status"] == "graded"
        assert float(rows[name]["total"]) == full, rows[name]
        assert float(rows[name]["sinusoidal_pe"]) > 0 and float(rows[name]["weight_tying"]) > 0
    assert 0 < float(rows["dave"]["total"]) < full
    carol = rows["carol"]  # base 1000: the formula tests fail, tying passes
    assert float(carol["sinusoidal_pe"]) < float(rows["alice"]["sinusoidal_pe"])
    assert carol["weight_tying"] == rows["alice"]["weight_tying"]
    for name in ("stub", "syntax", "hostile"):
        assert (rows[name]["status"], float(rows[name]["total"])) == ("graded", 0.0), rows[name]
    assert rows["alice"]["isolation"] in ("process", "namespaces")


def test_unreadable_get_zero_and_the_reason(main: Path) -> None:
    rows = {r["submission"]: r for r in read_gradebook(main)}
    full = rows["alice"]["max"]
    for name, reason in UNREADABLE.items():
        row = rows[name]
        assert (row["status"], float(row["total"]), row["max"]) == ("unreadable", 0.0, full), row
        assert reason in row["reason"] and "읽을 수 없습니다" in row["reason"]
        results = json.loads((main / name / "results.json").read_text())
        assert results["score"] == 0 and reason in results["error"]


def test_infinite_loop_times_out_and_leaves_nothing_running(main: Path) -> None:
    row = {r["submission"]: r for r in read_gradebook(main)}["hang"]
    assert row["status"] == "timeout" and float(row["total"]) == 0.0
    limit = timeout()
    assert limit <= float(row["duration_s"]) < limit + pace.seconds(30)
    reason = row["reason"]
    assert f"{limit} s" in reason and f"{limit}초" in reason and "무한 루프" in reason
    assert not _processes_mentioning(str(main), wait=5.0)


def test_roster_ids_missing_students_and_csv_safety(main: Path) -> None:
    rows = {r["submission"]: r for r in read_gradebook(main)}
    assert rows["alice"]["id"] == "2024-001"
    assert rows["bob"]["id"] == "bob"  # not on the roster: keeps its name
    assert rows["zoe"]["status"] == "missing" and rows["zoe"]["id"] == "2024-099"
    # A student-chosen value is text in a spreadsheet, never a formula.
    assert rows["dave"]["id"].startswith("'=HYPERLINK")
    header = (main / "gradebook.csv").read_text(encoding="utf-8-sig").splitlines()[0].split(",")
    assert header[:4] == ["id", "submission", "total", "max"]
    assert header[-5:] == ["status", "isolation", "duration_s", "reason", "review"]
    assert {"sinusoidal_pe", "weight_tying"} <= set(header)


def test_per_student_outputs_and_markers(main: Path) -> None:
    for name in ("alice", "bob", "garbage", "hang"):
        marker = json.loads((main / name / "batch.json").read_text())
        assert marker["name"] == name and len(marker["submission_hash"]) == 64
        assert json.loads((main / name / "results.json").read_text())["submission"]
    assert (main / "alice" / "summary.txt").exists()
    assert not (main / ".work").exists() or not any((main / ".work").iterdir())


def test_summary_html(main: Path) -> None:
    html = (main / "summary.html").read_text(encoding="utf-8")
    assert "data:image/svg+xml;base64," in html  # the score histogram
    assert "Tests, most failed first" in html and "가장 많이 틀린 테스트부터" in html
    # Most failed first: the per-test table is sorted by pass rate.
    rates = classpages.test_rates(load_class(main).rows)
    assert rates and [t["rate"] for t in rates] == sorted(t["rate"] for t in rates)
    assert html.index(rates[0]["id"]) < html.index(rates[-1]["id"])
    assert "Timed out" in html and "hang" in html and "not a readable zip" in html
    assert "Slowest submissions" in html
    assert "=HYPERLINK" in html and "<script" not in html.lower()


def test_rerun_skips_what_is_done(main: Path, klass: tuple[Path, Path]) -> None:
    sub, roster = klass
    before = (main / "gradebook.csv").read_text(encoding="utf-8-sig")
    markers = {p.parent.name: p.read_text() for p in main.glob("*/batch.json")}
    proc = run_batch("batch", str(sub), "--out", str(main), "--roster", str(roster), *flags()[:-1], here=True)
    # nothing regraded: the plan says so and every marker is the one written before (no wall-clock
    # bound here: a loaded machine is slow, not wrong)
    assert "12 already graded, 0 to grade" in proc.stdout
    assert {p.parent.name: p.read_text() for p in main.glob("*/batch.json")} == markers
    assert (main / "gradebook.csv").read_text(encoding="utf-8-sig") == before


def test_plan_sees_changed_submissions_suites_and_force(main: Path, klass: tuple[Path, Path],
                                                        tmp_path: Path) -> None:
    sub, _ = klass
    copy = tmp_path / "sub"
    shutil.copytree(sub, copy)
    config = batch.Config(GradeOptions(hidden=False, keyword="test_pe or test_tying", lang="en"),
                          timeout=timeout())
    entries = batch.discover(copy)
    todo, done = batch.plan(entries, main, config)
    assert not todo and len(done) == 12
    (copy / "dave" / "embedding.py").write_text((copy / "dave" / "embedding.py").read_text() + "\n# fixed\n")
    todo, _ = batch.plan(entries, main, config)
    assert [e.name for e, _ in todo] == ["dave"]
    other = batch.Config(GradeOptions(hidden=False, keyword="test_pe", lang="en"))
    todo, _ = batch.plan(entries, main, other)
    assert len(todo) == 12  # other options, other grades
    todo, _ = batch.plan(entries, main, config, force=True)
    assert len(todo) == 12
    todo, _ = batch.plan(entries, main, config, retry=True)
    assert {e.name for e, _ in todo} == {"dave", "hang", *UNREADABLE}


def test_children_get_typed_options_from_the_batch_flags(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """One parse of the batch's command line, --grade-args read as `grade` flags over it (the last wins)."""
    args = batch.build_parser().parse_args([
        "subs", "--out", str(tmp_path), "--public-only", "-k", "test_pe", "--lang", "ko",
        "--cpu-seconds", "30",
        "--grade-args", "--hidden-visibility visible --memory-mb 2048 --hidden-from sealed.gkpack"])
    config = batch.config_from_args(args)
    options, policy = config.options, config.options.policy
    assert (options.hidden, options.keyword, options.lang, options.hidden_visibility) == (
        False, "test_pe", "ko", "visible")
    # hidden from every worker: the reports' folder and the class's (uid mode seals both)
    assert (policy.cpu_seconds, policy.memory_bytes, policy.hide) == (
        30, 2048 * 1024**2, (str(tmp_path), str(Path("subs").resolve())))
    assert (config.archive, config.key_env) == (Path("sealed.gkpack"), "GK_HIDDEN_KEY")
    # A --spawn child is told the same in flags; the options are in the done-markers' digest.
    assert config.grade_flags() == [
        "--lesson", "embedding-pe", "--lang", "ko", "--isolation", "auto", "--memory-mb", "2048",
        "-k", "test_pe", "--cpu-seconds", "30",
        "--hidden-visibility", "visible", "--memory-mb", "2048", "--hidden-from", "sealed.gkpack"]
    assert config.digest() == batch.config_from_args(args).digest() != batch.config_from_args(
        batch.build_parser().parse_args(["subs", "--out", str(tmp_path), "--public-only"])).digest()
    monkeypatch.delenv("GK_HIDDEN_KEY", raising=False)
    with pytest.raises(ValueError, match="set the environment variable GK_HIDDEN_KEY"):
        config.grade_options()  # the archive is opened for forked children: here it does not exist


# -- shards, SIGKILL, merge ---------------------------------------------------------------------------


def test_shards_are_a_deterministic_balanced_partition() -> None:
    entries = [batch.Entry(f"s{i:03d}", Path("."), f"s{i:03d}") for i in range(23)]
    parts = [batch.shard_of(entries, k, 4) for k in range(1, 5)]
    names = [e.name for p in parts for e in p]
    assert sorted(names) == [e.name for e in entries]
    assert {len(p) for p in parts} <= {5, 6}
    assert [e.name for e in batch.shard_of(list(reversed(entries)), 2, 4)] == [e.name for e in parts[1]]


def test_sigkill_then_rerun_gives_the_uninterrupted_gradebook(main: Path, shards: dict) -> None:
    assert shards["survivors"] == [], "grading children outlived the SIGKILLed batch"
    two = shards["two"]
    names = set(json.loads((two / "batch-manifest.json").read_text())["names"])
    # What finished before the kill was kept, not regraded.
    assert shards["done_before"]
    for name, text in shards["done_before"].items():
        assert (two / name / "batch.json").read_text() == text
    assert f"{len(shards['done_before'])} already graded" in shards["rerun_stdout"]
    assert not (two / ".work").exists() or not any((two / ".work").iterdir())
    expected = [r for r in read_gradebook(main) if r["submission"] in names or r["status"] == "missing"]
    assert without_durations(read_gradebook(two)) == without_durations(expected)


def test_merged_shards_equal_the_unsharded_run(main: Path, shards: dict) -> None:
    one = set(json.loads((shards["one"] / "batch-manifest.json").read_text())["names"])
    two = set(json.loads((shards["two"] / "batch-manifest.json").read_text())["names"])
    assert one and two and not one & two
    assert without_durations(read_gradebook(shards["merged"])) == without_durations(read_gradebook(main))
    html = (shards["merged"] / "summary.html").read_text(encoding="utf-8")
    assert "Merged from" in html


def test_merge_warns_about_a_missing_shard(shards: dict, tmp_path: Path) -> None:
    proc = batch_cli.grade("merge", str(shards["one"]), "--out", str(tmp_path / "m"), "-q", ok=False)
    assert proc.returncode == 0 and "2/2" in proc.stderr and "missing" in proc.stderr


def test_shard_workflow_matches_the_commands(shards: dict, tmp_path: Path) -> None:
    """The documented workflow: one job per shard, a merge job; its summary script runs on our merge."""
    import yaml

    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "batch-shards.yml").read_text())
    jobs = wf["jobs"]
    shard_list = jobs["grade"]["strategy"]["matrix"]["shard"]
    assert shard_list == list(range(1, int(wf["env"]["SHARDS"]) + 1))
    grade_run = "\n".join(s.get("run", "") for s in jobs["grade"]["steps"])
    # the matrix value comes in by env
    assert '--shard "$SHARD/$SHARDS"' in grade_run and "batch" in grade_run
    grade_step = next(s for s in jobs["grade"]["steps"] if "--shard" in s.get("run", ""))
    assert grade_step["env"]["SHARD"] == "${{ matrix.shard }}"
    assert jobs["merge"]["needs"] == "grade"
    steps = jobs["merge"]["steps"]
    assert any(s.get("run", "").startswith("grade merge shards/shard-*") for s in steps)
    summary = next(s for s in steps if s.get("shell") == "python")
    (tmp_path / "class").mkdir()
    shutil.copy(shards["merged"] / "gradebook.csv", tmp_path / "class" / "gradebook.csv")
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    subprocess.run([sys.executable, "-c", summary["run"]], cwd=tmp_path, env=env, check=True,
                   timeout=pace.seconds(30))
    text = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "13 students" in text and "- timeout: 1" in text and "- unreadable: 3" in text


def test_class_report_shows_experiment_accuracies(tmp_path: Path) -> None:
    """Experiment numbers (results["artifacts"]["experiment"], lesson_embedding_pe/experiment.py's schema) across students."""  # noqa: E501
    accs = {"alice": {"none": 0.31, "sin": 1.0, "learned": 0.99},
            "bob": {"none": 0.33, "sin": 0.32, "learned": 0.97}}
    for name, by_mode in accs.items():
        d = tmp_path / name
        d.mkdir()
        rows = [{"mode": m, "seed": s, "steps": 300, "final_train_loss": 0.1,
                 "acc_by_length": {"8": a, "12": 0.15}}
                for m, a in by_mode.items() for s in (0, 1)]
        results = {"schema": 1, "submission": name, "score": 5.0, "max_score": 5.0, "isolation": "process",
                   "tasks": {"reversal_experiment": {"score": 5.0, "max_score": 5.0, "passed": 1,
                                                     "total": 1}},
                   "tests": [{"id": "hidden/test_reversal.py::test_x", "task": "reversal_experiment",
                              "status": "passed", "score": 5.0, "max_score": 5.0, "message": ""}],
                   "artifacts": {"experiment": {"schema": 1, "bound": {"8": 0.3171, "12": 0.266},
                                                "student": {"runs": rows}}}}
        (d / "results.json").write_text(json.dumps(results))
        (d / "batch.json").write_text(json.dumps({"name": name, "student_id": name, "status": "graded",
                                                  "reason": "", "duration": 3.0}))
    report = classpages.write_class_report(tmp_path)
    exp = class_report.experiment_summary([r.results for r in report.rows])  # the lesson's class block
    assert exp is not None and exp["students"] == 2
    sin8 = next(r for r in exp["table"] if (r["mode"], r["length"]) == ("sin", 8))
    assert (sin8["n"], sin8["min"], sin8["max"]) == (2, 0.32, 1.0)
    assert sin8["bound"] == pytest.approx(0.317, abs=0.01)
    html = report.summary.read_text(encoding="utf-8")
    assert "Reversal experiment across students" in html and html.count("data:image/svg+xml") == 2
