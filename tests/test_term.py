"""The instructor's term on real batches: late policy, adjustments, review decisions, shards, exports.

One class of six copies of the reference (one of them flagged by the tamper scan: it imports
``inspect``), graded with the public pe and tying tests only, is run as two shards; every test reads or
copies those folders.  The grades are the shared class's (tests/reference_class.py: graded once for the
run); each shard's own `grade batch` finds them done and renders the policy and the times on them.  A
``--force`` run regrades shard 2 for real.  The policy's numbers are checked exactly:

* alice: 1 day 10 h late -> 2 started days -> 20 % of the maximum;
* bob: 11 min late, within the 15-minute grace -> nothing;
* carol: extended to 03-13, 1 day 2 h after it -> 2 started days after the grace -> 20 % (50 % without);
* dave: after the close date -> total 0;
* erin: no time known -> reported, no penalty;
* mallory: flagged, on time; accepting the review restores exactly the withheld points.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import time
from pathlib import Path

import pytest

from grader.instructor import batch
from tests import reference_class
from tests.batch_cli import grade, gradebook, results
from tests.reference_class import FILTER, NAMES

ROOT = Path(__file__).resolve().parents[1]
SHARDS = {1: ["alice", "dave", "bob"], 2: ["carol", "erin", "mallory"]}
POLICY = """\
due = 2026-03-10T23:59:00+09:00
close = 2026-03-17T23:59:00+09:00

[late]
grace_minutes = 15
per = "day"
deduct_percent = 10
max_percent = 50

