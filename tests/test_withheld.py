"""A flagged submission's withheld tests still run their checks; a review decision reads those verdicts.

One batch of four copies of the reference, graded once on the public pe, tying and buffer tests:

* alice: the reference;
* bob: the reference with a tying bug (TinyLM(tie=True) copies the embedding's weights);
* mallory: alice flagged by the tamper scan (it imports ``inspect``): correct, its probe points withheld;
* trudy: bob flagged the same way: its withheld tying check failed, and says so in results.json.

Accepting the review gives mallory alice's marks and trudy exactly bob's (what her verdicts earned),
from the results already written: nothing is regraded.  Rejecting keeps both withheld.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pace
import pytest

from grader.engine.classmodel import row_from
from tests.batch_cli import grade, gradebook, results

ROOT = Path(__file__).resolve().parents[1]
FILTER = ["--public-only", "-k", "test_pe or test_tying or test_sin_table", "-j", "2", "--timeout", "120",
          "-q", "--lang", "en"]
FLAG = "\nimport inspect as _inspect  # flagged by the tamper scan: probe points withheld\n"
TIED = "            self.head.weight = self.emb.weight"
COPIED = "            self.head.weight = nn.Parameter(self.emb.weight.detach().clone())  # a copy: the bug"
TIED_TEST = "public/test_tying.py::test_tied_head_is_the_embedding"


def _copy(subs: Path, name: str, *, flagged: bool, buggy: bool) -> None:
    shutil.copytree(ROOT / "solutions", subs / name, ignore=shutil.ignore_patterns("__pycache__"))
    path = subs / name / "embedding.py"
    text = path.read_text(encoding="utf-8")
    if buggy:
        assert TIED in text
        text = text.replace(TIED, COPIED)
    path.write_text(text + (FLAG if flagged else ""), encoding="utf-8")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("withheld")
    subs = root / "subs"
    for name, flagged, buggy in (("alice", False, False), ("bob", False, True), ("mallory", True, False),
                                 ("trudy", True, True)):
        _copy(subs, name, flagged=flagged, buggy=buggy)
    out = root / "out"
    grade("batch", str(subs), "--out", str(out), *FILTER)
    return out


def _withheld(res: dict) -> list[dict]:
    return [t for t in res["tests"] if t["messages"]["en"].startswith("Withheld for review")]


def test_a_withheld_test_records_the_verdict_its_check_gave(graded: Path) -> None:
    alice, bob, mallory, trudy = (results(graded, n) for n in ("alice", "bob", "mallory", "trudy"))
    assert not any("withheld" in t for r in (alice, bob) for t in r["tests"])
    assert mallory["review"]["flagged"] and trudy["review"]["flagged"]
    for res in (mallory, trudy):
        held = _withheld(res)
        assert TIED_TEST in {t["id"] for t in held}
        for t in held:  # the student reads the withheld message, in both languages, and earns nothing yet
            assert t["status"] == "failed" and t["score"] == 0.0 and "withheld" in t, t
            assert t["messages"]["ko"].startswith("검토 대기로 보류") and "imports `inspect`" in t["message"]
        # the tests that use no grader code in the worker are exactly the unflagged twin's
        twin = {t["id"]: t for t in (alice if res is mallory else bob)["tests"]}
        for t in res["tests"]:
            if t not in held:
                assert (t["status"], t["score"], t["messages"]) == (
                    twin[t["id"]]["status"], twin[t["id"]]["score"], twin[t["id"]]["messages"]), t["id"]
                assert "withheld" not in t
    mine = {t["id"]: t for t in mallory["tests"]}
    alice_tests = {t["id"]: t for t in alice["tests"]}
    for t in _withheld(mallory):  # correct code: each check passed, with the points it would have earned
        assert t["withheld"] == {"verdict": "passed", "score": alice_tests[t["id"]]["score"]}
        assert alice_tests[t["id"]]["status"] == "passed"
    assert mine[TIED_TEST]["withheld"]["score"] == mine[TIED_TEST]["max_score"]
    tied = {t["id"]: t for t in trudy["tests"]}[TIED_TEST]
    bob_tied = {t["id"]: t for t in bob["tests"]}[TIED_TEST]
    # the bug: the check failed, in its own words (bob's message), which only the instructor sees
    assert tied["withheld"] == {"verdict": "failed", "message": bob_tied["messages"]}
    assert "same Parameter object" in tied["withheld"]["message"]["en"]
    assert "Withheld for review" in tied["message"]


def test_the_student_sees_only_the_withheld_message(graded: Path) -> None:
    """Gradescope's results.json and the feedback carry the withheld message, never the held verdict."""
    from grader.report.gradescope import build_gradescope
    from grader.report.render import render_html, render_markdown

    trudy = results(graded, "trudy")
    verdict_en = {t["id"]: t for t in trudy["tests"]}[TIED_TEST]["withheld"]["message"]["en"]
    gs = build_gradescope(trudy, "en", "sub")
    text = json.dumps(gs, ensure_ascii=False)
    assert "withheld\": {" not in text and verdict_en not in text
    tied = next(t for t in gs["tests"] if t["name"].endswith(TIED_TEST))
    assert (tied["status"], tied["score"]) == ("failed", 0.0) and "Withheld for review" in tied["output"]
    for page in (render_html(trudy, "en", "sub"), render_markdown(trudy, "ko", "sub")):
        assert verdict_en not in page


