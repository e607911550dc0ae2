
"""Only what changed runs again (grader/engine/reuse.py): what a test's reads stand for, which tests a
re-grade may reuse, and a real warm re-grade that reuses every test of an unchanged submission and the
embedding lesson's other tests after an edit to leetcode.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pace

from grader.engine import reuse
from tests.conftest import CORPUS


def _staging(tmp_path: Path, files: dict[str, str]) -> Path:
    staging = tmp_path / "staging"
    staging.mkdir(exist_ok=True)
    for name, text in files.items():
        (staging / name).write_text(text)
    return staging


def _store(tmp_path: Path, secret: str = "the daemon's secret") -> reuse.Store:
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700, exist_ok=True)
    return reuse.Store(str(folder), "store.reuse", secret)


def test_a_module_that_may_read_beyond_its_imports_is_never_reused(tmp_path):
    staging = _staging(tmp_path, {
        "plain.py": "import torch\n\ndef f(m):\n    m.eval()\n    return getattr(m, 'pe', None)\n",
        "opens.py": "def f(p):\n    return open(p).read()\n",
        "imports_os.py": "import os\n",
        "by_name.py": "def f(m, name):\n    return getattr(m, name)\n",
        "dynamic.py": "import importlib\n",
    })
    rec = reuse.Recorder(staging)
    assert not rec.reaches("plain")  # a model's .eval() and a spelled-out getattr read nothing more
    assert all(rec.reaches(m) for m in ("opens", "imports_os", "by_name", "dynamic"))
    rec.begin("t", False, {})
    rec.module("opens")
    rec.end("t", {})
    store = _store(tmp_path)
    report = {"tests": [{"nodeid": "t", "outcome": "passed", "metadata": {}}]}
    reuse.Reuse(store, "k", rec).save(report, {}, set())
    assert reuse.Reuse(store, "k", reuse.Recorder(staging)).choose(["t"]) == set()


def _record(rec: reuse.Recorder, reads: set[str], wrote: tuple = (), outcome: str = "passed") -> dict:
    return {"entry": {"outcome": outcome}, "outcome": outcome, "status": None,
            "reads": rec.hashes(reads), "wrote": list(wrote)}


def test_changed_reads_and_what_shares_state_with_them_run_again(tmp_path):
    staging = _staging(tmp_path, {"a.py": "x = 1\n", "b.py": "y = 1\n", "c.py": "z = 1\n", "data.txt": "1"})
    old = reuse.Recorder(staging)
    tests = {"t_a": _record(old, {"a"}), "t_ab": _record(old, {"a", "b"}), "t_b": _record(old, {"b"}),
             "t_c": _record(old, {"c"}), "t_c_cache": _record(old, set(), wrote=("cache",)),
             "t_c_cache2": _record(old, {"c"}, wrote=("cache",)), "t_whole": _record(old, {reuse.WHOLE}),
             "t_timeout": _record(old, set(), outcome="failed")}
    tests["t_timeout"]["status"] = "timeout"
    store = _store(tmp_path)
    store.write({"runs": [{"key": "k", "tests": tests, "artifacts": {}, "files": old.files, "effects": {}}]})
    order = list(tests)

    same = reuse.Reuse(store, "k", reuse.Recorder(staging))
    assert same.choose(order) == set(order) - {"t_timeout"}  # a verdict of the clock runs again
    assert reuse.Reuse(store, "another key", reuse.Recorder(staging)).choose(order) == set()
    assert same.choose([*order, "t_new"]) == set()  # a test never seen: nothing is taken

    (staging / "b.py").write_text("y = 2\n")
    edited = reuse.Reuse(store, "k", reuse.Recorder(staging))
    # b changed: t_b and t_ab run, and t_a with them (it shares module a with t_ab); c's tests, tied by an
    # artifact, stay; the test that read every staged file runs.
    assert edited.choose(order) == {"t_c", "t_c_cache", "t_c_cache2"}
    (staging / "data.txt").write_text("2")
    assert reuse.Reuse(store, "k", reuse.Recorder(staging)).choose(order) == set()  # any module may read data


def test_tests_run_again_with_those_that_wrote_what_they_read(tmp_path):
    """Artifacts are grouped by key: a reader of a key runs again with its writer, a test that read the
    whole dict with every test that touched any key, the users of a module-wide fixture together."""
    staging = _staging(tmp_path, {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    rec = reuse.Recorder(staging)
    reuse.ACTIVE = rec
    try:
        art = reuse.Artifacts()
        for n, module, act, fixtures in [
            ("w_a", "a", lambda: art.__setitem__("k", 1), ()),
            ("r_b", "b", lambda: art.get("k"), ()),  # reads what w_a wrote
            ("other_b", "b", lambda: art.setdefault("j", 2), ()),
            ("all_c", None, lambda: list(art), ()),  # reads every key
            ("fx_a", "a", lambda: None, ("review@t.py",)),
            ("fx_none", None, lambda: None, ("review@t.py",)),
            ("alone", None, lambda: None, ()),
        ]:
            rec.begin(n, False, art, fixtures)
            if module:
                rec.module(module)
            act()
            rec.end(n, art)
    finally:
        reuse.ACTIVE = None
    assert rec.took["r_b"] == {"k"} and rec.wrote["w_a"] == {"k"} and rec.took["all_c"] == {reuse.ALL_KEYS}
    store = _store(tmp_path)
    order = list(rec.reads)
    report = {"tests": [{"nodeid": n, "outcome": "passed", "metadata": {}} for n in order]}
    reuse.Reuse(store, "k", rec).save(report, dict(art), set())
    assert reuse.Reuse(store, "k", reuse.Recorder(staging)).choose(order) == set(order)
    (staging / "a.py").write_text("x = 2\n")
    # a changed: w_a and fx_a run, r_b (read k) and fx_none (the same fixture) with them, other_b (module
    # b, with r_b), all_c (read every key); only the test that shares nothing stays
    assert reuse.Reuse(store, "k", reuse.Recorder(staging)).choose(order) == {"alone"}


def test_a_structure_check_reads_the_definitions_it_looked_up_not_every_file(tmp_path):
    """A structure check reading the source through student.sources (core/source.py SourceView) depends
    on the definitions it looked up: an edit to leetcode.py leaves it reusable, unless the edit defines
    a name the check follows (here an ``__init__``, which TokenAndPosEmbedding's own calls name)."""
    from grader.core.source import SourceView, sources_of
    from lesson_embedding_pe import structure
    from tests.conftest import ROOT

    staging = _staging(tmp_path, {name: (ROOT / "solutions" / name).read_text()
                                  for name in ("embedding.py", "leetcode.py")})
    rec = reuse.Recorder(staging)
    rec.begin("t", False, {})
    assert structure.registers_buffer(SourceView(sources_of(staging), rec.source)).ok
    assert structure.shares_one_parameter(SourceView(sources_of(staging), rec.source)).ok
    rec.end("t", {})
    assert reuse.WHOLE not in rec.reads["t"] and f"{reuse.SOURCE}def:TokenAndPosEmbedding" in rec.reads["t"]
    store = _store(tmp_path)
    reuse.Reuse(store, "k", rec).save({"tests": [{"nodeid": "t", "outcome": "passed", "metadata": {}}]}, {},
                                      set())

    def reused() -> bool:
        return reuse.Reuse(store, "k", reuse.Recorder(staging)).choose(["t"]) == {"t"}

    leetcode = staging / "leetcode.py"
    original = leetcode.read_text()
    body = "def my_pow(x: float, n: int) -> float:\n"
    assert body in original
    leetcode.write_text("import math\n" + original.replace(body, body + "    x = float(x)\n")
                        + "\ndef helper(k):\n    return k + 1\n")
    assert reused()  # every line of it moved, a changed and a new function: none the checks looked up
    leetcode.write_text(original + "\nclass Node:\n    def __init__(self):\n        self.next = None\n")
    assert not reused()  # an __init__ the checks follow from TokenAndPosEmbedding's super().__init__()
    leetcode.write_text(original)
    assert reused()
    embedding = staging / "embedding.py"
    line = 'self.register_buffer("pe", sinusoidal_pe(max_len, d_model))'
    assert line in embedding.read_text()
    embedding.write_text(embedding.read_text().replace(line, line + "  # a table, not a Parameter"))
    assert reused()  # a comment: the same syntax trees, at the same places
    embedding.write_text(embedding.read_text().replace("register_buffer", "register_parameter", 1))
    assert not reused()


def test_the_store_keeps_each_run_under_its_key(tmp_path):
    staging = _staging(tmp_path, {"a.py": "x = 1\n"})
    store = _store(tmp_path)
    for key in ("full", "one task", "full"):
        rec = reuse.Recorder(staging)
        rec.begin("t", False, {})
        rec.module("a")
        rec.end("t", {})
        r = reuse.Reuse(store, key, rec)
        r.save({"tests": [{"nodeid": "t", "outcome": "passed", "metadata": {}}]}, {}, set())
    runs = store.read()["runs"]
    assert [r["key"] for r in runs] == ["one task", "full"]
    file = Path(store.folder) / store.name
    assert runs[-1]["tests"]["t"]["reads"]["a"] and oct(file.stat().st_mode & 0o777) == "0o600"


def _save(store: reuse.Store, staging: Path, reads: dict[str, list[str]]) -> None:
    """A run whose tests reached, in the worker, what ``reads`` says (the guard's notes)."""
    rec = reuse.Recorder(staging)
    for nodeid, notes in reads.items():
        rec.begin(nodeid, False, {})
        rec.touched(notes)
        rec.end(nodeid, {})
    report = {"tests": [{"nodeid": n, "outcome": "passed", "metadata": {}} for n in reads]}
    reuse.Reuse(store, "k", rec).save(report, {}, set())


def test_what_student_code_reached_in_the_worker_is_what_a_test_read(tmp_path):
    """Observed, not guessed from the source: a helper imported inside a function, a module looked for
    that does not exist yet (then added, then removed), a staged file opened; not torch or json."""
    staging = _staging(tmp_path, {"embedding.py": "def f():\n    import helper\n    return helper.g()\n",
                                  "helper.py": "def g():\n    return 1\n", "other.py": "x = 1\n"})
    store = _store(tmp_path)
    _save(store, staging, {"uses_helper": ["m:embedding", "m:helper", "m:torch", "m:json"],
                           "tries_extra": ["m:other", "m:scale_extra"], "opens": ["f:other.py"]})
    order = ["uses_helper", "tries_extra", "opens"]
    runs = store.read()["runs"][-1]["tests"]
    assert set(runs["uses_helper"]["reads"]) == {"embedding", "helper", "<data>"}
    assert runs["tries_extra"]["reads"]["scale_extra"] is None

    def reused() -> set[str]:
        return reuse.Reuse(store, "k", reuse.Recorder(staging)).choose(order)

    assert reused() == set(order)
    (staging / "helper.py").write_text("def g():\n    return 2\n")
    assert reused() == {"tries_extra", "opens"}
    (staging / "helper.py").write_text("def g():\n    return 1\n")
    (staging / "scale_extra.py").write_text("y = 1\n")  # added: the test that looked for it runs
    assert "tries_extra" not in reused()
    _save(store, staging, {"uses_helper": ["m:embedding", "m:helper"], "tries_extra": ["m:other",
                           "m:scale_extra"], "opens": ["f:other.py"]})
    (staging / "scale_extra.py").unlink()  # and removed again
    assert "tries_extra" not in reused()


def test_a_module_that_sets_state_at_import_reuses_nothing(tmp_path):
    """State a module leaves in the worker when imported (torch's default device) reaches every later
    test, whatever it read: where the submission has such a module (now or in the last run), every test
    runs."""
    scratch = tmp_path / "scratch"  # not the graded staging below: b.py would set state there
    scratch.mkdir()
    assert not reuse.import_effects(_staging(scratch, {"a.py": (
        '"""doc"""\nimport torch\nfrom dataclasses import dataclass\nX = (1, 2)\n\n@dataclass\n'
        'class C:\n    n: int = 1\n\n@torch.no_grad()\ndef f(x=None):\n    return torch.zeros(3)\n\n'
        'if __name__ == "__main__":\n    print(f())\n')}) / "a.py")
    for effect in ("torch.set_default_device('meta')\n", "X = torch.zeros(3)\n", "torch.x = 1\n",
                   "for i in range(3):\n    pass\n", "@register\ndef f():\n    pass\n"):
        assert reuse.import_effects(_staging(scratch, {"b.py": "import torch\n" + effect}) / "b.py"), effect
    staging = _staging(tmp_path, {"embedding.py": "def f():\n    return 1\n",
                                  "leetcode.py": "def g():\n    return 1\n"})
    store = _store(tmp_path)
    _save(store, staging, {"encoding": ["m:embedding"], "pow": ["m:leetcode"]})
    (staging / "leetcode.py").write_text("def g():\n    return 2\n")
    assert reuse.Reuse(store, "k", reuse.Recorder(staging)).choose(["encoding", "pow"]) == {"encoding"}
    (staging / "leetcode.py").write_text("import torch\ntorch.set_default_device('meta')\n")
    assert reuse.Reuse(store, "k", reuse.Recorder(staging)).choose(["encoding", "pow"]) == set()
    _save(store, staging, {"encoding": ["m:embedding"], "pow": ["m:leetcode"]})
    # it unchanged, another edit: which tests it reaches depends on the run (a reused test never imports it)
    (staging / "embedding.py").write_text("def f():\n    return 2\n")
    assert reuse.Reuse(store, "k", reuse.Recorder(staging)).choose(["encoding", "pow"]) == set()
    (staging / "leetcode.py").write_text("def g():\n    return 1\n")  # and when it is taken out again
    assert reuse.Reuse(store, "k", reuse.Recorder(staging)).choose(["encoding", "pow"]) == set()


def test_state_student_code_left_in_the_worker_reuses_nothing_now_and_next(tmp_path):
    """A function a test calls that leaves the process changed (torch's default device: the worker's
    note ``s:...``) reaches every later test of that worker, whatever it read, and which tests those
    are depends on the run: that run and the next reuse nothing; once a run sees no such change, the
    one after reuses again."""
    staging = _staging(tmp_path, {"embedding.py": "def f():\n    return 1\n",
                                  "leetcode.py": "def g():\n    return 1\n"})
    store = _store(tmp_path)

    def reused() -> set[str]:
        return reuse.Reuse(store, "k", reuse.Recorder(staging)).choose(["encoding", "pow"])

    _save(store, staging, {"encoding": ["m:embedding"], "pow": ["m:leetcode"]})
    assert reused() == {"encoding", "pow"}
    _save(store, staging, {"encoding": ["m:embedding"],
                           "pow": ["m:leetcode", "s:torch _len_torch_function_stack"]})
    assert store.read()["runs"][-1]["state"] == ["torch _len_torch_function_stack"]
    assert reused() == set()  # nothing changed on disk: the state it leaves reaches the encoding's test
    assert reuse.Reuse(store, "k", reuse.Recorder(staging), reuse_none=True).choose(["encoding"]) == set()
    _save(store, staging, {"encoding": ["m:embedding"], "pow": ["m:leetcode"]})
    assert reused() == {"encoding", "pow"}


def test_a_store_is_read_only_where_its_daemon_signed_it(tmp_path):
    """A store edited by hand, or signed by another daemon, is nothing: every test runs."""
    store = _store(tmp_path)
    runs = {"runs": [{"key": "k", "tests": {"t": {"outcome": "passed"}}, "artifacts": {}}]}
    store.write(runs)
    assert store.read() == runs
    assert _store(tmp_path, "another daemon's secret").read() == {}
    file = Path(store.folder) / store.name
    mac, _, body = file.read_bytes().partition(b"\n")
    file.write_bytes(mac + b"\n" + body.replace(b"passed", b"PASSED"))
    assert store.read() == {}
    file.write_bytes(body)  # no signature at all
    assert store.read() == {}


def test_a_cold_grade_never_reads_a_store_whatever_the_environment_says(tmp_path, monkeypatch):
    """Only a grade the daemon forked has a store (its request names it): not GK_REUSE_FILE, not any
    variable a CI workflow could set."""
    from grader.sandbox import host

    store = _store(tmp_path)
    store.write({"runs": []})
    monkeypatch.setenv("GK_REUSE_FILE", str(Path(store.folder) / store.name))
    monkeypatch.setattr(host, "reuse_store", None)
    assert reuse.store_path(False) is None
    monkeypatch.setattr(host, "reuse_store", {"dir": store.folder, "name": store.name, "secret": "s"})
    assert isinstance(reuse.store_path(False), reuse.Store)
    assert reuse.store_path(True) is None  # never for the hidden suite


def test_a_warm_regrade_of_an_unchanged_submission_reuses_every_test_and_says_so(tmp_path, monkeypatch):
    """The real daemon: the second warm grade runs no test, and its results equal the first's; a
    notebook's check() in that folder is served by the same daemon."""
    work = tmp_path / "work"
    (work / "exercises").mkdir(parents=True)
    for f in (CORPUS / "bug_leetcode_pow_negative").iterdir():
        if f.name != "expect.json":
            shutil.copy(f, work / "exercises" / f.name)
    run_dir = Path(tempfile.mkdtemp(prefix="gkr-"))
    env = {k: v for k, v in os.environ.items() if k not in ("GK_NO_DAEMON", "CI", "GITHUB_ACTIONS")}
    env.update(GK_DAEMON="1", XDG_RUNTIME_DIR=str(run_dir), GK_DAEMON_IDLE="300")
    grade = [sys.executable, "-c", "import sys; from grader.cli import program; sys.exit(program())"]
    folder = run_dir / f"gk-daemon-{os.getuid()}"

    def run(*args: str) -> dict:
        subprocess.run([*grade, *args], cwd=work, env=env, capture_output=True, text=True)
        return json.loads((work / "reports" / "results.json").read_text())

    def view(r: dict) -> list:
        return [r["score"], [(t["id"], t["status"], t["messages"]) for t in r["tests"]]]

    try:
        run("-q", "--lang", "en")  # cold; leaves the daemon
        deadline = time.monotonic() + pace.seconds(120)
        while not list(folder.glob("*.pid")) and time.monotonic() < deadline:
            time.sleep(0.2)
        first = run("-q", "--lang", "en")  # warm: runs every test, keeps them
        again = run("-q", "--lang", "ko")  # warm, unchanged: reuses them all, rendered in Korean
        assert not any(t.get("reused") for t in first["tests"])
        assert again["tests"] and all(t.get("reused") for t in again["tests"])
        assert view(again) == view(first) and again["lang"] == "ko"
        assert again["tests"][0]["message"] == again["tests"][0]["messages"]["ko"]
        assert list(folder.glob("*.reuse"))
        (pid_file,) = folder.glob("*.pid")
        assert pid_file.read_text().split()[1] == "2"  # grades served

        from grader.jupyter.check import check

        monkeypatch.chdir(work)
        for name in ("GK_NO_DAEMON", "CI", "GITHUB_ACTIONS"):  # as in a student's kernel, not CI's
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(run_dir))
        checked = check(path=work / "exercises", lang="en")
        assert pid_file.read_text().split()[1] == "3"  # served by the folder's daemon, not cold
        assert checked.score == first["score"] and all(t.get("reused") for t in checked.results["tests"])

        # A real edit to leetcode.py: the public seed is the lesson's, so no other test draws new inputs,
        # and the structure checks read only the definitions they follow: the embedding side is reused.
        leetcode = work / "exercises" / "leetcode.py"
        leetcode.write_text(leetcode.read_text() + "\n\ndef helper(k):\n    return k + 1\n")
        edited = run("-q", "--lang", "en")
        assert edited["replay"]["seed"] == first["replay"]["seed"]
        assert edited["replay"]["made_from"] == "public:lesson_embedding_pe"
        assert edited["replay"]["content_hash"] != first["replay"]["content_hash"]
        ran = {t["id"] for t in edited["tests"] if not t.get("reused")}
        # the LeetCode tests, and the log's (they read the whole submission): nothing of the embedding side
        assert ran and all(i.startswith(("public/test_leetcode", "public/test_log")) for i in ran), ran
        assert {"public/test_tying.py::test_tied_head_is_the_embedding",
                "public/test_reversal.py::test_component_check_positions_learn[sin]"} <= {
            t["id"] for t in edited["tests"] if t.get("reused")}
        assert view(edited) == view(first)
    finally:
        subprocess.run([*grade, "--stop-daemon"], cwd=work, env=env, capture_output=True)
        left = list(folder.iterdir()) if folder.exists() else []
        shutil.rmtree(run_dir, ignore_errors=True)
    assert left == []  # the store went with the daemon