[extensions]
carol = 2026-03-13T23:59:00+09:00
"""
TIMES = """\
id,submitted_at
alice,2026-03-12T09:59:00+09:00
bob,2026-03-11T00:10:00+09:00
carol,2026-03-15T02:00:00+09:00
dave,2026-03-18T00:30:00+09:00
mallory,2026-03-10T20:00:00+09:00
"""


@pytest.fixture(scope="module")
def klass(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("term")
    subs = reference_class.write_submissions(root / "subs", NAMES)
    (root / "policy.toml").write_text(POLICY, encoding="utf-8")
    (root / "times.csv").write_text(TIMES, encoding="utf-8")
    entries = batch.discover(subs)
    assert {k: [e.name for e in batch.shard_of(entries, k, 2)] for k in (1, 2)} == SHARDS
    shards = {}
    for k in (1, 2):
        shards[k] = reference_class.seed(tmp_path_factory, root / f"shard{k}", SHARDS[k])
        proc = grade("batch", str(subs), "--out", str(shards[k]), "--shard", f"{k}/2", "--policy",
                     str(root / "policy.toml"), "--submitted-at", str(root / "times.csv"),
                     *[f for f in FILTER if f != "-q"], here=True)
        assert "3 already graded, 0 to grade" in proc.stdout, proc.stdout  # the shared class's grades
    return {"root": root, "subs": subs, "shards": shards}


@pytest.fixture(scope="module")
def decided(klass: dict) -> dict:
    """An adjustment and a review decision in shard 2, shard 2 regraded with --force, both shards merged."""
    two = klass["shards"][2]
    before = gradebook(two)
    grade("adjust", str(two), "carol", "1.5", "--reason", "regrade request", "-q")
    grade("review", str(two), "mallory", "--accept", "--reason", "inspect is only imported, never used", "-q")
    markers = {n: json.loads((two / n / "batch.json").read_text()) for n in SHARDS[2]}
    time.sleep(1.1)  # finished_at has a resolution of a second
    grade("batch", str(klass["subs"]), "--out", str(two), "--shard", "2/2", "--force", *FILTER)
    merged = klass["root"] / "merged"
    grade("merge", str(klass["shards"][1]), str(two), "--out", str(merged), "-q")
    return {"two": two, "merged": merged, "before": before, "markers": markers}


def test_late_graced_extended_closed_and_unknown(klass: dict) -> None:
    book = {**gradebook(klass["shards"][1]), **gradebook(klass["shards"][2])}
    full = float(book["alice"]["max"])
    auto = {n: float(book[n]["auto"]) for n in NAMES}
    assert auto["alice"] == auto["bob"] == auto["carol"] == auto["dave"] == full > 0
    alice = book["alice"]
    assert float(alice["late_penalty"]) == pytest.approx(-0.2 * full)
    assert float(alice["total"]) == pytest.approx(0.8 * full)
    assert (alice["submitted_at"], alice["late_by"]) == ("2026-03-12T09:59:00+09:00", "1 day 10 h")
    assert alice["steps"] == f"late by 1 day 10 h: −{round(0.2 * full, 2):g} (10 % a day)"
    bob = book["bob"]
    assert (float(bob["total"]), float(bob["late_penalty"]), bob["late_by"]) == (full, 0.0, "11 min")
    assert "within the 15-minute grace: no penalty" in bob["steps"]
    carol = book["carol"]  # 1 day 2 h after her own due; 4 days 2 h after the class's
    assert float(carol["late_penalty"]) == pytest.approx(-0.2 * full)
    assert float(carol["total"]) == pytest.approx(0.8 * full)
    assert carol["late_by"] == "1 day 2 h" and "extended due 2026-03-13T23:59+09:00" in carol["steps"]
    dave = book["dave"]
    assert float(dave["total"]) == 0.0 and float(dave["auto"]) == full
    assert dave["steps"].startswith("submitted after the close date 2026-03-17T23:59+09:00: total 0")
    erin = book["erin"]  # no time: reported as such, never silently on time
    assert (erin["submitted_at"], erin["late_by"], float(erin["total"])) == ("unknown", "unknown", full)
    assert "submission time unknown" in erin["steps"]
    summary = (klass["shards"][2] / "summary.html").read_text(encoding="utf-8")
    assert "No submission time for 1 of them (erin)" in summary and "제출 시각이 없어" in summary
    assert "due 2026-03-10T23:59+09:00, closes 2026-03-17T23:59+09:00" in summary
    # the one total everywhere: class.json and the student's own results carry the same numbers
    rows = {r["submission"]: r for r in json.loads((klass["shards"][1] / "class.json").read_text())["rows"]}
    assert rows["alice"]["total"] == pytest.approx(0.8 * full) and rows["dave"]["total"] == 0.0
    final = results(klass["shards"][1], "alice")["final"]
    assert final["total"] == pytest.approx(0.8 * full) and final["auto"] == full
    assert final["steps"][0]["ko"] == f"1일 10시간 늦음: −{round(0.2 * full, 2):g}점 (하루 10%)"


def test_review_lists_flagged_with_withheld_points(klass: dict) -> None:
    two = klass["shards"][2]
    withheld = [t for t in results(two, "mallory")["tests"]
                if t["messages"]["en"].startswith("Withheld for review")]
    assert withheld, "the flagged copy should have tests withheld"
    points = sum(t["max_score"] for t in withheld)
    listing = grade("review", str(two)).stdout
    assert f"mallory: {points:g} points withheld in {len(withheld)} test" in listing
    assert "imports `inspect`" in listing and "`inspect`(프레임" in listing
    assert "pending / 결정 대기" in listing or "accepted" in listing


def test_adjustment_and_review_survive_force_and_merge(klass: dict, decided: dict) -> None:
    two, merged = decided["two"], decided["merged"]
    # --force regraded every submission of the shard (new markers), and kept the decisions
    for name, marker in decided["markers"].items():
        assert json.loads((two / name / "batch.json").read_text())["finished_at"] != marker["finished_at"]
    full = float(decided["before"]["carol"]["max"])
    for out in (two, merged):
        book = gradebook(out)
        carol, mallory = book["carol"], book["mallory"]
        assert float(carol["adjustment"]) == 1.5
        assert float(carol["total"]) == pytest.approx(0.8 * full + 1.5)
        assert "instructor adjustment +1.5: regrade request" in carol["steps"]
        # accepted: the withheld points come back from the verdicts already recorded: the full marks
        assert float(mallory["auto"]) < full and float(mallory["total"]) == full
        assert float(mallory["adjustment"]) == pytest.approx(full - float(mallory["auto"]))
        assert "review accepted, withheld points restored" in mallory["steps"]
    assert set(gradebook(merged)) == set(NAMES)
    adjustments = list(csv.DictReader(io.StringIO((merged / "adjustments.csv").read_text())))
    assert [(a["id"], a["task"], a["points"], a["reason"]) for a in adjustments] == [
        ("carol", "", "1.5", "regrade request")]
    assert (merged / "policy.toml").read_text() == POLICY
    # a merge of the merge keeps them once
    grade("merge", str(klass["shards"][1]), str(two), "--out", str(merged), "-q")
    assert len((merged / "adjustments.csv").read_text().splitlines()) == 2


def test_student_feedback_shows_each_step_in_both_languages(decided: dict) -> None:
    merged = decided["merged"]
    html = (merged / "carol" / "feedback.html").read_text(encoding="utf-8")
    assert 'id="final"' in html
    assert "instructor adjustment +1.5: regrade request" in html
    assert "강사 조정 +1.5점: regrade request" in html
    assert "late by 1 day 2 h" in html and "1일 2시간 늦음" in html
    md = (merged / "carol" / "feedback.md").read_text(encoding="utf-8")
    assert "> [!NOTE]" in md and "instructor adjustment \\+1.5: regrade request" in md  # + escaped
    full = results(merged, "carol")["max_score"]  # the page's score is the final total
    assert f"— {round(0.8 * full + 1.5, 2):g} / {full:g}" in md.splitlines()[0]
    erin = (merged / "erin" / "feedback.html").read_text(encoding="utf-8")
    assert 'id="final"' in erin and "submission time unknown" in erin and "제출 시각을 알 수 없어" in erin
    # Gradescope's top-level output says every step too (the late penalty, the adjustment, the review)
    for name, step in (("carol", "instructor adjustment \\+1.5: regrade request"),
                       ("carol", "late by 1 day 2 h"),
                       ("mallory", "review accepted, withheld points restored")):
        output = json.loads((merged / name / "gradescope.json").read_text(encoding="utf-8"))["output"]
        assert step in output, (name, step)


def test_canvas_export_carries_the_final_totals(decided: dict, tmp_path: Path) -> None:
    merged = decided["merged"]
    canvas = tmp_path / "canvas.csv"
    canvas.write_text("Student,ID,SIS User ID,SIS Login ID,Section,Lesson 3 (4471)\n"
                      "    Points Possible,,,,,9\n"
                      + "".join(f"{n.title()},{i},{n},{n},S1,\n" for i, n in enumerate(NAMES, start=100)))
    out = tmp_path / "import.csv"
    # erin's time is unknown under the policy: refused, naming her, nothing written, until sent knowingly
    proc = grade("export", "canvas", str(merged), "--gradebook", str(canvas), "--assignment", "Lesson 3",
                 "--out", str(out), ok=False)
    assert proc.returncode == 2 and "erin: submission time unknown" in proc.stderr and not out.exists()
    proc = grade("export", "canvas", str(merged), "--gradebook", str(canvas), "--assignment", "Lesson 3",
                 "--out", str(out), "--send-anyway")
    assert "sent anyway (--send-anyway): erin: submission time unknown" in proc.stderr
    rows = list(csv.reader(io.StringIO(out.read_text())))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lesson 3 (4471)"]
    got = {r[3]: r[5] for r in rows[2:]}
    book = gradebook(merged)
    assert got == {n: f"{round(float(book[n]['total']), 2):g}" for n in NAMES}
    assert got["dave"] == "0" and float(got["alice"]) < float(book["alice"]["auto"])
    steps = list(csv.DictReader(io.StringIO((tmp_path / "import.csv.steps.csv").read_text())))
    assert {s["submission"] for s in steps} == set(NAMES)  # bob too: his grace is a step of 0
    alice = next(s for s in steps if s["submission"] == "alice")
    assert "late by 1 day 10 h" in alice["steps"] and "1일 10시간 늦음" in alice["steps_ko"]
    # Moodle: the steps go in a feedback column its importer maps to "Feedback for <item>"
    moodle = tmp_path / "moodle.csv"
    grade("export", "moodle", str(merged), "--item", "Lesson 3", "--out", str(moodle), "--send-anyway")
    mrows = list(csv.reader(io.StringIO(moodle.read_text())))
    assert mrows[0] == ["username", "email", "idnumber", "Lesson 3", "Lesson 3 feedback"]
    assert {r[0]: r[3] for r in mrows[1:]} == got


def test_a_changed_policy_rerenders_without_regrading(klass: dict, tmp_path: Path) -> None:
    one = tmp_path / "one"
    shutil.copytree(klass["shards"][1], one)
    markers = {n: (one / n / "batch.json").read_text() for n in SHARDS[1]}
    harsher = tmp_path / "policy.toml"
    harsher.write_text(POLICY.replace("deduct_percent = 10", "deduct_percent = 30"), encoding="utf-8")
    started = time.monotonic()
    proc = grade("batch", str(klass["subs"]), "--out", str(one), "--shard", "1/2", "--policy", str(harsher),
                 *[f for f in FILTER if f != "-q"], here=True)  # it grades none
    assert "3 already graded, 0 to grade" in proc.stdout
    assert time.monotonic() - started < 60
    assert {n: (one / n / "batch.json").read_text() for n in SHARDS[1]} == markers
    alice = gradebook(one)["alice"]  # 2 days at 30 % = 60 %, capped at 50 %
    assert float(alice["total"]) == pytest.approx(0.5 * float(alice["max"]))
    assert "(30 % a day, capped at 50 %)" in alice["steps"]
    # the same through `grade term`, and back: the times stored with the batch are kept
    grade("term", str(one), "--policy", str(klass["root"] / "policy.toml"), "-q")
    assert float(gradebook(one)["alice"]["total"]) == pytest.approx(0.8 * float(alice["max"]))


def test_bad_input_is_one_bilingual_line_exit_2_and_nothing_lost(klass: dict, tmp_path: Path) -> None:
    one = tmp_path / "one"
    shutil.copytree(klass["shards"][1], one)
    before = (one / "gradebook.csv").read_bytes(), (one / "policy.toml").read_bytes()
    naive = tmp_path / "naive.toml"
    naive.write_text(POLICY.replace("2026-03-10T23:59:00+09:00", "2026-03-10T23:59:00"), encoding="utf-8")
    bad_times = tmp_path / "times.csv"
    bad_times.write_text("id,submitted_at\nalice,next tuesday\n", encoding="utf-8")
    typo = tmp_path / "typo.toml"
    typo.write_text(POLICY.replace("deduct_percent", "deduct_pct"), encoding="utf-8")
    cases = [
        (["term", str(one), "--policy", str(naive)], "has no offset"),
        (["term", str(one), "--policy", str(typo)], "unknown key 'deduct_pct'"),
        (["term", str(one), "--submitted-at", str(bad_times)], "not an ISO 8601 time"),
        (["batch", str(klass["subs"]), "--out", str(one), "--shard", "1/2", "--submitted-at", str(bad_times),
          *FILTER], "line 2"),
        (["adjust", str(one), "nobody", "1", "--reason", "x"], "no submission with id or name 'nobody'"),
        (["adjust", str(one), "alice", "1"], "--reason TEXT is required"),
        (["adjust", str(one), "alice", "1", "--reason", "x", "--task", "nope"], "has no task 'nope'"),
        (["review", str(one), "alice", "--accept", "--reason", "x"], "not flagged for review"),
    ]
    for argv, reason in cases:
        proc = grade(*argv, ok=False, here=True)  # each refused before anything is graded
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and reason in lines[0], (argv, proc.stderr)
        assert any("\uac00" <= c <= "\ud7a3" for c in lines[0]), lines[0]  # and in Korean
        assert ((one / "gradebook.csv").read_bytes(), (one / "policy.toml").read_bytes()) == before, argv
    assert not (one / "adjustments.csv").exists()
    # a hand-edited adjustments.csv that is broken stops the render with the reason, keeping the file
    (one / "adjustments.csv").write_text("id,task,points,reason,when\nalice,,lots,x,\n", encoding="utf-8")
    proc = grade("term", str(one), ok=False)
    assert proc.returncode == 2 and "line 2: points 'lots' is not a number" in proc.stderr
    assert (one / "gradebook.csv").read_bytes() == before[0] and (one / "adjustments.csv").exists()


def test_reject_keeps_the_points_withheld(decided: dict, tmp_path: Path) -> None:
    merged = tmp_path / "merged"
    shutil.copytree(decided["merged"], merged)
    grade("review", str(merged), "mallory", "--reject", "--reason", "it reads frames", "-q")
    mallory = gradebook(merged)["mallory"]
    assert float(mallory["total"]) == float(mallory["auto"]) and float(mallory["adjustment"]) == 0
    assert "review rejected" in mallory["steps"] and "it reads frames" in mallory["steps"]
    assert "rejected: it reads frames" in grade("review", str(merged)).stdout


def test_gradescope_export_times(klass: dict, tmp_path: Path) -> None:
    """Times from a Gradescope export's submission_metadata.yml (Ruby-style keys and values), by sid."""
    one = tmp_path / "one"
    shutil.copytree(klass["shards"][1], one)
    (one / "submitted_at.csv").unlink()
    export = tmp_path / "export"
    export.mkdir()
    (export / "submission_metadata.yml").write_text("""\
submission_1001:
  :submitters:
  - :name: Alice Kim
    :sid: alice
    :email: alice@uni.example
  :created_at: 2026-03-12 09:59:00.123456789 +0900
  :score: !ruby/object:BigDecimal 18:0.9e1
  :history:
  - :created_at: 2026-03-09 10:00:00.000000000 +0900
    :score: 3.0
submission_1002:
  :submitters:
  - :name: Bob Lee
    :sid: bob
  :created_at: 2026-03-10 20:00:00.000000000 +0900
""", encoding="utf-8")
    grade("term", str(one), "--gradescope-export", str(export), "-q")
    book = gradebook(one)
    assert book["alice"]["late_by"] == "1 day 10 h"  # the submission's own time, not its history's
    assert book["bob"]["late_by"] == "" and book["bob"]["steps"] == ""
    assert book["dave"]["late_by"] == "unknown"


