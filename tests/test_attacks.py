"""The attack corpus (tests/attacks/), graded through the real grader.

Each attack is a correct submission (a copy of solutions/) with one hostile
change.  For every attack: the attacked task earns nothing, the honest tasks of
the same submission still earn full points, nothing of the machine leaks into
the report, and no process of the submission is left running.  Each submission
is graded once (cached per module) on a few public tests picked with ``-k``.
"""

from __future__ import annotations

import json
import secrets
import shutil
import socket
import stat
import textwrap
import time
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pace
import pytest

import grader.sandbox.client as client_mod
from grader.cli import main as grade_cli
from grader.engine.runner import GradeOptions, grade_path, write_results
from grader.engine.submission import SubmissionError, read_submission
from grader.sandbox import reap
from grader.sandbox.launch import Launch, SandboxPolicy, namespaces_status
from lesson_embedding_pe.paths import SUITES as EMBEDDING_SUITES

HERE = Path(__file__).resolve().parent
KIT = HERE.parent
ATTACKS = HERE / "attacks"
NAMESPACES, WHY_NOT = namespaces_status()
needs_namespaces = pytest.mark.skipif(not NAMESPACES, reason=f"namespaces isolation unavailable: {WHY_NOT}")

# sinusoidal_pe is what most attacks go after; weight tying lives in the same file and
# the LeetCode answers in another: both must keep their points.
QUICK = "test_pe or test_tying or test_leetcode"
# Attacks that crash, hang or flood on every call: one sinusoidal_pe test is enough.
ONE_PE = "test_shape_and_dtype or test_tying or test_leetcode"
PE, TYING, LEET = "sinusoidal_pe", "weight_tying", "leetcode_practice"
# What a hang in embedding.py (which reversal.py imports) takes down.
HUNG = (PE, "TokenAndPosEmbedding", TYING, "equivariance", "reversal_experiment")
# The forging attacks: every structural test (embedding, tying, equivariance hands over a function).
FORGE = "test_embedding or test_tying or test_equivariance or test_pe or test_leetcode"
FORGES = ("forge_probes", "forge_main", "forge_gc", "forge_frames", "forge_fn_globals", "forge_pickle",
          "forge_exec", "forge_sys_modules")
# Attacks whose source the tamper scan flags: their probe-based points (tying) are withheld.
FLAGGED = {"ignore_sigterm", "leak_search", "patched_comparisons", "notebook_magics", *FORGES}


@dataclass
class Spec:
    keyword: str = QUICK
    attacked: tuple[str, ...] = (PE,)
    honest: tuple[str, ...] = (TYING, LEET)
    isolation: str = "auto"
    needs_namespaces: bool = False  # what it tries is only stopped by namespaces (documented)
    policy: dict = field(default_factory=dict)
    build: Callable[[Path, dict], Path] | None = None  # makes the submission from the folder
    source: str = ""  # the folder under tests/attacks (default: the spec's name)
    cli: bool = False  # grade through `grade ... --out` rather than grade_path
    hidden: bool = False  # the hidden suite too (where most structural tests are)


@dataclass
class Graded:
    name: str
    spec: Spec
    results: dict
    launches: list[Launch]
    out: Path
    submission: Path
    context: dict
    seconds: float

    @property
    def text(self) -> str:
        return json.dumps(self.results, ensure_ascii=False)

    def tests_of(self, task: str) -> list[dict]:
        return [t for t in self.results["tests"] if t["task"] == task]


# -- building submissions that cannot be committed as files ------------------------------
def _substitute(folder: Path, ctx: dict) -> Path:
    for path in folder.glob("*.py"):
        text = path.read_text()
        text = text.replace("PORT = 0  #", f"PORT = {ctx['port']}  #")
        text = text.replace('MARKER = "GK_ATTACK_MARKER"', f'MARKER = "{ctx["marker"]}"')
        path.write_text(text)
    return folder


def _reference_beside(folder: Path, ctx: dict) -> Path:
    """The attack's own files, and the reference solution for every graded file it leaves out."""
    for name in ("embedding.py", "reversal.py", "leetcode.py", "LEETCODE_LOG.md"):
        if not (folder / name).exists():
            shutil.copy(KIT / "solutions" / name, folder / name)
    return folder


def _reference_with_tail(folder: Path, ctx: dict) -> Path:
    """The reference solution, its embedding.py ending in the attack's ``embedding.tail``."""
    tail = folder / "embedding.tail"
    (folder / "embedding.py").write_text((KIT / "solutions" / "embedding.py").read_text() + "\n\n"
                                         + tail.read_text())
    tail.unlink()
    return _reference_beside(folder, ctx)