STATEFUL = '''import os
import random


def pure(x):
    import torch
    with torch.no_grad():  # a setting changed and put back: nothing left
        return float(torch.ones(2).sum()) + x


def meta():
    import torch
    torch.set_default_device("meta")


def patch():
    import torch
    torch.nn.functional.relu = lambda t: t


def environ():
    os.environ["GK_LEFT_BEHIND"] = "1"


def draw():
    return random.random()


def forward():
    import torch
    torch.nn.Linear.forward = lambda self, x: x


def added():
    import sys
    sys.modules["gk_not_a_module"] = object()


def filters():
    import warnings
    warnings.simplefilter("ignore")


def hook():
    import sys

    class Finder:
        def find_spec(self, *args):
            return None

    sys.meta_path.append(Finder())


def tf32():
    import torch
    torch.backends.cuda.matmul.allow_tf32 = True


def at_exit():
    import atexit
    atexit.register(print)


def stand_in():
    import sys
    sys.modules["math"] = sys
'''


def test_the_worker_says_what_student_code_left_changed_in_its_process(tmp_path, monkeypatch):
    """The real worker, after each request, names what student code left changed in its process
    (runtime/server.py state_watch): nothing for a call that puts back what it changed or for the
    grader's own seeding; torch's default device set inside a function, a torch name replaced, the
    environment, Python's random generator drawn from, a stand-in added to sys.modules, a warning filter,
    an import hook, a flag of torch's global context, an atexit callback."""
    from grader.sandbox import client as worker_client
    from grader.sandbox.client import WorkerClient

    staging = _staging(tmp_path, {"stateful.py": STATEFUL})
    notes: list[str] = []
    monkeypatch.setattr(worker_client, "TOUCHED", notes.extend)

    def state_after(target: str, *args) -> set[str]:
        notes.clear()
        client.request({"op": "call", "target": f"stateful.{target}"}, args, {}, 60)
        return {n[2:] for n in notes if n.startswith("s:")}

    with WorkerClient(staging) as client:
        assert state_after("pure", 1) == set()
        client.request({"op": "probe", "name": "seed"}, (123,), {}, 60)  # the grader's seeding: not state
        assert state_after("pure", 2) == set()
        assert any(s.startswith("torch ") for s in state_after("meta"))
        assert "the names of torch.nn.functional" in state_after("patch")
        assert "the environment" in state_after("environ")
        assert "Python's random generator" in state_after("draw")
        assert "the names of Linear" in state_after("forward")
        assert "the names of sys.modules" in state_after("added")
        assert "the warning filters" in state_after("filters")
        assert "sys.meta_path" in state_after("hook")
        assert "torch get_cublas_allow_tf32" in state_after("tf32")
        assert "the atexit callbacks" in state_after("at_exit")
        assert "the names of sys.modules" in state_after("stand_in")