def test_gradescope_bundle_applies_the_policy(klass: dict, tmp_path: Path) -> None:
    """Inside Gradescope: created_at and the student's own dates from submission_metadata.json."""
    from grader.instructor import gradescope_bundle

    res = results(klass["shards"][1], "alice")
    res.pop("final", None)
    full = res["max_score"]
    meta = {"id": 1, "created_at": "2026-03-12T09:59:00.365935+09:00",
            "assignment": {"due_date": "2026-03-10T23:59:00.000000+09:00", "late_due_date": None,
                           "title": "Lesson 3", "total_points": "9.0"},
            "users": [{"email": "alice@uni.example", "id": 1234, "name": "Alice"}]}
    (tmp_path / "submission_metadata.json").write_text(json.dumps(meta))
    config = {"policy_toml": POLICY}
    final = gradescope_bundle.with_late_policy(res, config, tmp_path)["final"]
    assert final["total"] == pytest.approx(0.8 * full) and "late by 1 day 10 h" in final["steps"][0]["en"]
    meta["users"][0]["assignment"] = {"due_date": "2026-03-12T23:59:00.000000+09:00",
                                      "late_due_date": None, "release_date": None}  # an extension
    (tmp_path / "submission_metadata.json").write_text(json.dumps(meta))
    assert gradescope_bundle.with_late_policy(res, config, tmp_path)["final"]["total"] == full
    (tmp_path / "submission_metadata.json").unlink()
    final = gradescope_bundle.with_late_policy(res, config, tmp_path)["final"]
    assert final["total"] == full and final["steps"][0]["kind"] == "unknown_time"
    assert gradescope_bundle.with_late_policy(res, {}, tmp_path) is res  # no policy bundled: as before