def _symlinks(folder: Path, ctx: dict) -> Path:
    """embedding.py links to the kit's reference solution; exercises/ links to solutions/."""
    shutil.copy(KIT / "solutions" / "leetcode.py", folder / "leetcode.py")
    (folder / "embedding.py").symlink_to(KIT / "solutions" / "embedding.py")
    (folder / "reversal.py").symlink_to("/etc/passwd")
    (folder / "exercises").symlink_to(KIT / "solutions", target_is_directory=True)
    return folder


def _zip_traversal(folder: Path, ctx: dict) -> Path:
    target = folder.parent / "traversal.zip"
    escape = folder.parent / f"escaped-{ctx['marker']}"
    ctx["escapes"] = [escape / "sitecustomize.py", folder.parent / "conftest.py",
                      Path("/tmp/gk-zip-abs-conftest.py")]
    wrong = (KIT / "solutions" / "embedding.py").read_text() + _wrong_pe()
    with zipfile.ZipFile(target, "w") as z:
        z.writestr("embedding.py", wrong)
        z.writestr("leetcode.py", (KIT / "solutions" / "leetcode.py").read_text())
        z.writestr(f"../escaped-{ctx['marker']}/sitecustomize.py", "import os\nos._exit(0)\n")
        z.writestr("../../conftest.py", "raise SystemExit\n")
        z.writestr("/tmp/gk-zip-abs-conftest.py", "raise SystemExit\n")
        z.writestr("..\\..\\evil.py", "raise SystemExit\n")
        info = zipfile.ZipInfo("link.py")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(info, "/work/main/solutions/embedding.py")
    return target


def _zip_bomb(folder: Path, ctx: dict) -> Path:
    """embedding.py declares 1 KB but inflates to 50 MB (the header lies); leetcode.py is honest."""
    target = folder.parent / "bomb.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("embedding.py", b"#" * (50 * 1024 * 1024))
        z.writestr("leetcode.py", (KIT / "solutions" / "leetcode.py").read_text())
    data = bytearray(target.read_bytes())
    local = data.find(b"PK\x03\x04")
    data[local + 22:local + 26] = (1000).to_bytes(4, "little")
    central = data.find(b"PK\x01\x02")
    data[central + 24:central + 28] = (1000).to_bytes(4, "little")
    target.write_bytes(bytes(data))
    return target


def _forge(folder: Path, ctx: dict) -> Path:
    """forge_twin's embedding.py + the shared forged probes + this route's forge.txt (tests/attacks/forge_*)."""  # noqa: E501
    twin = ATTACKS / "forge_twin"
    route = folder / "forge.txt"
    # A careful forger guards the attempt, so a blocked route costs nothing at import: the attack is
    # then the twin plus whatever the route got through (nothing, once the runtime is out of reach).
    attempt = (twin / "forge_common.txt").read_text() + "\n\n" + route.read_text()
    text = ((twin / "embedding.py").read_text() + "\n\ntry:\n" + textwrap.indent(attempt, "    ")
            + "\nexcept Exception as _blocked:  # the runtime is out of reach\n"
            + "    print('ROUTE blocked:', type(_blocked).__name__)\n")
    route.unlink()
    (folder / "embedding.py").write_text(text)
    shutil.copy(twin / "leetcode.py", folder / "leetcode.py")
    return folder


def _notebook_hang(folder: Path, ctx: dict) -> Path:
    """A notebook: the reference solution's cells, then one that never ends (every shim imports it)."""
    import nbformat

    def cell(module: str) -> str:  # a module as a cell: no __future__ import, no import of a sibling
        lines = (KIT / "solutions" / f"{module}.py").read_text().splitlines()
        return "\n".join(x for x in lines if not x.startswith(("from __future__", "from embedding")))

    cells = [nbformat.v4.new_code_cell(cell(m)) for m in ("embedding", "reversal", "leetcode")]
    # A plain `time.sleep` cell is cut by the notebook driver's time budget (tests/test_notebooks.py);
    # a loop that swallows the budget's interruption is not, so the import itself never finishes.
    cells.append(nbformat.v4.new_code_cell(
        "import time\n\n\ndef warm_up():\n    while True:\n        try:\n            time.sleep(1)\n"
        "        except BaseException:\n            pass\n\n\nwarm_up()\n"))
    target = folder / "hang.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), str(target))
    return target


def _wrong_pe() -> str:
    return ("\n\ndef sinusoidal_pe(max_len, d_model):\n"
            "    return torch.full((max_len, d_model), 0.5, dtype=torch.float64)\n")


