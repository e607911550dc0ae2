"""On a real batch: decisions bound to what they judged, and nothing wrong leaves silently.

One class of three copies of the reference, graded with the public pe and tying tests, under a policy
with a close date (the grades are the shared class's, tests/reference_class.py: graded once for the run,
this class's `grade batch` finds them done and renders its policy and times on them):

* alice: 1 day 10 h late (20 % off);
* mallory: on time, flagged by the tamper scan (it imports ``inspect``): points withheld;
* dave: after the close (total 0).

Each test copies the graded folder and runs the real commands on it, as a new instructor would: a
resubmission after an accept, a partial times file, a misspelled extension, a bonus, an excusal, an
export with a review pending.  (tests/test_decisions_state.py runs the same commands as a property
test over a small class of already-graded results.)
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from tests import reference_class
from tests.batch_cli import grade, gradebook, results
from tests.reference_class import FILTER

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("alice", "mallory", "dave")
POLICY = """\
due = 2026-03-10T23:59:00+09:00
close = 2026-03-17T23:59:00+09:00

[late]
per = "day"
deduct_percent = 10
"""
TIMES = """\
id,submitted_at
alice,2026-03-12T09:59:00+09:00
mallory,2026-03-10T20:00:00+09:00
dave,2026-03-18T00:30:00+09:00
"""


@pytest.fixture(scope="module")
def klass(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("decisions")
    subs = reference_class.write_submissions(root / "subs", NAMES)
    (root / "policy.toml").write_text(POLICY, encoding="utf-8")
    (root / "times.csv").write_text(TIMES, encoding="utf-8")
    out = reference_class.seed(tmp_path_factory, root / "out", NAMES)
    proc = grade("batch", str(subs), "--out", str(out), "--policy", str(root / "policy.toml"),
                 "--submitted-at", str(root / "times.csv"), *[f for f in FILTER if f != "-q"], here=True)
    assert "3 already graded, 0 to grade" in proc.stdout, proc.stdout  # the shared class's grades
    return {"root": root, "subs": subs, "out": out, "graded": reference_class.graded(tmp_path_factory)}


def _copy(klass: dict, tmp_path: Path) -> tuple[Path, Path]:
    subs, out = tmp_path / "subs", tmp_path / "out"
    shutil.copytree(klass["subs"], subs)
    shutil.copytree(klass["out"], out)
    return subs, out


def _reconciles(out: Path) -> dict[str, dict]:
    """The gradebook, checked: every number total = auto + late_penalty + adjustment + capped."""
    book = gradebook(out)
    for name, r in book.items():
        if r["total"] != "EX":
            parts = sum(float(r[k]) for k in ("auto", "late_penalty", "adjustment", "capped"))
            assert float(r["total"]) == pytest.approx(parts), (name, r)
    return book


def test_a_resubmission_after_an_accept_is_pending_again_everywhere(klass: dict, tmp_path: Path) -> None:
    subs, out = _copy(klass, tmp_path)
    grade("review", str(out), "mallory", "--accept", "--reason", "inspect is only imported", "-q")
    grade("adjust", str(out), "alice", "1.5", "--reason", "regrade request", "-q")
    accepted = _reconciles(out)
    assert float(accepted["mallory"]["total"]) == float(accepted["mallory"]["max"])
    assert "Pending:" not in (out / "summary.html").read_text(encoding="utf-8")
    # both resubmit (mallory now reads the caller's frames too); the batch regrades what changed
    with open(subs / "mallory" / "embedding.py", "a", encoding="utf-8") as fh:
        fh.write("\n_g = _inspect.currentframe().f_back.f_globals  # reads the grader's frame\n")
    with open(subs / "alice" / "embedding.py", "a", encoding="utf-8") as fh:
        fh.write("\n# a second version\n")
    proc = grade("batch", str(subs), "--out", str(out), *[f for f in FILTER if f != "-q"])
    assert "1 already graded, 2 to grade" in proc.stdout
    assert "Review pending again" in proc.stderr and "Adjustments made on an earlier version" in proc.stderr
    book = _reconciles(out)
    mallory = book["mallory"]
    assert float(mallory["total"]) == float(mallory["auto"]) < float(mallory["max"])  # withheld again
    assert "review pending again" in mallory["steps"] and "review accepted" not in mallory["steps"]
    listing = grade("review", str(out)).stdout
    assert "pending again: accepted on" in listing and "the submission's code changed" in listing
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert "Pending: mallory" in summary and "review pending again" in summary
    page = (out / "mallory" / "feedback.html").read_text(encoding="utf-8")
    assert "withheld until the instructor decides" in page and "review pending again" in page
    assert json.loads((out / "mallory" / "gradescope.json").read_text())["score"] == float(mallory["total"])
    # the adjustment still applies, marked; --confirm binds it to the new version
    assert "instructor adjustment +1.5: regrade request (made on an earlier version" in book["alice"]["steps"]
    grade("adjust", str(out), "alice", "--confirm", "-q")
    assert "earlier version" not in gradebook(out)["alice"]["steps"]
    # a new accept on the new code: every page current, no stale banner or "Decide with"
    grade("review", str(out), "mallory", "--accept", "--reason", "frames read for logging only", "-q")
    mallory = _reconciles(out)["mallory"]
    assert float(mallory["total"]) == float(mallory["max"])
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert "Pending:" not in summary and "review accepted" in summary
    page = (out / "mallory" / "feedback.html").read_text(encoding="utf-8")
    assert "Reviewed by the instructor and accepted" in page and "withheld until the instructor" not in page
    md = (out / "mallory" / "feedback.md").read_text(encoding="utf-8")
    assert "Reviewed by the instructor and accepted" in md
    gs = json.loads((out / "mallory" / "gradescope.json").read_text())
    assert gs["score"] == float(mallory["total"])
    # accept then reject: said to override
    proc = grade("review", str(out), "mallory", "--reject", "--reason", "second look", "-q")
    assert "this reject overrides the accept of" in proc.stderr


def test_a_partial_times_file_merges_and_replacing_takes_a_flag(klass: dict, tmp_path: Path) -> None:
    _, out = _copy(klass, tmp_path)
    before = _reconciles(out)
    assert float(before["dave"]["total"]) == 0 and float(before["alice"]["late_penalty"]) < 0
    one = tmp_path / "one_row.csv"
    one.write_text("id,submitted_at\ndave,2026-03-10T22:00:00+09:00\n")
    proc = grade("term", str(out), "--submitted-at", str(one))
    assert "0 added, 1 changed, 0 unchanged, 2 kept" in proc.stdout
    after = _reconciles(out)
    assert float(after["dave"]["total"]) == float(after["dave"]["auto"])  # on time now
    assert after["alice"]["late_penalty"] == before["alice"]["late_penalty"]  # kept
    assert after["mallory"]["submitted_at"] == before["mallory"]["submitted_at"]
    grade("term", str(out), "--submitted-at", str(one), "--replace-times", "-q")
    replaced = gradebook(out)
    assert replaced["alice"]["submitted_at"] == "unknown" and float(replaced["alice"]["late_penalty"]) == 0


def test_an_unknown_id_is_an_error_and_changes_nothing(klass: dict, tmp_path: Path) -> None:
    subs, out = _copy(klass, tmp_path)
    typo = tmp_path / "policy.toml"
    typo.write_text(POLICY + '\n[extensions]\n"alcie" = 2026-03-12T23:59:00+09:00\n', encoding="utf-8")
    times = tmp_path / "times.csv"
    times.write_text("id,submitted_at\nalice,2026-03-10T20:00:00+09:00\nmalory,2026-03-10T20:00:00+09:00\n")
    files = {f: (out / f).read_bytes() for f in ("policy.toml", "submitted_at.csv", "gradebook.csv")}
    for argv, named in ((["term", str(out), "--policy", str(typo)], "alcie"),
                        (["term", str(out), "--submitted-at", str(times)], "malory"),
                        (["batch", str(subs), "--out", str(out), "--policy", str(typo), *FILTER], "alcie")):
        proc = grade(*argv, ok=False, here=True)  # refused before anything is graded
        assert proc.returncode == 2 and f"not in the class: {named}" in proc.stderr, proc.stderr
        assert "이 반에 없는 id" in proc.stderr
        assert {f: (out / f).read_bytes() for f in files} == files, argv
    grade("term", str(out), "--policy", str(typo), "--allow-unknown-ids", "-q")  # knowingly
    assert "alcie" in (out / "policy.toml").read_text()


def test_clamps_are_steps_and_excuse_set_bonus_are_explicit(klass: dict, tmp_path: Path) -> None:
    _, out = _copy(klass, tmp_path)
    book = _reconciles(out)
    full = float(book["alice"]["max"])
    assert float(book["dave"]["late_penalty"]) == -float(book["dave"]["auto"])  # what the close took
    grade("term", str(out), "--submitted-at", str(_one(tmp_path, "alice", "2026-03-10T20:00:00+09:00")), "-q")
    proc = grade("adjust", str(out), "alice", "5", "--reason", "extra credit")
    assert f"capped at the maximum {full:g}" in proc.stderr and "--above-max" in proc.stderr
    alice = _reconciles(out)["alice"]
    assert (float(alice["total"]), float(alice["capped"])) == (full, -5.0)
    grade("adjust", str(out), "alice", "5", "--above-max", "--reason", "challenge problem", "-q")
    alice = _reconciles(out)["alice"]
    assert float(alice["total"]) == full + 5 and "may go above the maximum" in alice["steps"]
    proc = grade("adjust", str(out), "dave", "10", "--reason", "excused: medical note")
    assert "stays 0 after the close date" in proc.stderr
    dave = _reconciles(out)["dave"]
    assert float(dave["total"]) == 0 and float(dave["capped"]) == -10
    grade("adjust", str(out), "dave", "--set", "20", "--reason", "medical note", "-q")
    assert float(_reconciles(out)["dave"]["total"]) == 20
    grade("adjust", str(out), "dave", "--excuse", "--reason", "medical note", "--note", "letter from Dr. Kim",
          "-q")
    dave = _reconciles(out)["dave"]
    assert dave["total"] == "EX" and dave["note"] == "letter from Dr. Kim"
    res = results(out, "dave")
    shown = json.dumps(res, ensure_ascii=False) + (out / "dave" / "feedback.html").read_text(encoding="utf-8")
    assert "excused by the instructor: medical note" in shown and "Dr. Kim" not in shown  # private stays so
    canvas = tmp_path / "canvas.csv"
    canvas.write_text("Student,ID,SIS User ID,SIS Login ID,Section,Lesson 3\n"
                      + "".join(f"{n},{i},{n},{n},S1,\n" for i, n in enumerate(("alice", "dave"), 1)))
    target = tmp_path / "import.csv"
    grade("export", "canvas", str(out), "--gradebook", str(canvas), "--assignment", "Lesson 3", "--out",
          str(target), "--send-anyway")  # mallory's review is pending
    got = {r[3]: r[5] for r in list(csv.reader(io.StringIO(target.read_text())))[2:]}
    assert got["dave"] == "EX" and float(got["alice"]) == full + 5


def _one(tmp_path: Path, who: str, when: str) -> Path:
    path = tmp_path / f"{who}.csv"
    path.write_text(f"id,submitted_at\n{who},{when}\n")
    return path


def test_export_refuses_a_pending_review_and_a_points_mismatch(klass: dict, tmp_path: Path) -> None:
    _, out = _copy(klass, tmp_path)
    canvas = tmp_path / "canvas.csv"
    canvas.write_text("Student,ID,SIS User ID,SIS Login ID,Section,Lesson 3 (4471)\n"
                      "    Points Possible,,,,,94.5\n"
                      + "".join(f"{n},{i},{n},{n},S1,\n" for i, n in enumerate(NAMES, 1)))
    target = tmp_path / "import.csv"
    argv = ["export", "canvas", str(out), "--gradebook", str(canvas), "--assignment", "Lesson 3", "--out",
            str(target)]
    proc = grade(*argv, ok=False)
    assert proc.returncode == 2 and "mallory: review pending" in proc.stderr and not target.exists()
    moodle = grade("export", "moodle", str(out), "--item", "L3", "--out", str(tmp_path / "m.csv"), ok=False)
    assert moodle.returncode == 2 and "mallory" in moodle.stderr and not (tmp_path / "m.csv").exists()
    proc = grade(*argv, "--send-anyway")  # knowingly: listed, and the steps file carries mallory's pending
    assert "sent anyway (--send-anyway): mallory: review pending" in proc.stderr
    steps = {r["submission"]: r for r in csv.DictReader(io.StringIO((tmp_path / "import.csv.steps.csv")
                                                                    .read_text()))}
    assert "review pending" in steps["mallory"]["steps"] and "검토 대기" in steps["mallory"]["steps_ko"]
    grade("review", str(out), "mallory", "--accept", "--reason", "only imported", "-q")
    target.unlink()
    proc = grade(*argv, ok=False)  # decided; now the points possible differ (94.5 in Canvas)
    assert proc.returncode == 2 and "Pass --scale" in proc.stderr and "--scale로" in proc.stderr
    assert not target.exists()
    grade(*argv, "--scale")
    assert target.exists()


def test_students_pages_hold_only_student_things(klass: dict, tmp_path: Path) -> None:
    out, subs = klass["out"], klass["subs"]
    graded = klass["graded"]  # where the grades were made: its folders are no student's business either
    for name in ("alice", "mallory", "dave"):
        for page in ("feedback.html", "feedback.md", "gradescope.json"):
            text = (out / name / page).read_text(encoding="utf-8")
            assert str(subs) not in text and str(out) not in text and "subs/" not in text, (name, page)
            assert str(graded) not in text, (name, page)
            assert "check it by hand" not in text and "직접 확인하세요" not in text
    md = (out / "mallory" / "feedback.md").read_text(encoding="utf-8")
    assert "`grade -k " in md  # as the student runs it in their own copy
    # a hidden-suite test declared `hidden` is counted on the student's pages, never named
    from grader.report import write_reports

    res = results(out, "mallory")
    failed = next(t for t in res["tests"] if t["status"] != "passed")
    hidden = dict(failed, id="hidden/test_pe.py::test_secret_probe", visibility="hidden")
    res["tests"] = [*res["tests"], hidden]
    write_reports(res, tmp_path, "en", "", for_student=True)  # as the term writes a batch's pages
    for page in ("feedback.html", "feedback.md"):
        assert "test_secret_probe" not in (tmp_path / page).read_text(encoding="utf-8")
    gs = json.loads((tmp_path / "gradescope.json").read_text())  # Gradescope hides it by its visibility
    assert [t["visibility"] for t in gs["tests"] if "test_secret_probe" in t["name"]] == ["hidden"]
    write_reports(res, tmp_path, "en", "")  # the instructor's own `grade` run: every test named
    assert "test_secret_probe" in (tmp_path / "feedback.html").read_text(encoding="utf-8")


def test_gradescope_headline_is_the_final_total_over_the_final_maximum(klass: dict) -> None:
    from grader.report.render import render_summary_md

    alice = results(klass["out"], "alice")
    final = alice["final"]
    assert final["total"] < alice["score"]  # late
    head = render_summary_md(alice, "en", "").splitlines()[0]
    assert head.startswith(f"**Score: {final['total']:.4g} / {final['max']:.4g}**")
    assert json.loads((klass["out"] / "alice" / "gradescope.json").read_text())["score"] == final["total"]
    # with a public maximum smaller than the final one (hidden tests), the maximum is still the final one
    public = dict(alice, tests=[dict(t, visibility="after_published") if i else t
                                for i, t in enumerate(alice["tests"])])
    head = render_summary_md(public, "en", "").splitlines()[0]
    assert f"/ {final['max']:.4g}**" in head and "%" in head
    percent = int(head.split("(")[1].split("%")[0])
    assert percent <= 100


def test_smaller_merge_text_conflicting_policies_and_notes_said_once(klass: dict, tmp_path: Path) -> None:
    _, out = _copy(klass, tmp_path)
    (out / "submitted_at.csv").write_text("id,submitted_at,source\nalice,2026-03-12T09:59:00+09:00,x\n")
    first = grade("term", str(out), "-q")
    assert "No submission time for 2 of them" in first.stderr
    again = grade("adjust", str(out), "alice", "1", "--reason", "r", "-q")
    assert "No submission time" not in again.stderr  # said once, and always on summary.html
    assert "No submission time for 2 of them" in (out / "summary.html").read_text(encoding="utf-8")
    merged = tmp_path / "merged"
    proc = grade("merge", str(out), "--out", str(merged))
    assert proc.stdout.startswith("merged 3 submissions from 1 folders; gradebook:")
    other = tmp_path / "other"
    shutil.copytree(out, other)
    (other / "policy.toml").write_text(POLICY.replace("deduct_percent = 10", "deduct_percent = 20"))
    proc = grade("merge", str(out), str(other), "--out", str(tmp_path / "m2"), ok=False)
    assert proc.returncode == 2 and "late policies differ" in proc.stderr and not (tmp_path / "m2").exists()
    grade("merge", str(out), str(other), "--out", str(tmp_path / "m2"), "--policy",
          str(other / "policy.toml"), "-q")
    assert "deduct_percent = 20" in (tmp_path / "m2" / "policy.toml").read_text()


def test_a_roster_in_any_order_is_kept_and_a_rerun_without_it_changes_nothing(klass: dict,
                                                                                 tmp_path: Path) -> None:
    """On the real batch: a roster `id,name,submission` matches, the count is said, a rerun for a late
    submission without --roster keeps every id and decision, every file agrees with the gradebook."""
    subs, out = _copy(klass, tmp_path)
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,submission\n2024-001,Alice Kim,alice\n2024-007,Mallory Park,mallory\n"
                      "2024-004,Dave Choi,dave\n2024-009,Zoe Han,zoe\n", encoding="utf-8")
    wrong = tmp_path / "wrong.csv"  # the names are people's, not the folders': nothing matches
    wrong.write_text("name,email\nAlice Kim,a@x\nMallory Park,m@x\nDave Choi,d@x\n", encoding="utf-8")
    before = (out / "gradebook.csv").read_bytes()
    refused = grade("batch", str(subs), "--out", str(out), "--roster", str(wrong), *FILTER, ok=False,
                    here=True)  # refused before anything is graded
    assert refused.returncode == 2 and "only 0 of the roster's 3 students matched" in refused.stderr
    assert (out / "gradebook.csv").read_bytes() == before and not (out / "roster.csv").exists()
    run = [f for f in FILTER if f != "-q"]
    proc = grade("batch", str(subs), "--out", str(out), "--roster", str(roster), *run, here=True)  # none
    assert "roster: 3 of 4 students matched a submission (of 3 submissions; submission column " \
           "'submission', id column 'id')" in proc.stdout and "3 already graded, 0 to grade" in proc.stdout
    book = gradebook(out)
    assert {n: r["id"] for n, r in book.items()} == {"alice": "2024-001", "mallory": "2024-007",
                                                    "dave": "2024-004", "zoe": "2024-009"}
    grade("review", str(out), "2024-007", "--accept", "--reason", "inspect is only imported", "-q")
    grade("adjust", str(out), "2024-009", "--excuse", "--reason", "joined after the due date", "-q")
    grade("adjust", str(out), "alice", "1.5", "--reason", "regrade request", "-q")
    decided = _reconciles(out)
    kept = [out / n / f for n in ("alice", "mallory", "dave") for f in ("feedback.md", "summary.txt",
                                                                       "results.json")]
    pages = {p: p.read_bytes() for p in kept}
    # a late submission: the rerun has no --roster, and keeps what was decided
    shutil.copytree(ROOT / "solutions", subs / "erin", ignore=shutil.ignore_patterns("__pycache__"))
    proc = grade("batch", str(subs), "--out", str(out), *run)
    assert "roster: 3 of 4 students matched" in proc.stdout and "(the roster kept in" in proc.stdout
    assert "3 already graded, 1 to grade" in proc.stdout
    after = _reconciles(out)
    assert {n: r for n, r in after.items() if n != "erin"} == decided and after["erin"]["id"] == "erin"
    assert {p: p.read_bytes() for p in kept} == pages  # no page rewritten
    # one total on every page: mallory's headline, task table, summary.txt and Gradescope file are final
    mallory = after["mallory"]
    total, full = float(mallory["total"]), float(mallory["max"])
    assert total == full and "review accepted" in mallory["steps"]
    md = (out / "mallory" / "feedback.md").read_text(encoding="utf-8")
    assert f"— {total:g} / {full:g} (100%)" in md
    assert f"{total:g} / {full:g}  [" in (out / "mallory" / "summary.txt").read_text(encoding="utf-8")
    assert json.loads((out / "mallory" / "gradescope.json").read_text())["score"] == total
    tasks = results(out, "mallory")["final"]["tasks"]
    assert sum(tasks.values()) == total and all(float(mallory[t]) == v for t, v in tasks.items())
    assert (after["zoe"]["total"], after["zoe"]["status"]) == ("EX", "missing")