def test_policy_arithmetic_at_the_edges() -> None:
    """Started intervals, the hour rate, the cap, an extension with its own close, the one total."""
    from datetime import datetime, timedelta, timezone

    from grader.engine.classmodel import Step, final_total
    from grader.instructor.term.policy import late_steps, parse_policy
    from grader.instructor.term.policy import tomllib as toml

    policy = parse_policy(toml.loads(POLICY.replace('per = "day"', 'per = "hour"').replace(
        "deduct_percent = 10", "deduct_percent = 5") + '"late1" = { due = "2026-03-11T14:59:00Z", '
        'close = "2026-03-11T16:00:00Z" }\n'))
    due = datetime(2026, 3, 10, 23, 59, tzinfo=timezone(timedelta(hours=9)))

    def penalty(after: timedelta, who: str = "x") -> list[Step]:
        return late_steps(policy, 100.0, due + after, (who,))[0]

    assert penalty(timedelta(minutes=15))[0].kind == "grace"  # the grace is inclusive
    assert penalty(timedelta(minutes=15, seconds=1))[0].points == -5.0  # a started hour after it
    assert penalty(timedelta(hours=1, minutes=15))[0].points == -5.0  # exactly one hour after the grace
    assert penalty(timedelta(hours=2, minutes=30))[0].points == -15.0  # 2 h 15 min -> 3 hours
    capped = penalty(timedelta(hours=20))[0]
    assert capped.points == -50.0 and "capped at 50 %" in capped.en and "최대 50%" in capped.ko
    assert penalty(timedelta(days=7, minutes=1))[0].zero  # after the class's close
    own = policy.deadline_for("LATE1")  # ids match case-insensitively; "Z" is UTC
    assert own.due == datetime(2026, 3, 11, 14, 59, tzinfo=timezone.utc) and own.extended
    assert penalty(timedelta(hours=17), "late1") == []  # before their own due
    assert penalty(timedelta(hours=25, minutes=2), "late1")[0].zero  # past their own close
    assert final_total(9.0, 9.0, [Step("late", -1.8, "", ""), Step("adjustment", 1.5, "", "")]) == 8.7
    assert final_total(9.0, 9.0, [Step("adjustment", 5.0, "", "")]) == 9.0  # never above the maximum
    assert final_total(1.0, 9.0, [Step("late", -4.5, "", "")]) == 0.0  # nor below 0
    assert final_total(9.0, 9.0, [Step("closed", 0.0, "", "", zero=True), Step("adjustment", 3, "", "")]) == 0