SPECS: dict[str, Spec] = {
    "tool_config": Spec(),
    # Forging: each forge_* route makes the grader's structural probes lie for forge_twin's two bugs.
    "forge_twin": Spec(keyword=FORGE, attacked=(), honest=(PE, LEET), hidden=True),
    **{name: Spec(keyword=FORGE, attacked=(), honest=(PE, LEET), hidden=True, build=_forge)
       for name in FORGES},
    "exit_at_import": Spec(attacked=(PE, TYING), honest=(LEET,)),
    "systemexit_at_import": Spec(attacked=(PE, TYING), honest=(LEET,)),
    "exit_in_call": Spec(),
    "shadow_modules": Spec(),
    "patched_comparisons": Spec(honest=(LEET,)),
    "tensor_subclass": Spec(),
    "fake_results": Spec(cli=True),
    "leak_search": Spec(keyword=ONE_PE, honest=(LEET,), needs_namespaces=True),
    "loop_at_import": Spec(attacked=(PE, TYING), honest=(LEET,), policy={"import_seconds": 4}),
    # A hang at import with every test: waited out once (one worker restart), not per test or module. The
    # count of restarts says so whatever the timeout; 5 s instead of the default 30 s keeps the suite short.
    "sleep_at_import": Spec(keyword="", hidden=True, attacked=HUNG, honest=(LEET, "leetcode_log"),
                             build=_reference_with_tail, policy={"import_seconds": 5}),
    "loop_at_import_full": Spec(keyword="", hidden=True, attacked=HUNG, honest=(LEET, "leetcode_log"),
                                 build=_reference_with_tail, policy={"import_seconds": 5}),
    "notebook_hang": Spec(keyword="", hidden=True, attacked=(*HUNG, LEET), honest=(), build=_notebook_hang,
                          source="-", policy={"import_seconds": 5}),
    "ignore_sigterm": Spec(keyword=ONE_PE, honest=(LEET,), policy={"call_seconds": 3}),
    "detached_children": Spec(keyword=ONE_PE, build=_substitute),
    # 1.5 GB rather than the 4 GB default: the same limit at work, less memory to fill first.
    "memory_bomb": Spec(keyword=ONE_PE, needs_namespaces=True, policy={"memory_bytes": 1536 * 1024 * 1024}),
    "network_loopback": Spec(keyword=ONE_PE, needs_namespaces=True, build=_substitute),
    "stdout_flood": Spec(keyword=ONE_PE),
    "symlink_outside": Spec(attacked=(PE, TYING), honest=(LEET,), build=_symlinks, source="-"),
    "zip_traversal": Spec(build=_zip_traversal, source="-"),
    "zip_bomb": Spec(attacked=(PE, TYING), honest=(LEET,), build=_zip_bomb, source="-"),
    "notebook_magics": Spec(honest=(LEET,)),
    # The degraded mode, forced: it must still stop hangs and kill detached daemons.
    "process_detached_children": Spec(keyword=ONE_PE, isolation="process", source="detached_children",
                                      build=_substitute),
    "process_loop_in_call": Spec(keyword=ONE_PE, isolation="process", source="loop_in_call",
                                 policy={"call_seconds": 3}),
}


