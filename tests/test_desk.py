"""`grade desk` on a real batch (grader/instructor/desk/): the TA's page over the same records as `grade
review`, driven over HTTP as a browser would, then in Debian's Chromium through Playwright.

One class graded once for the module: bob's log says one complexity in words with a ``<script>`` beside it
(the log reader is unsure: a part a TA reads), mallory imports ``inspect`` (flagged by the tamper scan),
zoe is on the roster with nothing submitted; bob's and mallory's code is the same (a pair `grade similarity`
flags).  Each test decides on its own copy of the folder.
"""

from __future__ import annotations

import html
import http.client
import json
import re
import shutil
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pace
import pytest

from grader.cli import main as grade_cli
from grader.instructor.desk.queue import Filters, build_queue
from grader.instructor.desk.server import Desk, make_server
from grader.instructor.term.decide import flagged_pairs
from grader.instructor.term.model import load_class
from grader.instructor.term.records import (
    ADJUSTMENTS,
    PAIR_REVIEWS,
    REVIEWS,
    read_adjustments,
    read_pair_reviews,
    read_reviews,
)
from tests.batch_cli import grade, gradebook, results
from tests.conftest import ROOT, built_once

BATCH = ["--public-only", "-k", "test_pe or leetcode_log", "-j", "1", "--timeout", "120", "-q", "--lang",
         "en"]
SCRIPT = "<script>alert('desk')</script>"
CHECK = "problem1/time"


def _build(folder: Path) -> None:
    subs = folder / "subs"
    for name in ("bob", "mallory"):
        shutil.copytree(ROOT / "solutions", subs / name, ignore=shutil.ignore_patterns("__pycache__"))
    log = subs / "bob" / "LEETCODE_LOG.md"
    log.write_text(log.read_text(encoding="utf-8").replace("O(log n)", f"log n time {SCRIPT}", 1),
                   encoding="utf-8")
    with open(subs / "mallory" / "embedding.py", "a", encoding="utf-8") as fh:
        fh.write("\nimport inspect as _inspect  # flagged by the tamper scan\n")
    (folder / "roster.csv").write_text("submission,student_id\nbob,s-bob\nmallory,s-mal\nzoe,s-zoe\n",
                                       encoding="utf-8")
    grade("batch", str(subs), "--out", str(folder / "out"), "--roster", str(folder / "roster.csv"), *BATCH)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_once(tmp_path_factory, "desk-class", _build)  # read only: each test copies out/