def test_a_correction_by_submission_name_replaces_the_time_stored_under_the_id(klass: dict,
                                                                               tmp_path: Path) -> None:
    one = tmp_path / "one"
    shutil.copytree(klass["shards"][1], one)
    roster = tmp_path / "roster.csv"
    roster.write_text("submission,id\nalice,2024-001\nbob,2024-002\ndave,2024-004\n", encoding="utf-8")
    by_id = tmp_path / "by_id.csv"  # the registrar's times, by student id
    by_id.write_text("id,submitted_at\n2024-001,2026-03-12T09:59:00+09:00\n2024-002,2026-03-11T00:10:00+09:00\n"
                     "2024-004,2026-03-18T00:30:00+09:00\n", encoding="utf-8")
    proc = grade("batch", str(klass["subs"]), "--out", str(one), "--shard", "1/2", "--roster", str(roster),
                 "--submitted-at", str(by_id), *[f for f in FILTER if f != "-q"], here=True)
    assert "3 already graded, 0 to grade" in proc.stdout, proc.stdout  # new ids, the same grades
    alice = gradebook(one)["alice"]
    assert alice["id"] == "2024-001"
    assert float(alice["late_penalty"]) == pytest.approx(-0.2 * float(alice["max"]))
    fix = tmp_path / "fix.csv"  # the TA's correction names her by submission name: she was on time
    fix.write_text("id,submitted_at\nalice,2026-03-10T20:00:00+09:00\n", encoding="utf-8")
    proc = grade("term", str(one), "--submitted-at", str(fix))
    assert "0 added, 1 changed, 0 unchanged, 4 kept" in proc.stdout  # carol, mallory (other shard)
    assert "2024-001: 2026-03-12T09:59:00+09:00 -> 2026-03-10T20:00:00+09:00 (replaced)" in proc.stdout
    stored = list(csv.DictReader(io.StringIO((one / "submitted_at.csv").read_text(encoding="utf-8"))))
    # one row per student: the names the first times file used are stored under the roster's ids
    assert [r["id"] for r in stored] == ["2024-001", "2024-002", "2024-004", "carol", "mallory"]
    alice = gradebook(one)["alice"]
    assert float(alice["late_penalty"]) == 0 and alice["submitted_at"] == "2026-03-10T20:00:00+09:00"
    # one student named twice with two times is refused, nothing changed
    both = tmp_path / "both.csv"
    both.write_text("id,submitted_at\nalice,2026-03-10T20:00:00+09:00\n2024-001,2026-03-11T20:00:00+09:00\n",
                    encoding="utf-8")
    proc = grade("term", str(one), "--submitted-at", str(both), ok=False)
    assert proc.returncode == 2 and "are one student (2024-001) with two different times" in proc.stderr
    assert gradebook(one)["alice"]["submitted_at"] == "2026-03-10T20:00:00+09:00"