class Corpus:
    """Grades each attack once, on first use, with canaries planted where nothing may reach."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.cache: dict[str, Graded] = {}
        self.secret = "canary-" + secrets.token_hex(12)
        # A file in another "submission's" staging folder and one in the grader's home.
        other = tmp / "gk-sub-other"
        other.mkdir()
        (other / "canary.txt").write_text(self.secret)
        self.home_canary = Path.home() / f".gk-canary-{secrets.token_hex(4)}.txt"
        self.home_canary.write_text(self.secret)

    def close(self) -> None:
        self.home_canary.unlink(missing_ok=True)

    def get(self, name: str) -> Graded:
        if name not in self.cache:
            self.cache[name] = self._grade(name, SPECS[name])
        return self.cache[name]

    def _grade(self, name: str, spec: Spec) -> Graded:
        if spec.needs_namespaces and not NAMESPACES:
            pytest.skip(f"{name} is only stopped by namespaces isolation ({WHY_NOT})")
        base = self.tmp / name
        folder = base / "submission"
        folder.mkdir(parents=True)
        source = spec.source or name
        if source != "-":
            shutil.copytree(ATTACKS / source, folder, dirs_exist_ok=True)
        ctx: dict = {"marker": f"gk-attack-{secrets.token_hex(6)}"}
        listener = socket.create_server(("127.0.0.1", 0))
        listener.setblocking(False)
        ctx["port"] = listener.getsockname()[1]
        ctx["listener"] = listener
        path = spec.build(folder, ctx) if spec.build else folder
        out = base / "out"
        out.mkdir()
        (out / "canary.txt").write_text(self.secret)
        policy = dict({"call_seconds": 20.0, "import_seconds": 30.0}, **spec.policy)
        launches: list[Launch] = []
        real_launch = client_mod.launch_worker

        def spy(*args, **kwargs):
            launch = real_launch(*args, **kwargs)
            launches.append(launch)
            return launch

        started = time.monotonic()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(client_mod, "launch_worker", spy)
            mp.setenv("GK_GRADER_SECRET", self.secret)  # the grader's environment must not reach the worker
            if spec.cli:
                argv = [str(path), "--out", str(out), "-q", "-k", spec.keyword, "--isolation", spec.isolation,
                        "--call-timeout", str(policy["call_seconds"]),
                        "--import-timeout", str(policy["import_seconds"])]
                assert grade_cli(argv) == 0
                results = json.loads((out / "results.json").read_text())
            else:
                options = GradeOptions(keyword=spec.keyword, hidden=spec.hidden,
                                       policy=SandboxPolicy(isolation=spec.isolation, hide=(str(out),),
                                                            **policy))
                results = grade_path(path, options)
                write_results(results, out)
        return Graded(name, spec, results, launches, out, path, ctx, time.monotonic() - started)


# Each attack is graded once per worker (the module cache): its tests run one after another
# (tests/conftest.py), so that a worker grades the attacks it is sent, not all of them.
RUN_TOGETHER_BY = "name"
# The attacks that one test reads together. Each family is one xdist group, every other attack a group of
# its own, and a test that reads attacks by name is marked with their group (``reading``): under `-n 3` the
# tests of a family then run on one worker, which grades each of its attacks once, where a test reading
# them from the module's group (the default for a test without a ``name``) would grade them again on
# whichever worker it landed on.
FAMILIES = {
    "forges": ("forge_twin", *FORGES),  # each forge is compared with its twin
    "reserved_names": ("tool_config", "shadow_modules"),
    "exits": ("exit_at_import", "systemexit_at_import", "exit_in_call"),
    "hangs": ("loop_at_import", "ignore_sigterm", "process_loop_in_call"),
    "judged_values": ("patched_comparisons", "tensor_subclass"),
    "daemons": ("detached_children", "process_detached_children"),
}


def group_of(name: str) -> str:
    """The xdist group of the tests that read the attack ``name`` (never ending in ``]``, as
    tests/conftest.py says)."""
    family = next((f for f, names in FAMILIES.items() if name in names), name)
    return f"test_attacks:{family}"


def reading(*names: str) -> pytest.MarkDecorator:
    """The mark of a test that reads these attacks, all of one family."""
    (group,) = {group_of(n) for n in names}
    return pytest.mark.xdist_group(group)


def attacks(names: Iterable[str]) -> list[Any]:
    """``names`` as the parameters of a test that reads the attack it is given, each in its group."""
    return [pytest.param(n, marks=reading(n)) for n in names]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory):
    c = Corpus(tmp_path_factory.mktemp("attacks"))
    yield c
    c.close()


# -- what every attack must satisfy -------------------------------------------------------
@pytest.mark.parametrize("name", attacks(SPECS))
def test_attack_earns_nothing(corpus: Corpus, name: str) -> None:
    g = corpus.get(name)
    for task in g.spec.attacked:
        tests = g.tests_of(task)
        assert tests, f"{name}: no test of {task} ran"
        passed = [t["id"] for t in tests if t["status"] == "passed"]
        assert not passed, f"{name}: the attack earned points on {passed}"
        assert g.results["tasks"][task]["score"] == 0.0
        for t in tests:
            assert t["message"], f"{name}: {t['id']} failed without a message"


@pytest.mark.parametrize("name", attacks(SPECS))
def test_honest_parts_still_earn(corpus: Corpus, name: str) -> None:
    g = corpus.get(name)
    for task in g.spec.honest:
        total = g.results["tasks"][task]
        bad = [(t["id"], t["status"], t["message"][:200]) for t in g.tests_of(task)
               if t["status"] != "passed"]
        assert total["score"] == total["max_score"] > 0, f"{name}: honest task {task} lost points: {bad}"


@pytest.mark.parametrize("name", attacks(SPECS))
def test_nothing_left_running(corpus: Corpus, name: str) -> None:
    g = corpus.get(name)
    assert g.launches, f"{name}: the worker never started"
    for launch in g.launches:
        left = reap.matching(launch.tag, launch.uid)
        assert not left, f"{name}: processes of the submission still run after grading: {sorted(left)}"
        assert not launch.scratch.exists(), (
            f"{name}: the worker's scratch folder {launch.scratch} was left behind")
        if launch.cgroup is not None:
            assert not any(d.exists() for d in launch.cgroup.dirs), f"{name}: cgroup left behind"
        assert launch.process.poll() is not None
    marker = g.context["marker"].encode()
    for pid in reap.all_pids():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        assert marker not in cmdline or not reap.is_alive(pid), (
            f"{name}: a daemon of the attack survives (pid {pid})")


@pytest.mark.parametrize("name", attacks(SPECS))
def test_nothing_leaks_into_the_report(corpus: Corpus, name: str) -> None:
    g = corpus.get(name)
    assert corpus.secret not in g.text
    assert "def test_" not in g.text, "test source reached the report"
    assert "GK_GRADER_SECRET" not in g.text


@pytest.mark.parametrize("name", attacks(SPECS))
def test_isolation_is_reported(corpus: Corpus, name: str) -> None:
    g = corpus.get(name)
    expected = "process" if g.spec.isolation == "process" or not NAMESPACES else "namespaces"
    assert g.results["isolation"] == expected
    assert all(launch.isolation == expected for launch in g.launches)


# -- what particular attacks must show ------------------------------------------------------
@reading("tool_config", "shadow_modules")
def test_tool_configuration_never_reaches_the_worker(corpus: Corpus) -> None:
    for name, rejected in (("tool_config", {"conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg",
                                            "tox.ini"}),
                           ("shadow_modules", {"torch.py", "numpy.py", "math.py", "pytest.py",
                                               "sitecustomize.py", "usercustomize.py", "gk_protocol.py",
                                               "__init__.py", "evil.pth"})):
        g = corpus.get(name)
        assert not rejected & set(g.results["files"]), (
            f"{name}: {rejected & set(g.results['files'])} reached the worker")
    dropped = " ".join(corpus.get("shadow_modules").results["dropped"])
    for fname in ("torch.py", "numpy.py", "math.py", "pytest.py", "sitecustomize.py", "gk_protocol.py"):
        assert fname in dropped
    assert "shadows the installed module `torch`" in dropped
    assert "fake torch loaded" not in corpus.get("shadow_modules").results["worker"]["output"]
    assert "conftest.py: reserved name" in " ".join(corpus.get("tool_config").results["dropped"])


@reading("exit_at_import", "systemexit_at_import", "exit_in_call")
def test_exits_are_reported_as_crashes(corpus: Corpus) -> None:
    at_import = corpus.get("exit_at_import").tests_of(PE)[0]
    assert at_import["status"] == "error" and "ended the process" in at_import["message"]
    assert "SystemExit" in corpus.get("systemexit_at_import").tests_of(PE)[0]["message"]
    in_call = corpus.get("exit_in_call")
    by_test = {t["id"].split("::")[1]: t for t in in_call.tests_of(PE)}
    assert (by_test["test_shape_and_dtype"]["status"] == "error"
            and "died" in by_test["test_shape_and_dtype"]["message"])
    assert "SystemExit" in by_test["test_formula_small[4-6]"]["message"]
    assert "KeyboardInterrupt" in by_test["test_odd_d_model_is_value_error"]["message"]
    assert in_call.results["worker"]["restarts"] == 1  # the crash restarted the worker; the raises did not


@reading("loop_at_import", "ignore_sigterm", "process_loop_in_call")
def test_hangs_are_timeouts(corpus: Corpus) -> None:
    for name in ("loop_at_import", "ignore_sigterm", "process_loop_in_call"):
        g = corpus.get(name)
        assert g.tests_of(PE)[0]["status"] == "timeout", name
        assert g.seconds < 60, f"{name}: grading took {g.seconds:.0f} s"


@pytest.mark.parametrize("name", attacks(["sleep_at_import", "loop_at_import_full", "notebook_hang"]))
def test_a_hang_at_import_is_waited_out_once(corpus: Corpus, name: str) -> None:
    g = corpus.get(name)
    assert g.seconds < 90, f"{name}: grading took {g.seconds:.0f} s"
    assert g.results["worker"]["restarts"] == 1, "one hang, one restart: nothing else waited for it"
    hung = [t for t in g.results["tests"] if t["task"] in (PE, "TokenAndPosEmbedding", TYING, "equivariance")]
    culprit = "notebook" if name == "notebook_hang" else "embedding"
    assert len(hung) > 40 and all(t["status"] == "timeout" for t in hung)
    assert all(t["message"].startswith(f"Importing {culprit}.py never finished") for t in hung)
    reversal = g.tests_of("reversal_experiment")
    assert reversal and all(t["status"] != "passed" for t in reversal)
    honest = sum(g.results["tasks"][task]["score"] for task in g.spec.honest)
    assert g.results["score"] == honest and (honest > 0 or name == "notebook_hang")


@reading("patched_comparisons", "tensor_subclass")
def test_values_are_judged_by_the_grader(corpus: Corpus) -> None:
    """Patched comparisons and a lying tensor subclass in the worker change nothing."""
    for name in ("patched_comparisons", "tensor_subclass"):
        messages = {t["id"].split("::")[1]: t["message"] for t in corpus.get(name).tests_of(PE)}
        assert "float64" in messages["test_shape_and_dtype"], messages
        assert ("expected" in messages["test_formula_small[4-6]"]
                and "0.500000" in messages["test_formula_small[4-6]"])


@reading("fake_results")
def test_fake_results_and_pass_lines_change_nothing(corpus: Corpus) -> None:
    g = corpus.get("fake_results")
    on_disk = json.loads((g.out / "results.json").read_text())
    assert on_disk["score"] == sum(t["score"] for t in on_disk["tests"]) < 999
    assert "PASSED" in on_disk["worker"]["output"]  # printed, and ignored
    assert not (g.submission / "results.json").exists()
    if NAMESPACES:
        line = next(x for x in on_disk["worker"]["output"].splitlines() if x.startswith("WROTE "))
        wrote = json.loads(line[len("WROTE "):])
        # Only its private tmpfs folders took the writes.
        assert wrote and all(w in ("/tmp", "/dev/shm") or w.startswith(("/tmp/", "/dev/shm/"))
                             for w in wrote), wrote


@needs_namespaces
@reading("leak_search")
def test_search_finds_nothing_of_the_grader(corpus: Corpus) -> None:
    g = corpus.get("leak_search")
    message = g.tests_of(PE)[0]["message"]
    assert "LOOT:" in message  # the search ran and its findings reached the report...
    solution_line = next(x for x in (KIT / "solutions" / "reversal.py").read_text().splitlines()
                         if x.startswith("def "))
    assert solution_line not in g.text  # ...yet nothing of the kit was among them
    for hidden in (EMBEDDING_SUITES / "hidden").glob("test_*.py"):
        first_test = next((x for x in hidden.read_text().splitlines() if x.startswith("def test_")), None)
        assert first_test is None or first_test not in g.text
    assert str(KIT) + "/solutions" not in g.text


@needs_namespaces
@reading("network_loopback")
def test_no_connection_leaves_the_sandbox(corpus: Corpus) -> None:
    g = corpus.get("network_loopback")
    listener: socket.socket = g.context["listener"]
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()


@reading("detached_children", "process_detached_children")
def test_detached_daemons_are_killed(corpus: Corpus) -> None:
    """40 double-forked, setsid'd daemons (half with a scrubbed environment) in both modes."""
    for name in ("detached_children", "process_detached_children"):
        g = corpus.get(name)
        assert g.tests_of(PE)[0]["status"] == "failed"  # they started, and the call returned


