"""Replayable grading, through the real grader: the same submission draws the same inputs, a changed one
fresh inputs for the hidden suite (a public run draws from the lesson's seed), and the report's
reproduce command reruns exactly the failing case."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
from pathlib import Path

import pytest

from grader.cli import main as grade_cli
from grader.core import seeds
from grader.report.view import failure_rows, replay_commands
from tests.conftest import ROOT

BUGGY = ROOT / "examples" / "buggy"


def _grade(path: Path, out: Path, *extra: str) -> dict:
    assert grade_cli([str(path), "--hidden", "--out", str(out), "-q", *extra]) in (0, 1)
    return json.loads((out / "results.json").read_text())


def _tests(results: dict) -> list[tuple]:
    return [(t["id"], t["status"], t["score"], t["messages"]["en"], t["messages"]["ko"])
            for t in results["tests"]]


@pytest.fixture(scope="module")
def twice(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict, Path]:
    tmp = tmp_path_factory.mktemp("replay")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(seeds.SECRET_ENV, "course-secret-for-the-replay-test")
        mp.delenv(seeds.SEED_ENV, raising=False)
        return _grade(BUGGY, tmp / "a"), _grade(BUGGY, tmp / "b"), tmp


def test_the_same_submission_graded_twice_is_identical(twice) -> None:
    first, second, _tmp = twice
    assert _tests(first) == _tests(second)
    assert first["score"] == second["score"] and first["replay"] == second["replay"]
    assert first["artifacts"].get("log") == second["artifacts"].get("log")
    assert first["replay"]["secret"] == f"${seeds.SECRET_ENV}"
    assert "course-secret-for-the-replay-test" not in json.dumps(first)


def test_a_changed_submission_draws_fresh_inputs(twice, monkeypatch: pytest.MonkeyPatch) -> None:
    first, _second, tmp = twice
    changed = tmp / "changed"
    shutil.copytree(BUGGY, changed)
    with (changed / "leetcode.py").open("a") as fh:
        fh.write("\n# one more comment\n")
    monkeypatch.setenv(seeds.SECRET_ENV, "course-secret-for-the-replay-test")
    again = _grade(changed, tmp / "c", "-k", "test_count_params_counts_shared_once")
    assert again["replay"]["seed"] != first["replay"]["seed"]
    sizes = {t["id"]: t["messages"]["en"].split(":")[0] for t in again["tests"]}
    before = {t["id"]: t["messages"]["en"].split(":")[0] for t in first["tests"] if t["id"] in sizes}
    assert sizes != before  # e.g. count_params(TinyLM(116, 45, tie=True)) became other sizes


def test_the_reproduce_command_reruns_the_failing_case(twice, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run elsewhere (another course secret): the seed in the command replays the same sizes and message."""
    first, _second, tmp = twice
    rows = [r for r in failure_rows(first, "en", str(BUGGY))
            if r["hidden"] and r["id"].startswith("hidden/test_tying")]
    assert rows, "examples/buggy fails hidden tying tests"
    # the student's page offers the task's public tests; the instructor's replay is the class summary's
    assert rows[0]["reproduce"] == f"grade {BUGGY} -k {rows[0]['task']}"
    command = dict(replay_commands(first, str(BUGGY)))[rows[0]["id"]]
    assignment, grade_word, *argv = shlex.split(command)
    assert assignment == f"GK_GRADING_SEED={first['replay']['seed']}" and grade_word == "grade"
    monkeypatch.setenv(seeds.SECRET_ENV, "another-machine-another-secret")
    monkeypatch.setenv(seeds.SEED_ENV, assignment.split("=", 1)[1])
    rerun = _grade(Path(argv[0]), tmp / "reproduce", *argv[1:])
    original = {t["id"]: t for t in first["tests"]}
    assert rerun["tests"] and rows[0]["id"] in {t["id"] for t in rerun["tests"]}
    for t in rerun["tests"]:
        before = original[t["id"]]
        assert (t["status"], t["messages"]) == (before["status"], before["messages"]), t["id"]


def test_the_default_secret_is_created_once_and_private(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(seeds.SECRET_ENV, raising=False)
    monkeypatch.delenv(seeds.SEED_ENV, raising=False)
    monkeypatch.setenv(seeds.SECRET_FILE_ENV, str(tmp_path / "kit" / "secret"))
    first = seeds.replay_info("abc")
    assert stat.S_IMODE(os.stat(tmp_path / "kit" / "secret").st_mode) == 0o600
    assert seeds.replay_info("abc") == first and seeds.replay_info("abd")["seed"] != first["seed"]
    monkeypatch.delenv(seeds.SECRET_FILE_ENV)
    seeds.use_batch_secret(tmp_path / "batch")
    assert os.environ[seeds.SECRET_FILE_ENV] == str(tmp_path / "batch" / seeds.BATCH_SECRET)
    blocked = tmp_path / "a-file"  # a folder that cannot be made, even by root
    blocked.write_text("")
    monkeypatch.setenv(seeds.SECRET_FILE_ENV, str(blocked / "kit" / "secret"))
    assert seeds.replay_info("abc")["secret"] == "ephemeral"


def test_a_batch_keeps_the_replay_for_the_instructor(tmp_path: Path) -> None:
    """Students' pages of a batch carry no instructor line; the class summary carries the replay."""
    subs = tmp_path / "subs"
    shutil.copytree(BUGGY, subs / "bob", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    assert grade_cli(["batch", str(subs), "--out", str(out), "-k", "test_tying", "-j", "1", "-q",
                      "--lang", "en"]) == 0
    results = json.loads((out / "bob" / "results.json").read_text())
    hidden = [t["id"] for t in results["tests"] if t["status"] != "passed" and t["id"].startswith("hidden/")]
    assert hidden, "examples/buggy fails hidden tying tests"
    for page in ("feedback.html", "feedback.md", "summary.txt", "gradescope.json"):
        text = (out / "bob" / page).read_text(encoding="utf-8")
        assert "GK_GRADING_SEED" not in text and "--hidden" not in text, page
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert "Replaying hidden failures (instructor only)" in summary
    assert f"GK_GRADING_SEED={results['replay']['seed']} grade" in summary and "--hidden -k" in summary


def test_a_public_run_draws_from_the_lessons_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A public run's seed is the lesson's: the same for any content, course secret or machine (the same
    code sees the same inputs everywhere, and an edit leaves other tests' inputs alone); the hidden
    suite's stays the submission's, and a given seed replays either."""
    monkeypatch.delenv(seeds.SEED_ENV, raising=False)
    monkeypatch.setenv(seeds.SECRET_ENV, "one-secret")
    public = seeds.replay_info("abc", public="lesson_embedding_pe")
    assert public["made_from"] == "public:lesson_embedding_pe" and "secret" not in public
    assert public["content_hash"] == "abc"
    assert seeds.replay_info("abd", public="lesson_embedding_pe")["seed"] == public["seed"]
    assert seeds.replay_info("abc", public="lesson_attention")["seed"] != public["seed"]
    hidden = seeds.replay_info("abc")
    assert hidden["made_from"] == "submission" and hidden["seed"] != public["seed"]
    monkeypatch.setenv(seeds.SECRET_ENV, "another-secret")
    assert seeds.replay_info("abc", public="lesson_embedding_pe")["seed"] == public["seed"]
    assert seeds.replay_info("abc")["seed"] != hidden["seed"]
    monkeypatch.setenv(seeds.SEED_ENV, hidden["seed"])
    assert seeds.replay_info("abd", public="lesson_embedding_pe")["seed"] == hidden["seed"]