def test_review_lists_what_the_verdicts_would_restore(graded: Path) -> None:
    book = gradebook(graded)
    full, bug = float(book["alice"]["auto"]), float(book["bob"]["auto"])
    assert bug < full
    held_m = sum(t["max_score"] for t in _withheld(results(graded, "mallory")))
    held_t = sum(t["max_score"] for t in _withheld(results(graded, "trudy")))
    restore_t = round(bug - float(book["trudy"]["auto"]), 6)
    assert 0 < restore_t < held_t
    listing = grade("review", str(graded)).stdout
    assert f"the recorded verdicts would restore {held_m:g} of {held_m:g}" in listing
    assert f"trudy: {held_t:g} points withheld" in listing
    assert f"the recorded verdicts would restore {restore_t:g} of {held_t:g}" in listing
    assert f"기록된 판정으로 복원될 점수 {held_t:g}점 중 {restore_t:g}점" in listing
    assert "imports `inspect`" in listing and "pending / 결정 대기" in listing
    summary = (graded / "summary.html").read_text(encoding="utf-8")
    assert f"would restore {restore_t:g} of {held_t:g}" in summary


def _tests_and_scores(out: Path, name: str) -> dict:
    """Everything the grade recorded (the term adds only ``final``)."""
    return {k: v for k, v in results(out, name).items() if k != "final"}


def test_accept_restores_what_the_verdicts_earned_without_regrading(graded: Path, tmp_path: Path) -> None:
    out = tmp_path / "accepted"
    shutil.copytree(graded, out)
    recorded = {n: _tests_and_scores(out, n) for n in ("mallory", "trudy")}
    markers = {n: (out / n / "batch.json").read_bytes() for n in ("mallory", "trudy")}
    for name in ("mallory", "trudy"):
        proc = grade("review", str(out), name, "--accept", "--reason", "inspect is imported, never used")
        assert "accepted;" in proc.stdout and "from the recorded verdicts" in proc.stdout
    book = gradebook(out)
    full, bug = float(book["alice"]["total"]), float(book["bob"]["total"])
    assert float(book["mallory"]["total"]) == full  # correct: its full marks
    assert float(book["trudy"]["total"]) == bug  # buggy: what its verdicts earned, as its unflagged twin
    assert float(book["trudy"]["auto"]) < bug
    steps = book["trudy"]["steps"]
    held = sum(t["max_score"] for t in _withheld(results(out, "trudy")))
    assert f"review accepted, withheld points restored +{bug - float(book['trudy']['auto']):g} of {held:g}" \
        in steps
    # no regrade: what the grade recorded is as it was, the done-markers untouched
    for name in ("mallory", "trudy"):
        assert _tests_and_scores(out, name) == recorded[name]
        assert (out / name / "batch.json").read_bytes() == markers[name]
    final = results(out, "trudy")["final"]
    assert final["total"] == bug and any("검토 승인" in s["ko"] for s in final["steps"])