def test_a_merge_changes_no_decision_without_a_word(klass: dict, tmp_path: Path) -> None:
    one, two = klass["shards"][1], klass["shards"][2]
    run_a, run_b = tmp_path / "two_a", tmp_path / "two_b"  # two runs of shard 2/2
    shutil.copytree(two, run_a)
    shutil.copytree(two, run_b)
    grade("review", str(run_a), "mallory", "--accept", "--reason", "only imported", "-q")
    time.sleep(1.1)  # decisions are stamped to the second
    grade("review", str(run_b), "mallory", "--reject", "--reason", "used to read the tests", "-q")
    merged = tmp_path / "merged"
    proc = grade("merge", str(one), str(run_a), str(run_b), "--out", str(merged), ok=False)
    assert proc.returncode == 2 and "decided 1 review(s) or TA check(s) differently" in proc.stderr
    assert "accept of" in proc.stderr and "reject of" in proc.stderr and not merged.exists()
    proc = grade("merge", str(one), str(run_a), str(run_b), "--out", str(merged), "--prefer", str(run_a))
    assert "mallory: dropped the reject of" in proc.stderr and "(used to read the tests)" in proc.stderr
    book = gradebook(merged)
    assert float(book["mallory"]["total"]) == float(book["mallory"]["max"])  # run_a's accept counts
    # a decision made in the merged folder, then a newer one from a shard on the next merge: said
    time.sleep(1.1)
    grade("review", str(run_b), "mallory", "--reject", "--reason", "second look: it reads the tests", "-q")
    proc = grade("merge", str(one), str(run_b), "--out", str(merged))
    assert "mallory: the reject of" in proc.stderr and "(second look: it reads the tests) overrides the " \
        "accept of" in proc.stderr
    assert float(gradebook(merged)["mallory"]["total"]) < float(book["mallory"]["max"])