@needs_namespaces
@reading("memory_bomb")
def test_memory_bomb_is_stopped(corpus: Corpus) -> None:
    t = corpus.get("memory_bomb").tests_of(PE)[0]
    assert t["status"] in ("error", "failed")
    assert "memory" in t["message"].lower() or "alloc" in t["message"].lower(), t["message"]


@reading("stdout_flood")
def test_output_flood_is_drained_and_cut(corpus: Corpus) -> None:
    g = corpus.get("stdout_flood")
    output = g.results["worker"]["output"]
    assert len(output) <= 5000 and "more bytes of output dropped" in output
    assert g.seconds < 60


@reading("symlink_outside")
def test_symlinks_are_not_followed(corpus: Corpus) -> None:
    g = corpus.get("symlink_outside")
    dropped = " ".join(g.results["dropped"])
    assert "embedding.py: symbolic link" in dropped and "reversal.py: symbolic link" in dropped
    assert "embedding.py" not in g.results["files"]


@reading("zip_traversal")
def test_zip_paths_stay_inside(corpus: Corpus) -> None:
    g = corpus.get("zip_traversal")
    dropped = " ".join(g.results["dropped"])
    assert "path leaves the archive" in dropped and "symbolic link" in dropped
    for escape in g.context["escapes"]:
        assert not escape.exists(), f"{escape} was written by unpacking"
    assert set(g.results["files"]) <= {"embedding.py", "leetcode.py"}