def test_reject_keeps_both_withheld(graded: Path, tmp_path: Path) -> None:
    out = tmp_path / "rejected"
    shutil.copytree(graded, out)
    for name in ("mallory", "trudy"):
        grade("review", str(out), name, "--reject", "--reason", "it reads frames", "-q")
    book = gradebook(out)
    for name in ("mallory", "trudy"):
        assert float(book[name]["total"]) == float(book[name]["auto"]) < float(book["alice"]["auto"])
        assert "review rejected" in book[name]["steps"]


def test_an_old_results_json_without_verdicts_restores_in_full(graded: Path) -> None:
    """Folders graded before ``withheld`` was recorded: each withheld test counts at its max_score."""
    trudy = results(graded, "trudy")
    old = json.loads(json.dumps(trudy))
    for t in old["tests"]:
        t.pop("withheld", None)
    marker = {"status": "graded", "name": "trudy", "student_id": "trudy"}
    new_row, old_row = row_from("trudy", marker, trudy, {}), row_from("trudy", marker, old, {})
    held = sum(t["max_score"] for t in _withheld(trudy))
    assert new_row.review.held_points == old_row.review.held_points == held
    assert old_row.review.withheld_points == held > new_row.review.withheld_points


BREAKS = """

class _Breaks(TinyLM):
    \"\"\"Once built, looking up its head {what}: the withheld check that reads it does too.\"\"\"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.built = True

    def __getattr__(self, name):
        if name == "head" and self.__dict__.get("built"):
            {how}
        return super().__getattr__(name)


TinyLM = _Breaks
"""


@pytest.mark.parametrize(("what", "how", "verdict"), [
    ("never returns", "while True:\n                pass", "timeout"),
    ("kills the worker", "import os\n            os._exit(3)", "error"),
])
def test_a_hang_or_crash_in_a_withheld_check_is_its_verdict(tmp_path: Path, what: str, how: str,
                                                             verdict: str) -> None:
    sub = tmp_path / "sub"
    _copy(tmp_path, "sub", flagged=True, buggy=False)
    with open(sub / "embedding.py", "a", encoding="utf-8") as fh:
        fh.write(BREAKS.format(what=what, how=how))
    grade(str(sub), "-k", "test_tied_head_is_the_embedding", "--call-timeout", "5",
          "--out", str(tmp_path / "o"), "-q", "--lang", "en", timeout=pace.seconds(120),
          here=True)  # `grade`'s own entry in this process: its worker is a process of its own all the same
    (tied,) = results(tmp_path, "o")["tests"]
    assert tied["id"] == TIED_TEST and tied["status"] == "failed" and tied["score"] == 0.0
    assert tied["message"].startswith("Withheld for review")
    assert tied["withheld"]["verdict"] == verdict and "score" not in tied["withheld"]
    assert tied["withheld"]["message"]["en"] and tied["withheld"]["message"]["ko"]


def test_the_experiment_harness_run_on_another_thread_is_withheld_by_the_test_reading_it(
        tmp_path: Path) -> None:
    """The component check's runs are the grader's harness in the worker, made ahead on prefetch lanes
    (other threads) where the machine allows: each test that reads them is withheld, its verdict kept."""
    _copy(tmp_path, "sub", flagged=True, buggy=False)
    grade(str(tmp_path / "sub"), "--hidden", "-k", "component", "--out", str(tmp_path / "o"), "-q",
          "--lang", "en", timeout=pace.seconds(300), here=True)
    tests = results(tmp_path, "o")["tests"]
    assert len(tests) >= 3 and {t["task"] for t in tests} == {"reversal_experiment"}
    for t in tests:
        assert t["status"] == "failed" and t["message"].startswith("Withheld for review"), t["id"]
        assert t["withheld"] == {"verdict": "passed", "score": t["max_score"]}, t["id"]