@pytest.fixture
def out(graded: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "out"
    shutil.copytree(graded / "out", copy)
    return copy


class Client:
    """Plain HTTP to a desk, keeping its cookie as a browser does."""

    def __init__(self, port: int) -> None:
        self.port, self.cookie = port, ""

    def request(self, method: str, path: str, form: dict | None = None, headers: dict | None = None
                ) -> tuple[int, dict[str, str], str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=pace.seconds(60))
        head = {"Cookie": self.cookie} if self.cookie else {}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            head["Content-Type"] = "application/x-www-form-urlencoded"
        head.update(headers or {})
        conn.request(method, path, body=body, headers=head)
        r = conn.getresponse()
        text = r.read().decode("utf-8")
        got = {k.lower(): v for k, v in r.getheaders()}
        if "set-cookie" in got:
            self.cookie = got["set-cookie"].split(";")[0]
        conn.close()
        return r.status, got, text

    def decide(self, token: str, **form: str) -> tuple[int, dict]:
        status, _, text = self.request("POST", "/decide", {"token": token, "reason": "", "note": "", **form},
                                       {"Accept": "application/json"})
        return status, json.loads(text)


@pytest.fixture
def desk(out: Path) -> Iterator[tuple[Desk, dict[str, str]]]:
    """A desk for alice and bob over ``out``, served from a thread of this process."""
    tokens = {"alice-token-" + "a" * 20: "alice", "bob-token-" + "b" * 20: "bob"}
    d = Desk(out, tokens)
    server = make_server(d, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield d, {ta: token for token, ta in tokens.items()}
    finally:
        server.shutdown()
        server.server_close()


def _seen(out: Path, kind: str, who: str) -> str:
    """How many decisions the queue shows on the item (what a page's form carries)."""
    model = load_class(out)
    [item] = [i for i in build_queue(model, read_reviews(out / REVIEWS), read_adjustments(out / ADJUSTMENTS))
              if i.kind == kind and who in (i.row.id, i.row.name)]
    return str(item.seen)


def test_the_queue_holds_what_a_person_decides(out: Path) -> None:
    model = load_class(out)
    items = build_queue(model, [], [], flagged_pairs(out), [])
    assert sorted((i.kind, i.row.id) for i in items) == [("check", "s-bob"), ("flag", "s-mal"),
                                                          ("missing", "s-zoe"), ("similarity", "s-bob")]
    [pair] = [i for i in items if i.kind == "similarity"]
    assert pair.other is not None and pair.other.id == "s-mal" and pair.key == "similarity/s-bob/s-mal"
    assert all(i.state == "pending" and i.seen == 0 for i in items)
    assert [i.kind for i in items if Filters(kind="check", task="leetcode_log").keep(i)] == ["check"]
    assert [i.kind for i in items if Filters(student="MALL").keep(i)] == ["flag", "similarity"]
    assert not [i for i in items if Filters(state="decided").keep(i)]
    # a roster student with nothing submitted: a score set or an excusal, by `grade adjust` as by the desk
    assert grade_cli(["adjust", str(out), "s-zoe", "1", "--reason", "x", "-q"]) == 2
    assert grade_cli(["adjust", str(out), "s-zoe", "--set", "0", "--reason", "nothing handed in", "--ta",
                      "carol", "-q"]) == 0
    model = load_class(out)
    [zoe] = [i for i in build_queue(model, [], read_adjustments(out / ADJUSTMENTS)) if i.kind == "missing"]
    assert (zoe.state, zoe.ta, zoe.seen) == ("decided", "carol", 1)


def test_grade_desk_serves_the_token_holders_and_records_who_decided(out: Path) -> None:
    """The real command: the printed URLs, a refusal without the token, a decision with the TA's name in
    the records `grade review` reads, the student's pages rewritten and no one else's, a stale one refused."""
    proc = subprocess.Popen([sys.executable, "-m", "grader.cli", "desk", str(out), "--ta", "alice", "--ta",
                             "bob"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]
        urls = dict(re.findall(r"^\s+(\w+): (http://127\.0\.0\.1:\d+/\?token=\S+)$", "".join(lines), re.M))
        assert set(urls) == {"alice", "bob"}, lines
        port = int(urllib.parse.urlsplit(urls["alice"]).port or 0)
        tokens = {ta: urllib.parse.parse_qs(urllib.parse.urlsplit(u).query)["token"][0]
                  for ta, u in urls.items()}
        assert tokens["alice"] != tokens["bob"]

        stranger = Client(port)
        for path in ("/", "/student?id=s-bob", "/static/desk.js", "/state", "/?token=guess"):
            assert stranger.request("GET", path)[0] == 403, path
        status, _, _ = stranger.request("POST", "/decide", {"token": "guess", "kind": "check", "id": "s-bob",
                                                             "check": CHECK, "verb": "take", "seen": "0"})
        assert status == 403 and not (out / REVIEWS).exists()

        alice, bob = Client(port), Client(port)
        status, headers, _ = alice.request("GET", f"/?token={tokens['alice']}")
        assert status == 303 and headers["location"] == "/" and "HttpOnly" in headers["set-cookie"]
        status, headers, page = alice.request("GET", "/")
        assert status == 200 and "script-src 'self'" in headers["content-security-policy"]
        assert "pending <b>4</b>" in page and "TA: <b>alice</b>" in page
        # as `grade export` says: mallory's review and bob's log part a TA has not decided
        assert "<b>2</b> blocker(s)" in page and "s-mal (mallory): review pending" in page
        assert "s-bob (bob): a TA has not decided the log part" in page
        status, _, page = alice.request("GET", "/student?id=s-bob")
        assert status == 200 and "log n time" in page and "embedding.py" in page  # the log and the code
        assert SCRIPT not in page and "&lt;script&gt;alert(" in page  # the student's text is text
        previews = re.findall(r"<li><b>Take</b>: (.*?)<br>", page)
        bob.request("GET", f"/?token={tokens['bob']}")

        # a decision needs the token in the form, and this origin (a cross-site form has neither)
        foreign = {"Origin": "http://evil.example", "Accept": "application/json"}
        status, _, _ = alice.request("POST", "/decide", {"token": tokens["alice"], "kind": "check",
                                                          "id": "s-bob", "check": CHECK, "verb": "take",
                                                          "seen": "0"}, foreign)
        assert status == 403 and not (out / REVIEWS).exists()

        pages = {p: p.stat().st_mtime_ns for p in out.glob("*/feedback.html")}
        status, answer = alice.decide(tokens["alice"], kind="check", id="s-bob", check=CHECK, verb="take",
                                      note="words, not O()", seen="0")
        assert status == 200 and answer["ok"], answer
        [row] = read_reviews(out / REVIEWS)
        assert (row.id, row.check, row.decision, row.ta, row.note) == ("s-bob", CHECK, "take", "alice",
                                                                      "words, not O()")
        assert row.hash == results(out, "bob")["ta_checks"][0]["hash"]  # bound to the part it judged
        # rendered as after `grade review`: that student's pages and the gradebook, no one else's page
        final = results(out, "bob")["final"]
        assert final["checks"][CHECK]["decision"] == "take" and row.reason in final["steps"][0]["en"]
        assert [html.unescape(p) for p in previews] == [final["steps"][0]["en"]]  # as the page foretold
        # problem 1's time complexity: its half of the test of time and space (a take moves its part only)
        assert float(gradebook(out)["bob"]["adjustment"]) == -0.5
        changed = {p.parent.name for p, t in pages.items() if p.stat().st_mtime_ns != t}
        assert changed == {"bob"}
        listing = subprocess.run([sys.executable, "-m", "grader.cli", "review", str(out)], cwd=ROOT,
                                 capture_output=True, text=True, timeout=pace.seconds(120)).stdout
        assert "taken (by alice)" in listing

        # bob's page still shows the check undecided (seen=0): his confirm is refused with alice's decision
        status, answer = bob.decide(tokens["bob"], kind="check", id="s-bob", check=CHECK, verb="confirm",
                                    seen="0")
        assert status == 409 and "decided by alice" in answer["error"] and "take" in answer["error"]
        assert len(read_reviews(out / REVIEWS)) == 1
        # read again (seen=1), he may override it, and the desk and the CLI agree on who decided last
        status, answer = bob.decide(tokens["bob"], kind="check", id="s-bob", check=CHECK, verb="confirm",
                                    seen=_seen(out, "check", "s-bob"))
        assert status == 200, answer
        page = bob.request("GET", "/?state=decided")[2]
        assert "confirm by bob" in page and "decided <b>1</b>" in page
        # the CLI's decision shows in the desk: it is the same record
        assert grade("review", str(out), "s-mal", "--reject", "--reason", "reads the grader's frames", "--ta",
                     "carol").returncode == 0
        page = alice.request("GET", "/?ta=carol")[2]
        assert "reject by carol" in page and "1 of 4 item(s)" in page and "ready / 준비됨" in page
        # a similar pair: an outcome in the instructor's record, the same one `grade review` lists
        status, answer = alice.decide(tokens["alice"], kind="similarity", id="s-mal", check="s-bob",
                                      verb="refer", seen="0")
        assert status == 200, answer
        [outcome] = read_pair_reviews(out / PAIR_REVIEWS)
        [judged] = flagged_pairs(out)
        assert (outcome.decision, outcome.ta, outcome.similarity) == ("refer", "alice", judged["similarity"])
        assert "refer (by alice)" in grade("review", str(out)).stdout
        assert alice.request("GET", "/similarity.html")[0] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=pace.seconds(30))


def test_two_tas_at_once_lose_no_decision(desk: tuple[Desk, dict[str, str]], out: Path) -> None:
    """Both send a decision on the same item having read it undecided: one lands, the other is refused;
    on different items both land (the records' lock)."""
    d, tokens = desk
    answers: list[int] = []

    def send(ta: str, kind: str, who: str, verb: str, **extra: str) -> None:
        answers.append(Client(d.port).decide(tokens[ta], kind=kind, id=who, verb=verb, seen="0", **extra)[0])

    same = [threading.Thread(target=send, args=(ta, "check", "s-bob", verb), kwargs={"check": CHECK})
            for ta, verb in (("alice", "take"), ("bob", "confirm"))]
    other = [threading.Thread(target=send, args=("alice", "flag", "s-mal", "accept")),
             threading.Thread(target=send, args=("bob", "missing", "s-zoe", "excuse"))]
    for t in same + other:
        t.start()
    for t in same + other:
        t.join(timeout=pace.seconds(120))
    assert sorted(answers) == [200, 200, 200, 409]
    reviews = read_reviews(out / REVIEWS)
    assert len([r for r in reviews if r.check == CHECK]) == 1
    assert [r.ta for r in reviews if not r.check] == ["alice"]
    [excused] = read_adjustments(out / ADJUSTMENTS)
    assert (excused.id, excused.kind, excused.ta) == ("s-zoe", "excused", "bob")
    assert gradebook(out)["zoe"]["total"] == "EX"


def test_a_malformed_request_changes_nothing(desk: tuple[Desk, dict[str, str]], out: Path) -> None:
    d, tokens = desk
    c = Client(d.port)
    for form in ({"kind": "flag", "id": "s-bob", "verb": "accept", "seen": "0"},  # bob is not flagged
                 {"kind": "check", "id": "s-bob", "check": "problem9/time", "verb": "take", "seen": "0"},
                 {"kind": "student", "id": "s-bob", "verb": "points", "value": "lots", "seen": "0",
                  "reason": "x"},
                 {"kind": "flag", "id": "nobody", "verb": "accept", "seen": "0"}):
        status, answer = c.decide(tokens["alice"], **form)
        assert status == 400 and not answer["ok"], form
    assert not (out / REVIEWS).exists() and not (out / ADJUSTMENTS).exists()


def _playwright():
    sync = pytest.importorskip("playwright.sync_api", reason="pip install playwright for the browser test")
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("no /usr/bin/chromium: apt-get install -y chromium to run the browser test")
    return sync


PHONE = 390


def test_two_tas_in_chromium_decide_with_keys_and_see_each_other(desk: tuple[Desk, dict[str, str]],
                                                                 out: Path, tmp_path: Path) -> None:
    """Alice takes bob's log part with two keys; Bob, whose page still shows it undecided, is told alice
    decided it; his page then updates without a reload. The queue fits a phone."""
    sync = _playwright()
    d, tokens = desk
    base = f"http://127.0.0.1:{d.port}"
    with sync.sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        try:
            errors: list[str] = []
            alice = browser.new_context(viewport={"width": PHONE, "height": 844}).new_page()
            bob = browser.new_context().new_page()
            for page in (alice, bob):
                page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
                page.on("dialog", lambda dlg: errors.append(f"dialog {dlg.message}"))
            alice.goto(f"{base}/?token={tokens['alice']}&kind=check")
            bob.goto(f"{base}/student?id=s-bob&token={tokens['bob']}")
            assert alice.locator("article.item").count() == 1
            width = alice.evaluate("document.documentElement.scrollWidth")
            alice.screenshot(path=str(tmp_path / "desk-phone.png"), full_page=True)
            assert width <= PHONE

            alice.keyboard.press("j")  # the first item, focused
            alice.keyboard.press("2")  # its second choice: take
            alice.locator("article.item.decided").wait_for(timeout=pace.seconds(30_000))
            assert "take by alice" in alice.locator("article.item").inner_text()
            assert "was decided" not in alice.content()

            bob.locator("article.item button[value=confirm]").click()
            bob.locator(".message.bad").wait_for(timeout=pace.seconds(30_000))
            assert "decided by alice" in bob.locator(".message").inner_text()
            # the page shows alice's take
            bob.locator("article.item.decided").wait_for(timeout=pace.seconds(30_000))
            assert [r.ta for r in read_reviews(out / REVIEWS)] == ["alice"]
            # a decision made elsewhere (here over plain HTTP) reaches bob's open page without a reload
            status, _ = Client(d.port).decide(tokens["alice"], kind="similarity", id="s-bob", check="s-mal",
                                              verb="clear", seen="0")
            assert status == 200
            bob.get_by_text("clear by alice").wait_for(timeout=pace.seconds(30_000))
            assert not [e for e in errors if "409 (Conflict)" not in e], errors  # bob's refusal, said
            assert bob.evaluate("document.querySelectorAll('script:not([src])').length") == 0
        finally:
            browser.close()


def test_the_same_unsure_text_is_decided_at_once(desk: tuple[Desk, dict[str, str]], out: Path) -> None:
    """carl handed in bob's log (his folder as a batch writes it): the two checks read the same text, are
    grouped, and one click decides both, each bound to its own part and each student's pages rewritten."""
    shutil.copytree(out / "bob", out / "carl")
    marker = json.loads((out / "carl" / "batch.json").read_text(encoding="utf-8"))
    marker.update(name="carl", student_id="carl")
    (out / "carl" / "batch.json").write_text(json.dumps(marker), encoding="utf-8")
    d, tokens = desk
    c = Client(d.port)
    c.request("GET", f"/?token={tokens['alice']}")
    page = c.request("GET", "/student?id=s-bob")[2]
    assert 'name="also" value="0:carl" checked' in page and "1 other student(s) who wrote the same" in page
    status, answer = c.decide(tokens["alice"], kind="check", id="s-bob", check=CHECK, verb="take", seen="0",
                              also="0:carl")
    assert status == 200, answer
    assert sorted((r.id, r.decision, r.ta) for r in read_reviews(out / REVIEWS)) == [
        ("carl", "take", "alice"), ("s-bob", "take", "alice")]
    for name in ("bob", "carl"):
        assert results(out, name)["final"]["checks"][CHECK]["decision"] == "take"