@reading("zip_bomb")
def test_zip_bombs_are_refused(corpus: Corpus, tmp_path: Path) -> None:
    g = corpus.get("zip_bomb")
    assert any("embedding.py" in d and ("unreadable" in d or "larger" in d) for d in g.results["dropped"])
    honest_bomb = tmp_path / "honest_bomb.zip"
    with zipfile.ZipFile(honest_bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("embedding.py", b"\0" * (200 * 1024 * 1024))
    started = time.monotonic()
    with pytest.raises(SubmissionError, match="zip bomb"):
        read_submission(honest_bomb, tmp_path / "staging")
    assert time.monotonic() - started < 5
    assert grade_cli([str(honest_bomb), "--out", str(tmp_path / "out"), "-q"]) == 2


@reading("notebook_magics")
def test_notebook_magics_never_run(corpus: Corpus) -> None:
    g = corpus.get("notebook_magics")
    dropped = " ".join(g.results["dropped"])
    assert "`%%bash` cell not run" in dropped and "`!rm -rf" in dropped
    assert "conftest.py: reserved name" in dropped and "torch.py: shadows" in dropped
    assert "All tests passed" not in g.results["worker"]["output"]
    assert all(t["status"] != "passed" for t in g.tests_of(PE))
    assert not (g.submission.parent / "results.json").exists()


def test_attack_folders_are_documented() -> None:
    # forge_runtime_* are graded against their twin by tests/test_runtime_reach.py.
    folders = {p.name for p in ATTACKS.iterdir() if p.is_dir() and not p.name.startswith("forge_runtime_")
               and p.name != "__pycache__"}  # pytest's cache of the folder's conftest.py
    sources = {s.source or n for n, s in SPECS.items() if s.source != "-"}
    assert folders == sources, folders ^ sources
    for folder in folders:
        assert (ATTACKS / folder / "ATTACK.md").is_file()



# -- forging the structural verdicts -------------------------------------------------------
# The tests the forge_* attacks go after: forge_twin fails each of them on its two real bugs.
STRUCTURAL = ("test_sin_table_is_a_buffer", "test_sin_pe_is_a_registered_buffer",
              "test_to_meta_moves_everything[sin]", "test_cuda_simulated_device_safety[sin]",
              "test_tied_head_is_the_embedding", "test_tied_is_one_parameter")


def _by_name(results: dict) -> dict[str, dict]:
    return {t["id"].split("::")[-1]: t for t in results["tests"]}


@pytest.mark.parametrize("name", attacks(SPECS))
def test_review_flags_only_hostile_sources(corpus: Corpus, name: str) -> None:
    review = corpus.get(name).results["review"]
    assert review["flagged"] == (name in FLAGGED), review
    for reason in review["reasons"]:
        assert (reason["en"].startswith(reason["file"] + ":")
                and any("\uac00" <= c <= "\ud7a3" for c in reason["ko"]))


@pytest.mark.parametrize("name", attacks(FORGES))
def test_forging_gains_nothing(corpus: Corpus, name: str) -> None:
    """Flagged: every probe-based point is withheld, so the forge scores at most its unforged twin."""
    forged, twin = corpus.get(name).results, corpus.get("forge_twin").results
    assert forged["score"] <= twin["score"], f"{name}: {forged['score']} > twin {twin['score']}"
    tests = _by_name(forged)
    for test in STRUCTURAL:
        assert tests[test]["status"] == "failed", test
        # Withheld for review, unless the route ran into the worker's audit hook first (forge_gc
        # reaches for gc inside forward): either way the point is lost, and said so.
        message, ko = tests[test]["message"], tests[test]["messages"]["ko"]
        assert message.startswith("Withheld for review") or "sandbox does not allow" in message, message
        assert ko.startswith("검토 대기로 보류") or "AuditDenied" in ko, ko


_UNSCANNED: dict[str, dict] = {}


def _graded_unscanned(name: str, tmp: Path) -> dict:
    """The forge graded with the tamper scan switched off: the trusted source evidence must hold alone."""
    if name not in _UNSCANNED:
        folder = tmp / name
        shutil.copytree(ATTACKS / name, folder)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("grader.core.tamper.review", lambda staging: {"flagged": False, "reasons": []})
            _UNSCANNED[name] = grade_path(_forge(folder, {}) if name != "forge_twin" else folder,
                                          GradeOptions(hidden=True, keyword=FORGE))
    return _UNSCANNED[name]


@pytest.mark.parametrize("name", attacks(FORGES))
def test_source_evidence_alone_stops_forging(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    tmp = tmp_path_factory.mktemp("unscanned")
    forged, twin = _graded_unscanned(name, tmp), _graded_unscanned("forge_twin", tmp)
    assert forged["score"] <= twin["score"], f"{name}: {forged['score']} vs twin {twin['score']}"
    forged_tests, twin_tests = _by_name(forged), _by_name(twin)
    gained = [t for t, r in forged_tests.items()
              if r["status"] == "passed" and twin_tests[t]["status"] != "passed"]
    assert not gained, f"{name} passed tests its twin fails: {gained}"
    for test in STRUCTURAL:
        assert forged_tests[test]["status"] == twin_tests[test]["status"] == "failed", test
    # Where the forged probes did answer (the runtime was reachable), the source evidence is what failed.
    fooled = [t for t in STRUCTURAL if "your source never" in forged_tests[t]["message"]]
    assert all("your source never" in forged_tests[t]["messages"]["en"] for t in fooled)


@reading("forge_probes", "forge_twin")
def test_flagged_submissions_are_listed_for_review(corpus: Corpus) -> None:
    """The report (both languages) and the gradebook show the flag; an unflagged twin shows nothing."""
    from grader.report.classpages import gradebook_csv
    from grader.report.render import render_html, render_markdown

    forged, twin = corpus.get("forge_probes").results, corpus.get("forge_twin").results
    assert ("[!WARNING]" in render_markdown(forged, "en", "sub")
            and "gk\\_probes" in render_markdown(forged, "en", "sub"))
    assert "[!WARNING]" not in render_markdown(twin, "en", "sub")
    html = render_html(forged, "ko", "sub")
    assert 'id="review"' in html and "채점기 런타임의 일부인 gk_probes" in html
    assert 'id="review"' not in render_html(twin, "ko", "sub")
    from grader.engine.classmodel import model_of, row_from

    marker = {"status": "graded", "reason": "", "duration": 1.0}
    rows = [row_from(n, {**marker, "name": n, "student_id": n}, r, {}) for n, r in (("forged", forged),
                                                                                     ("twin", twin))]
    header, forged_line, twin_line = gradebook_csv(model_of(Path("."), rows)).splitlines()[:3]
    assert header.endswith(",review") and "imports gk_probes" in forged_line and twin_line.endswith(",")


# -- the uid level: root without namespaces (Docker's defaults, Gradescope) ---------------------------
FORK_BOMB = """

import os as _os  # noqa: E402
import time as _time  # noqa: E402


def sinusoidal_pe(max_len, d_model):  # forks until the kernel says no, every child too, then returns
    for _ in range(10000):
        try:
            if _os.fork() == 0:
                while True:
                    try:
                        _os.fork()
                    except OSError:
                        _time.sleep(0.05)
        except OSError:
            break
    return torch.full((max_len, d_model), 0.5, dtype=torch.float64)
"""


@pytest.mark.xdist_group("kit-seal")  # seals the checkout: see tests/test_host.py
def test_corpus_under_dockers_defaults(tmp_path: Path) -> None:
    """Reading hidden tests, fake results files, detached daemons and a fork bomb, in one `grade batch`
    inside a simulated Docker container (tests/docker_defaults.py): the `uid` level holds each."""
    import shlex
    import sys

    sys.path.insert(0, str(HERE))
    import docker_defaults

    why = docker_defaults.unavailable()
    if why:
        pytest.skip(f"cannot simulate Docker's defaults here: {why}")
    subs, out = tmp_path / "subs", tmp_path / "out"
    for name in ("leak_search", "fake_results", "detached_children"):
        shutil.copytree(ATTACKS / name, subs / name)
    marker = f"gk-attack-{secrets.token_hex(6)}"
    _substitute(subs / "detached_children", {"marker": marker, "port": 0})
    shutil.copytree(KIT / "examples" / "reference", subs / "fork_bomb")
    bomb = subs / "fork_bomb" / "embedding.py"
    bomb.write_text(bomb.read_text() + FORK_BOMB)
    argv = [sys.executable, "-m", "grader.cli", "batch", str(subs), "--out", str(out), "--public-only",
            "-k", ONE_PE, "--isolation", "uid", "-j", "2", "--lang", "en", "-q", "--call-timeout", "20"]
    done = docker_defaults.run(shlex.join(argv), timeout=pace.seconds(600), cwd=str(KIT),
                               tmp=(str(tmp_path),))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    graded = {n: json.loads((out / n / "results.json").read_text()) for n in
              ("leak_search", "fake_results", "detached_children", "fork_bomb")}
    for name, res in graded.items():
        assert res["isolation"] == "uid", name
        pe = [t for t in res["tests"] if t["task"] == PE]
        assert pe and all(t["status"] != "passed" for t in pe), name  # the attacked task earns nothing
        leet = [t for t in res["tests"] if t["task"] == LEET]
        assert leet and all(t["status"] == "passed" for t in leet), name  # the honest one keeps its points
    # nothing of the uid (daemons, the bomb's children) outlives the batch
    left = docker_defaults.worker_uid_processes(docker_defaults.mount_ns(done))
    assert not left, [(p, _proc_line(p)) for p in left]
    # the search ran as the student, and the kit was not among what it found
    # (what the search reported: results.json also quotes the student's own files, whose reversal.py is
    # the reference's, in its review section)
    text = "\n".join(m for t in graded["leak_search"]["tests"] for m in (t.get("messages") or {}).values()
                      if "LOOT:" in m)
    assert "LOOT:" in text
    solution_line = next(x for x in (KIT / "solutions" / "reversal.py").read_text().splitlines()
                         if x.startswith("def "))
    assert solution_line not in text
    for hidden in (EMBEDDING_SUITES / "hidden").glob("test_*.py"):
        first_test = next((x for x in hidden.read_text().splitlines() if x.startswith("def test_")), None)
        assert first_test is None or first_test not in text
    # fake results: printed and ignored, written nowhere the grader reads
    fake = graded["fake_results"]
    assert fake["score"] == sum(t["score"] for t in fake["tests"]) < 999
    assert not (subs / "fake_results" / "results.json").exists()


def _proc_line(pid: int) -> str:
    """A process's state, parent and command line, for a message about what outlived a grade."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "gone"
    fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
    return f"{fields.get('State', '?').strip()} ppid={fields.get('PPid', '?').strip()} {cmd[:200]}"
