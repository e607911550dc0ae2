"""`grade --ci`, the hidden-suite archive and the GitHub workflows, run for real.

Each grading runs `grade` in a subprocess, as a workflow step would, with
GITHUB_STEP_SUMMARY and GITHUB_OUTPUT pointed at temp files; module-scoped
fixtures grade each submission once.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

import pace
import pytest
import yaml

from grader.instructor import hidden_pack
from grader.instructor.lesson_release import lesson_pyproject
from grader.report import ci
from lesson_embedding_pe.paths import SUITES as EMBEDDING_SUITES
from tests.conftest import built_once

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
WORKFLOWS = ROOT / ".github" / "workflows"
GRADE = [sys.executable, "-m", "grader.cli"]
KEY = "test-passphrase-0123456789abcdef"
BOOM_LINE_TEXT = 'raise RuntimeError("boom 100% | <b>x</b>, a:b\\nsecond line")'


def run_grade(args: list[str], cwd: Path, env: dict[str, str] | None = None,
              timeout: float = 300) -> tuple[subprocess.CompletedProcess, Path, Path]:
    """Run `grade` as a CI step: (process, step summary file, output file)."""
    summary, output = cwd / "step_summary.md", cwd / "github_output.txt"
    summary.write_text("")
    output.write_text("")
    full_env = {**os.environ, "GRADE_LANG": "en", "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_OUTPUT": str(output), "PYTHONPATH": str(ROOT), **(env or {})}
    proc = subprocess.run(GRADE + args, cwd=cwd, env=full_env, capture_output=True, text=True,
                          timeout=timeout)
    return proc, summary, output


def outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def decoded_result(path: Path) -> dict:
    return json.loads(base64.b64decode(outputs(path)["result"], validate=True).decode("utf-8"))


def check_classroom_schema(result: dict, *, equal_weights: bool = True) -> None:
    """Field by field, what autograding-grading-reporter reads."""
    assert set(result) <= {"version", "status", "max_score", "tests", "message"}
    assert result["version"] == 1
    assert result["status"] in ("pass", "fail", "error")
    assert isinstance(result["max_score"], float) and result["max_score"] > 0
    assert result["tests"]
    for t in result["tests"]:
        assert set(t) <= {"name", "status", "score", "message", "line_no", "filename", "duration",
                          "test_code"}
        assert isinstance(t["name"], str) and t["name"]
        assert t["status"] in ("pass", "fail", "error")
        assert isinstance(t["score"], float) and t["score"] >= 0
        assert isinstance(t["message"], str)
        assert isinstance(t["duration"], float)
        assert "test_code" not in t  # hidden test code never leaves the grader
        if t["status"] == "pass":
            assert t["message"] == ""
        # the reporter prints a message for errors only: it says which test and why
        if t["status"] == "error":
            assert t["message"]
        # the reporter prints "line undefined" without it
        assert isinstance(t["line_no"], int) and t["line_no"] >= 0
        if t["line_no"]:
            assert t["filename"]
    assert sum(t["score"] for t in result["tests"]) <= result["max_score"]
    # every entry weighs the same, so the reporter's count-based total is the sum of the scores
    if not equal_weights:
        return
    weights = {t["score"] for t in result["tests"] if t["status"] == "pass"}
    assert len(weights) <= 1
    passed = sum(t["status"] == "pass" for t in result["tests"])
    assert (passed / len(result["tests"]) * result["max_score"]
            == pytest.approx(sum(t["score"] for t in result["tests"])))


# -- a buggy submission: the reference with one function raising at a known line -------
def _grade_buggy(repo: Path) -> None:
    ex = repo / "exercises"
    shutil.copytree(SOLUTIONS, ex, ignore=shutil.ignore_patterns("__pycache__"))
    lines = (ex / "embedding.py").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("def count_params("))
    lines.insert(at + 1, "    " + BOOM_LINE_TEXT)
    (ex / "embedding.py").write_text("\n".join(lines) + "\n")
    proc, _, _ = run_grade(["--ci", "exercises", "--out", "reports", "--fail-under", "1000"], repo)
    (repo / "proc.json").write_text(json.dumps({"args": proc.args, "returncode": proc.returncode,
                                                "stdout": proc.stdout, "stderr": proc.stderr}))
    (repo / "boom_line.txt").write_text(str(at + 2))


@pytest.fixture(scope="module")
def buggy(tmp_path_factory: pytest.TempPathFactory) -> dict:
    repo = built_once(tmp_path_factory, "ci-buggy", _grade_buggy)  # read only, by every worker
    proc = subprocess.CompletedProcess(**json.loads((repo / "proc.json").read_text()))
    results = json.loads((repo / "reports" / "results.json").read_text())
    return {"repo": repo, "proc": proc, "summary": (repo / "step_summary.md").read_text(),
            "output": repo / "github_output.txt", "results": results,
            "boom_line": int((repo / "boom_line.txt").read_text())}


def test_buggy_exit_status_follows_fail_under(buggy: dict) -> None:
    assert buggy["proc"].returncode == 1, buggy["proc"].stderr
    assert "below --fail-under 1000" in buggy["proc"].stderr


def test_location_is_carried_into_results(buggy: dict) -> None:
    failed = [t for t in buggy["results"]["tests"] if t["status"] != "passed"]
    tying = [t for t in failed if "count_params" in t["id"]]
    assert tying and all(t["location"] == {"file": "embedding.py", "line": buggy["boom_line"]} for t in tying)
    assert all("location" not in t for t in buggy["results"]["tests"] if t["status"] == "passed")


def test_annotation_points_at_the_student_line_escaped(buggy: dict) -> None:
    lines = buggy["proc"].stdout.splitlines()
    errors = [x for x in lines if x.startswith("::error ")]
    located = [x for x in errors if f"file=exercises/embedding.py,line={buggy['boom_line']}," in x]
    assert len(located) == 1, errors  # the count_params tests share one annotation
    ann = located[0]
    # message: %, CR and LF escaped; properties: also ':' and ','
    assert "title=Weight tying%3A 2 tests not passed (-2 points)::" in ann
    message = ann.split("::", 2)[2]
    assert "RuntimeError: boom 100%25 | <b>x</b>, a:b%0Asecond line" in message
    assert "\n" not in ann and "%0A(test_count_params_lesson_numbers" in message
    assert len(errors) <= ci.MAX_ERRORS
    notice = [x for x in lines if x.startswith("::notice ")]
    score, top = buggy["results"]["score"], buggy["results"]["max_score"]
    assert notice == [f"::notice title=grade%3A exercises::Score {score:g} / {top:g}"]


def test_step_summary_has_score_and_failure(buggy: dict) -> None:
    text = buggy["summary"]
    res = buggy["results"]
    assert f"{res['score']:g}" in text and f"{res['max_score']:g}" in text
    assert "count_params" in text and "RuntimeError" in text and "boom" in text
    # student text is never markup (code spans are literal)
    assert "<b>x</b>" not in re.sub(r"`[^`]*`", "", text)
    assert 0 < len(text.encode()) <= ci.SUMMARY_LIMIT


def test_classroom_result_field_by_field(buggy: dict) -> None:
    out = outputs(buggy["output"])
    assert (out["score"] == f"{buggy['results']['score']:g}"
            and out["max_score"] == f"{buggy['results']['max_score']:g}")
    result = decoded_result(buggy["output"])
    check_classroom_schema(result)
    res = buggy["results"]
    assert result["status"] == "fail"
    assert result["max_score"] == res["max_score"]
    by_name = {t["name"]: t for t in result["tests"]}
    # each test has its own entry, then its extra points
    assert set(by_name) >= {t["id"] for t in res["tests"]}
    assert sum(t["score"] for t in result["tests"]) == pytest.approx(res["score"])
    for t in res["tests"]:
        entry = by_name[t["id"]]
        assert entry["status"] == ("pass" if t["status"] == "passed" else "error")
        short = t["id"].split("::")[-1]
        extra = [e for e in result["tests"] if e["name"].endswith(f"↳ {short} (+0.25)")]
        assert len(extra) >= round(t["max_score"] / 0.25) - 1
    boom = [t for t in result["tests"] if t["name"].startswith("public/") and "count_params" in t["name"]]
    assert boom and all(t["status"] == "error" and t["score"] == 0.0 for t in boom)
    assert all(t["filename"] == "embedding.py" and t["line_no"] == buggy["boom_line"] for t in boom)
    assert all(f"(embedding.py:{buggy['boom_line']})" in t["message"] for t in boom)
    assert all("RuntimeError: boom 100% | <b>x</b>, a:b\nsecond line" in t["message"] for t in boom)


def classroom_reporter() -> Path | None:
    """The real autograding-grading-reporter's dist/main.js, when this machine has a copy.

    Not vendored: point GK_CLASSROOM_REPORTER at a checkout (or its dist/main.js), or
    keep one in ~/.cache/gk-kit/autograding-grading-reporter (docs/ci.md says how).
    """
    for base in (os.environ.get("GK_CLASSROOM_REPORTER"),
                 Path.home() / ".cache" / "gk-kit" / "autograding-grading-reporter"):
        if not base:
            continue
        base = Path(base)
        main = base if base.suffix == ".js" else base / "dist" / "main.js"
        if main.is_file():
            return main
    return None


@pytest.mark.parametrize("shared", [True, False], ids=["shared-reporter", "no-reporter"])
def test_ci_run_points_the_tests_at_the_shared_reporter(tmp_path: Path, shared: bool) -> None:
    """.ci/run makes a venv, runs the README's two lines in it and exports GK_CLASSROOM_REPORTER (absolute)
    when ../shared/ holds the built reporter, so the reporter tests run in CI instead of skipping; without
    it, nothing is set and they skip. Every program it runs is a stand-in that records its call."""
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", repo / ".ci" / "run")
    shutil.copy(ROOT / "README.md", repo / "README.md")  # the script reads its two lines there
    if shared:
        dist = tmp_path / "shared" / "classroom-reporter" / "dist"
        dist.mkdir(parents=True)
        (dist / "main.js").write_text("// the reporter\n")
    calls = tmp_path / "calls"
    record = f'echo "$(basename "$0") $* GK_CLASSROOM_REPORTER=${{GK_CLASSROOM_REPORTER:-}}" >> {calls}'
    bin_dir = tmp_path / "bin"  # only what the script needs
    bin_dir.mkdir()
    for tool in ("bash", "dirname", "rm", "sed", "awk", "basename", "mkdir", "cp"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    for tool in ("chromium", "dpkg", "capsh"):  # present: no apt-get install
        (bin_dir / tool).write_text("#!/bin/sh\nexit 0\n")
    # The base interpreter: `-c` checks pass; `-m venv DIR` makes a venv whose programs record their calls.
    programs = tmp_path / "venv-programs"
    programs.mkdir()
    for tool in ("python", "pip", "grade", "lint-imports"):
        (programs / tool).write_text(f"#!/bin/sh\n{record}\n")
        (programs / tool).chmod(0o755)
    (bin_dir / "base-python").write_text(
        f"#!/bin/sh\n{record}\n"
        'if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then\n'
        f'  mkdir -p "$3/bin" && cp {programs}/* "$3/bin/"\n'
        '  echo "PATH=\\"$(cd "$3" && pwd)/bin:\\$PATH\\"" > "$3/bin/activate"\n'
        "fi\n")
    for tool in ("chromium", "dpkg", "capsh", "base-python"):
        (bin_dir / tool).chmod(0o755)
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path), "GK_CI_BASE_PYTHON": str(bin_dir / "base-python")}
    proc = subprocess.run(["bash", str(repo / ".ci" / "run")], env=env, capture_output=True, text=True,
                          timeout=pace.seconds(60))
    assert proc.returncode == 0, proc.stderr
    said = calls.read_text().splitlines()
    made = next(i for i, c in enumerate(said) if c.startswith("base-python -m venv .venv"))
    assert not [c for c in said[:made] if c.startswith(("pip", "python"))], "nothing before the venv"
    lines = [c.rsplit(" GK_CLASSROOM_REPORTER=", 1)[0].strip() for c in said[made + 1:]]
    first = lines.index("pip install -e . -e ./lessons/embedding-pe")  # the README's first line, as written
    assert lines[first + 1] == "grade batch examples --out reports/examples"
    assert lines[first + 2] == "pip install -e .[test] -e ./lessons/embedding-pe -e ./lessons/attention"
    assert lines[first + 3] == "python -m pytest -n 3"  # the README's test command
    assert lines.index("lint-imports") > first + 3 and lines[-1].startswith(
        "python -m pytest tests/test_reuse_property.py")  # the docs and contracts, then the property job
    expected = str(tmp_path / "shared" / "classroom-reporter" / "dist" / "main.js") if shared else ""
    assert all(c.endswith(f"GK_CLASSROOM_REPORTER={expected}") for c in said[made:]), said


def run_reporter(encoded: str, runner: str = "grade") -> subprocess.CompletedProcess:
    main, node = classroom_reporter(), shutil.which("node")
    if main is None or node is None:
        pytest.skip("the real Classroom reporter needs node and a copy of autograding-grading-reporter "
                    "(GK_CLASSROOM_REPORTER or ~/.cache/gk-kit/autograding-grading-reporter)")
    env = {"PATH": os.environ.get("PATH", ""), "INPUT_RUNNERS": runner, f"{runner.upper()}_RESULTS": encoded}
    return subprocess.run([node, str(main)], env=env, capture_output=True, text=True,
                          timeout=pace.seconds(60))


def test_real_classroom_reporter_shows_one_total_lines_and_reasons(buggy: dict) -> None:
    res = buggy["results"]
    proc = run_reporter(outputs(buggy["output"])["result"])
    text = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout)
    assert "undefined" not in text and "NaN" not in text
    total = f"{res['score']:g}/{res['max_score']:g}"
    assert f"Total points for grade: {res['score']:.2f}/{res['max_score']:g}" in text
    assert f"::notice title=Autograding complete::Points {total}" in text  # what Classroom records
    table_total = re.search(r"Total:\s*│\s*([0-9.]+)\s*│\s*([0-9.]+)", text)
    assert table_total and float(table_total.group(1)) == pytest.approx(res["score"])
    for t in res["tests"]:
        if t["status"] == "passed":
            assert f"✅ {t['id']}" in text
        else:  # which test, where, and why
            loc = t.get("location") or {}
            line = next(x for x in text.splitlines() if f"❌ {t['id']}" in x)
            assert shown_first_words(t) in line, line
            if loc.get("file"):
                assert f"({loc['file']}:{loc['line']})" in line
    assert "::error::Some tests failed." in text


def shown_first_words(t: dict) -> str:
    return ci.shown_message(t, "en").replace("\r", "")[:40].split("\n")[0]


def test_real_classroom_reporter_on_a_hidden_grade() -> None:
    """The hidden workflow's runner: hidden tests' details withheld, the same one total."""
    tests = [{"id": f"{suite}/test_x.py::test_{i}", "task": "sinusoidal_pe", "status": status, "score": score,
              "max_score": pts, "visibility": "after_published" if suite == "hidden" else "visible",
              "message": "secret detail", "messages": {"en": "secret detail", "ko": "비밀"}, "duration": 0.1}
             for i, (suite, status, score, pts) in enumerate([("public", "passed", 1.0, 1.0),
                                                               ("hidden", "failed", 0.0, 3.0),
                                                               ("hidden", "passed", 0.5, 0.5),
                                                               ("public", "failed", 0.0, 0.25)])]
    results = {"submission": "s", "score": 1.5, "max_score": 4.75, "lang": "en", "tests": tests}
    proc = run_reporter(ci.encode_result(results), runner="hidden")
    text = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout)
    assert "Total points for hidden: 1.50/4.75" in text and "Points 1.5/4.75" in text
    hidden_line = next(x for x in text.splitlines() if "❌ hidden/test_x.py::test_1" in x)
    assert "secret" not in hidden_line and "Hidden test" in hidden_line


# -- the exit status, on a quick run (-k) ---------------------------------------------------
@pytest.mark.parametrize("extra, expected", [
    (["--ci", "--fail-under", "2"], 0),      # 2 / 2: met
    (["--fail-under", "2.5"], 1),            # not met; also without --ci
])
def test_fail_under_exit_status(tmp_path: Path, extra: list[str], expected: int) -> None:
    proc, _, output = run_grade([str(SOLUTIONS), "-q", "-k", "count_params", "--out", "out", *extra],
                                tmp_path)
    assert proc.returncode == expected, proc.stderr
    if "--ci" in extra:
        result = decoded_result(output)
        check_classroom_schema(result)
        assert result["status"] == "pass" and result["max_score"] == 2.0
        assert [x for x in proc.stdout.splitlines() if x.startswith("::error")] == []


def test_finish_exit_status_boundaries(buggy: dict, tmp_path: Path) -> None:
    env = {"GITHUB_OUTPUT": str(tmp_path / "o"), "GITHUB_STEP_SUMMARY": str(tmp_path / "s")}
    res, sink = buggy["results"], io.StringIO()
    common = {"sub_path": buggy["repo"] / "exercises", "out": tmp_path, "lang": "en", "env": env,
              "stream": sink}
    assert ci.finish(res, fail_under=None, **common) == 0  # grading ran: 0, whatever the score
    assert ci.finish(res, fail_under=res["score"], **common) == 0  # exactly the threshold passes
    assert ci.finish(res, fail_under=res["score"] + 0.25, **common) == 1
    assert ci.finish(res, fail_under=0, exit_status=2, **common) == 2  # unreadable stays 2
    assert len((tmp_path / "o").read_text().splitlines()) == 4 * 3  # result, score, max_score each time


def test_unreadable_submission_reports_error(tmp_path: Path) -> None:
    (tmp_path / "broken.zip").write_bytes(b"not a zip at all")
    proc, summary, output = run_grade(["--ci", "broken.zip", "--out", "out"], tmp_path)
    assert proc.returncode == 2
    result = decoded_result(output)
    assert result["status"] == "error" and result["message"]
    (entry,) = result["tests"]  # one entry: the reporter divides by len(tests)
    assert entry["status"] == "error" and entry["score"] == 0.0 and "zip" in entry["message"]
    assert "could not be read" in summary.read_text()


# -- unit checks of the formats ---------------------------------------------------------------
def test_workflow_command_escaping() -> None:
    line = ci.command("error", "50% done\r\nnext", file="a,b:c.py", line=3, title="x")
    assert line == "::error file=a%2Cb%3Ac.py,line=3,title=x::50%25 done%0D%0Anext"


def test_summary_and_result_stay_within_github_limits() -> None:
    long = {"schema": 1, "submission": "s", "score": 0.0, "max_score": 2000.0, "suites": ["public"],
            "isolation": "process", "lang": "en", "tasks": {},
            "tests": [{"id": f"public/test_x.py::test_{i}", "task": "sinusoidal_pe", "status": "failed",
                       "score": 0.0, "max_score": 1.0, "visibility": "visible", "message": "é" * 5000,
                       "messages": {"en": "é" * 5000, "ko": "é" * 5000}, "duration": 0.1}
                       for i in range(2000)]}
    text = ci.fit_summary(ci.compact_markdown(long, "en"))
    assert len(text.encode("utf-8")) <= ci.SUMMARY_LIMIT and "truncated" in text
    for n, shape in ((150, "per test"), (4000, "per task")):
        many = {**long, "max_score": float(n),
                "tests": [{**long["tests"][0], "id": f"public/test_x.py::test_{i}",
                                   "task": ("sinusoidal_pe", "weight_tying")[i % 2],
                                   "status": "passed" if i % 3 else "failed",
                                   "score": 0.0 if i % 3 == 0 else 1.0}
                                  for i in range(n)]}
        encoded = ci.encode_result(many)
        assert len(encoded) <= ci.RESULT_LIMIT
        result = json.loads(base64.b64decode(encoded))
        check_classroom_schema(result, equal_weights=shape == "per test")
        assert sum(t["score"] for t in result["tests"]) == sum(t["score"] for t in many["tests"])
        heads = [t for t in result["tests"] if not t["name"].lstrip().startswith("↳")]
        assert len(heads) == (n if shape == "per test" else 2)
        if shape == "per test":
            assert 0 < len(result["tests"][0]["message"]) < 5000  # shortened, not dropped


def test_hidden_details_withheld_unless_visible() -> None:
    t = {"id": "hidden/test_a.py::test_b", "status": "failed", "visibility": "after_published",
         "message": "secret detail", "messages": {"en": "secret detail", "ko": "비밀"}}
    assert "secret" not in ci.shown_message(t, "en") and "비밀" not in ci.shown_message(t, "ko")
    assert ci.shown_message({**t, "visibility": "visible"}, "ko") == "비밀"


# -- the hidden-suite archive -------------------------------------------------------------------
ARCHIVE_TEST = '''
import pytest
import torch

from lesson_embedding_pe import reference
from grader.core.feedback import expect


@pytest.mark.task("sinusoidal_pe", points=3)
def test_reference_comes_from_the_archive(student):
    ref = reference.load().embedding
    expect(getattr(ref, "GK_ARCHIVE_MARK", None) == "sealed", "reference not from the archive", \
"아카이브 참조 아님")
    got = student.call("sinusoidal_pe", 6, 8)
    expect(torch.allclose(got, ref.sinusoidal_pe(6, 8)), "values differ", "값이 다릅니다")
'''


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """An archive of a one-test hidden suite and marked solutions, sealed by `grade pack-hidden`."""
    src = tmp_path_factory.mktemp("hidden_src")
    (src / "hidden").mkdir()
    (src / "hidden" / "test_archive.py").write_text(ARCHIVE_TEST)
    shutil.copytree(SOLUTIONS, src / "solutions", ignore=shutil.ignore_patterns("__pycache__"))
    with open(src / "solutions" / "embedding.py", "a") as f:
        f.write('\nGK_ARCHIVE_MARK = "sealed"\n')
    archive = src / "hidden.gkpack"
    proc = subprocess.run(GRADE + ["pack-hidden", str(archive), "--key-env", "MY_KEY", "--hidden",
                                   str(src / "hidden"), "--solutions", str(src / "solutions")],
                          env={**os.environ, "MY_KEY": KEY, "PYTHONPATH": str(ROOT)}, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    return {"archive": archive, "src": src, "stdout": proc.stdout}


def test_archive_reveals_nothing_in_clear(sealed: dict) -> None:
    blob = sealed["archive"].read_bytes()
    assert blob.startswith(hidden_pack.MAGIC)
    for needle in (b"test_reference_comes_from_the_archive", b"GK_ARCHIVE_MARK", b"sinusoidal_pe", b"import"):
        assert needle not in blob
    n_solutions = len([p for p in SOLUTIONS.iterdir() if p.is_file() and p.suffix != ".pyc"])
    assert f"sealed {1 + n_solutions} files" in sealed["stdout"]


def test_hidden_from_runs_the_archive_with_its_solutions(sealed: dict, tmp_path: Path) -> None:
    (tmp_path / "tmp").mkdir()
    proc, summary, output = run_grade(
        ["--ci", str(SOLUTIONS), "--hidden-from", str(sealed["archive"]), "--key-env", "MY_KEY",
         "-k", "archive or count_params", "--out", "out", "--hidden-visibility", "visible"],
        tmp_path, env={"MY_KEY": KEY, "TMPDIR": str(tmp_path / "tmp")})
    assert proc.returncode == 0, proc.stderr
    res = json.loads((tmp_path / "out" / "results.json").read_text())
    assert res["suites"] == ["public", "hidden"]
    ids = {t["id"]: t for t in res["tests"]}
    hidden = ids["hidden/test_archive.py::test_reference_comes_from_the_archive"]
    assert hidden["status"] == "passed" and hidden["score"] == 3.0, hidden
    assert res["score"] == res["max_score"] == 5.0
    assert not list((tmp_path / "tmp").glob("gk-hidden-*"))  # decrypted copy removed at exit
    assert decoded_result(output)["status"] == "pass"
    if res["isolation"] != "namespaces":  # the workflow must not silently run hidden tests unprotected
        assert any(x.startswith("::warning ") and "namespace" in x for x in proc.stdout.splitlines())


def _tampered(blob: bytes, at: int) -> bytes:
    b = bytearray(blob)
    b[at] ^= 0x01
    return bytes(b)


def test_open_sealed_rejects_wrong_key_and_tampering(sealed: dict) -> None:
    blob = sealed["archive"].read_bytes()
    assert hidden_pack.open_sealed(blob, KEY)[:2] == b"\x1f\x8b"  # gzip
    with pytest.raises(hidden_pack.HiddenArchiveError, match="wrong key"):
        hidden_pack.open_sealed(blob, KEY + "x")
    # tag, body, nonce
    for at in (len(blob) - 1, len(blob) // 2, hidden_pack.HEADER + 1, hidden_pack.HEADER - 1):
        with pytest.raises(hidden_pack.HiddenArchiveError, match="modified or damaged"):
            hidden_pack.open_sealed(_tampered(blob, at), KEY)
    with pytest.raises(hidden_pack.HiddenArchiveError, match="not a hidden-suite archive"):
        hidden_pack.open_sealed(b"PK\x03\x04" + blob[4:], KEY)
    with pytest.raises(hidden_pack.HiddenArchiveError, match="not a hidden-suite archive"):
        hidden_pack.open_sealed(blob[:30], KEY)
    with pytest.raises(hidden_pack.HiddenArchiveError, match="tampered"):
        hidden_pack.open_sealed(blob[:8] + bytes([40]) + blob[9:], KEY)  # scrypt cost forged upwards


@pytest.mark.parametrize("case", ["wrong_key", "tampered", "no_key", "missing_file"])
def test_hidden_from_errors_are_one_line_exit_2(sealed: dict, tmp_path: Path, case: str) -> None:
    archive, env = sealed["archive"], {"MY_KEY": KEY}
    if case == "wrong_key":
        env = {"MY_KEY": "not-the-right-passphrase"}
    elif case == "tampered":
        blob = archive.read_bytes()
        archive = tmp_path / "t.gkpack"
        archive.write_bytes(_tampered(blob, len(blob) - 40))
    elif case == "no_key":
        env = {"MY_KEY": ""}
    elif case == "missing_file":
        archive = tmp_path / "absent.gkpack"
    proc, _, _ = run_grade([str(SOLUTIONS), "--hidden-from", str(archive), "--key-env", "MY_KEY",
                            "--out", "out"],
                           tmp_path, env=env)
    assert proc.returncode == 2
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("grade: --hidden-from: "), err
    assert {"wrong_key": "wrong key", "tampered": "modified or damaged", "no_key": "key is missing",
            "missing_file": "cannot read"}[case] in err
    assert re.search("[가-힣]", err)  # bilingual
    assert not (tmp_path / "out" / "results.json").exists()


def test_pack_hidden_refuses_short_key_and_empty_suite(tmp_path: Path, sealed: dict) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    short = subprocess.run(GRADE + ["pack-hidden", str(tmp_path / "a.gkpack"),
                                    "--hidden", str(sealed["src"] / "hidden"),
                                    "--solutions", str(sealed["src"] / "solutions")],
                           env={**env, "GK_HIDDEN_KEY": "short"}, capture_output=True, text=True)
    assert short.returncode == 2 and "too short" in short.stderr
    (tmp_path / "empty").mkdir()
    empty = subprocess.run(GRADE + ["pack-hidden", str(tmp_path / "b.gkpack"), "--hidden",
                                    str(tmp_path / "empty")],
                           env={**env, "GK_HIDDEN_KEY": KEY}, capture_output=True, text=True)
    assert empty.returncode == 2 and "no hidden tests" in empty.stderr
    assert not (tmp_path / "a.gkpack").exists() and not (tmp_path / "b.gkpack").exists()


# -- the workflow files ---------------------------------------------------------------------------
def load_workflow(name: str) -> dict:
    doc = yaml.safe_load((WORKFLOWS / name).read_text())
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads a bare `on:` as True
    return doc


def secret_refs(node: object) -> list[str]:
    text = json.dumps(node)
    return re.findall(r"secrets\.[A-Za-z_]+", text)


def test_student_workflow_triggers_and_permissions() -> None:
    wf = load_workflow("grade.yml")
    assert set(wf["on"]) == {"pull_request", "workflow_dispatch"}
    assert wf["permissions"] == {"contents": "read"}
    grade = wf["jobs"]["grade"]
    assert grade["permissions"] == {"contents": "read"}
    assert not secret_refs(wf)  # student code runs here: nothing secret in reach
    steps = grade["steps"]
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["persist-credentials"] is False
    setup = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup["with"]["cache"] == "pip" and setup["with"]["cache-dependency-path"] == "pyproject.toml"
    assert any("grade --ci" in s.get("run", "") for s in steps)
    assert "download.pytorch.org/whl/cpu" in json.dumps(steps)  # the small CPU wheel, cached
    # Classroom's reporter runs in a job of its own that runs no student code.
    report = wf["jobs"]["classroom"]
    assert report["name"] == "Autograding Tests" and report["needs"] == "grade"
    assert all("run" not in s for s in report["steps"])
    assert report["permissions"] == {"contents": "read"}  # the reporter only prints notices
    assert "needs.grade.outputs.result" in json.dumps(report["steps"])


PINNED = re.compile(r"^\s*(?:-\s*)?uses:\s*[\w.-]+/[\w./-]+@[0-9a-f]{40} # v[0-9.]+$")


@pytest.mark.parametrize("name", ["grade.yml", "grade-hidden.yml", "batch-shards.yml"])
def test_workflows_pinned_least_privilege_and_serialised(name: str) -> None:
    text = (WORKFLOWS / name).read_text()
    uses = [line for line in text.splitlines() if re.match(r"^\s*(?:-\s*)?uses:", line)]
    assert uses and all(PINNED.match(line) for line in uses), [u for u in uses if not PINNED.match(u)]
    wf = load_workflow(name)
    assert wf["permissions"] == {"contents": "read"} and "concurrency" in wf
    for job in wf["jobs"].values():
        assert "write" not in json.dumps(job.get("permissions", {}))
        for step in job["steps"]:
            assert "secrets." not in step.get("run", "")  # secrets reach a shell only through env
            assert "${{" not in step.get("run", ""), step  # and so does every other expression


def test_zizmor_offline_is_clean() -> None:
    """Only the documented pull_request_target is waived, by an inline comment saying why."""
    zizmor = shutil.which("zizmor")
    if zizmor is None:
        pytest.skip("zizmor is not installed (pip install zizmor; it is in the test extra)")
    proc = subprocess.run([zizmor, "--offline", "--persona", "pedantic", "--format", "plain", str(WORKFLOWS)],
                          capture_output=True, text=True, timeout=pace.seconds(120))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    waived = [line for f in WORKFLOWS.glob("*.yml") for line in f.read_text().splitlines()
              if "zizmor: ignore" in line]
    assert (len(waived) == 1 and "pull_request_target:" in waived[0]
            and "ignore[dangerous-triggers]" in waived[0])


def test_trusted_workflow_never_runs_pr_code_and_confines_the_secret() -> None:
    wf = load_workflow("grade-hidden.yml")
    assert set(wf["on"]) == {"pull_request_target", "workflow_dispatch"}
    assert "pull_request" not in wf["on"]
    assert wf["permissions"] == {"contents": "read"}
    job, report = wf["jobs"]["hidden"], wf["jobs"]["classroom"]
    assert job["permissions"] == {"contents": "read"}
    # the hidden grade's points go to Classroom's reporter, in a job that runs nothing of the PR
    assert report["needs"] == "hidden" and report["permissions"] == {"contents": "read"}
    assert all("run" not in s for s in report["steps"]) and not secret_refs(report)
    assert "needs.hidden.outputs.result" in json.dumps(report["steps"]) and job["outputs"]["result"]
    assert (not secret_refs({k: v for k, v in wf.items() if k != "jobs"})
            and not secret_refs(job.get("env", {})))
    steps = job["steps"]
    checkouts = [s for s in steps if s.get("uses", "").startswith("actions/checkout@")]
    kit, sub = checkouts
    assert kit["with"]["path"] == "kit" and "base.sha" in kit["with"]["ref"]
    assert sub["with"]["path"] == "submission" and "head.sha" in sub["with"]["ref"]
    assert all(c["with"]["persist-credentials"] is False for c in checkouts)
    grading = [s for s in steps if "GK_HIDDEN_KEY" in json.dumps(s)]
    assert len(grading) == 1 and grading[0]["env"] == {"GK_HIDDEN_KEY": "${{ secrets.GK_HIDDEN_KEY }}"}
    for s in steps:
        refs = secret_refs(s)
        if s is grading[0]:
            assert refs == ["secrets.GK_HIDDEN_KEY"]
        elif refs:  # only a checkout's read token, never in a step that runs a shell
            assert s.get("uses", "").startswith("actions/checkout@") and "run" not in s, s
        run = s.get("run", "")
        assert "github.event" not in run and "inputs." not in run  # no PR-controlled text in a shell
        if s is not grading[0]:
            assert "submission" not in run  # nothing of the PR is installed or executed
    install = next(s for s in steps if "pip install" in s.get("run", ""))
    assert "-e ./kit" in install["run"]
    cmd = grading[0]["run"]
    assert ("--hidden-from" in cmd and "--isolation namespaces" in cmd
            and grading[0]["working-directory"] == "submission")


# -- the student workflow, step by step, on a sample student repository -------------------------
def make_student_repo(into: Path) -> Path:
    """What a student gets: the kit without hidden tests or solutions, exercises solved."""
    repo = into / "student"
    repo.mkdir()
    shutil.copy2(ROOT / "pyproject.toml", repo / "pyproject.toml")
    readme = ROOT / "README.md"
    (repo / "README.md").write_text(readme.read_text() if readme.is_file() else "# Lesson kit\n")
    shutil.copytree(ROOT / "grader", repo / "grader",
                    ignore=shutil.ignore_patterns("__pycache__", "hidden"))
    # the lesson beside the kit, as a release ships it: its package without the hidden suite, registered
    shutil.copytree(EMBEDDING_SUITES.parent, repo / "lesson_embedding_pe",
                    ignore=shutil.ignore_patterns("__pycache__", "hidden", "exercises", "solutions"))
    (repo / "lesson_embedding_pe" / "suites" / "hidden").mkdir()
    (repo / "pyproject.toml").write_text(lesson_pyproject("embedding-pe", "lesson_embedding_pe"),
                                         encoding="utf-8")
    if (ROOT / "templates").is_dir():
        shutil.copytree(ROOT / "templates", repo / "templates")
    shutil.copytree(ROOT / ".github", repo / ".github")
    shutil.copytree(SOLUTIONS, repo / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    log = ROOT / "examples" / "reference" / "LEETCODE_LOG.md"
    if log.is_file():
        shutil.copy2(log, repo / "exercises" / "LEETCODE_LOG.md")
    git = ["git", "-c", "user.name=Student", "-c", "user.email=s@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(git + ["-C", str(repo), "add", "-A"], check=True)
    subprocess.run(git + ["-C", str(repo), "commit", "-q", "-m", "my solution"], check=True)
    return repo


@pytest.fixture(scope="module")
def workflow_run(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> dict:
    """Run grade.yml's `run` steps in order, as the runner would (bash -e), skipping `uses` steps.

    setup-python's role is played by a virtual environment that sees this machine's
    packages (no network here): `pip install .` then installs the student's kit into it.
    """
    tmp = tmp_path_factory.mktemp("workflow")
    repo = make_student_repo(tmp)
    # Not under /tmp: the namespaces sandbox mounts a private /tmp over it and would hide the interpreter.
    env_dir = Path(tempfile.mkdtemp(prefix="gk-ci-venv-",
                                    dir="/var/tmp" if os.path.isdir("/var/tmp") else None))
    env_dir.chmod(0o755)  # the sandboxed worker runs this interpreter as another uid
    request.addfinalizer(lambda: shutil.rmtree(env_dir, ignore_errors=True))
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    see_this_interpreters_packages(env_dir)
    wf = load_workflow("grade.yml")
    job = wf["jobs"]["grade"]
    summary, output = tmp / "step_summary.md", tmp / "github_output.txt"
    summary.write_text("")
    output.write_text("")
    base_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GRADE_LANG")}
    base_env.update({k: str(v) for k, v in {**wf.get("env", {}), **job.get("env", {})}.items()})
    base_env.update({"PATH": f"{env_dir / 'bin'}:{os.environ['PATH']}", "VIRTUAL_ENV": str(env_dir),
                     "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output),
                     "GITHUB_WORKSPACE": str(repo), "CI": "true", "GITHUB_ACTIONS": "true",
                     "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0"})  # offline: reuse what is installed
    ran, skipped = [], []
    for step in job["steps"]:
        if "uses" in step:
            skipped.append(step["uses"].split("@")[0])
            continue
        assert "${{" not in step["run"], "a run step must take its inputs from env, not expressions"
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                              cwd=repo / step.get("working-directory", "."),
                              env={**base_env, **{k: str(v) for k, v in step.get("env", {}).items()}},
                              capture_output=True, text=True, timeout=pace.seconds(600))
        ran.append({"name": step.get("name"), "proc": proc})
        if proc.returncode != 0:
            break
    return {"repo": repo, "env_dir": env_dir, "ran": ran, "skipped": skipped, "summary": summary.read_text(),
            "output": output}


def see_this_interpreters_packages(env_dir: Path) -> None:
    """A venv made from inside a venv is built on the *base* interpreter: its "system" packages
    are the base's, which may lack torch. A .pth file adds this interpreter's site-packages too."""
    import site
    import sysconfig

    if sys.prefix == sys.base_prefix:
        return
    # every package folder this interpreter sees, those a .pth of its own chains in included
    seen = [p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")]
    paths = [p for p in [*site.getsitepackages(), sysconfig.get_paths()["purelib"], *seen]
             if os.path.isdir(p)]
    # the base's own packages first (as --system-site-packages gives them), then what only this env has
    # (torch in a plain venv): a fresh venv's old bundled setuptools must not shadow the base's
    paths.sort(key=lambda p: not p.startswith(sys.base_prefix))
    (target,) = {Path(p) for p in (env_dir / "lib").glob("python*/site-packages")}
    (target / "gk-outer-env.pth").write_text("\n".join(dict.fromkeys(paths)) + "\n")


def test_workflow_steps_run_in_order(workflow_run: dict) -> None:
    for r in workflow_run["ran"]:
        assert r["proc"].returncode == 0, (r["name"], r["proc"].stdout[-3000:], r["proc"].stderr[-3000:])
    assert workflow_run["skipped"] == ["actions/checkout", "actions/setup-python", "actions/upload-artifact"]
    names = [r["name"] for r in workflow_run["ran"]]
    assert names == ["Install the kit (CPU-only torch)", "Grade"]
    # the grade that ran is the student's installed copy, not this checkout
    grade_bin = workflow_run["env_dir"] / "bin" / "grade"
    assert grade_bin.is_file()


def test_workflow_grades_the_student_repo(workflow_run: dict) -> None:
    repo = workflow_run["repo"]
    results = json.loads((repo / "reports" / "results.json").read_text())
    assert results["suites"] == ["public"] and results["max_score"] > 0
    # The code is the reference: every code test passes (the LeetCode log is another helper's sample prose).
    code = [t for t in results["tests"] if t["task"] != "leetcode_log"]
    assert code and all(t["status"] == "passed" for t in code), [t for t in code if t["status"] != "passed"]
    assert results["lang"] == "ko"  # the workflow's GRADE_LANG
    grade_out = workflow_run["ran"][-1]["proc"].stdout
    errors = [x for x in grade_out.splitlines() if x.startswith("::error")]
    # one annotation per student location (every failure has one), each on a file of the repo
    locations = {(t["location"]["file"], t["location"]["line"]) for t in results["tests"]
                 if t["status"] != "passed"}
    assert len(errors) == min(len(locations), ci.MAX_ERRORS)
    assert all(x.startswith("::error file=exercises/") and ",line=" in x for x in errors)
    assert (f"::notice title=grade%3A exercises::점수 {results['score']:g} / {results['max_score']:g}"
            in grade_out)
    result = decoded_result(workflow_run["output"])
    check_classroom_schema(result)
    assert result["max_score"] == results["max_score"]
    assert sum(t["score"] for t in result["tests"]) == pytest.approx(results["score"])
    assert result["status"] == ("pass" if results["score"] == results["max_score"] else "fail")
    assert all(t["status"] == "pass" and t["message"] == "" for t in result["tests"]
               if "test_log" not in t["name"])
    # the real reporter, where this machine has it: one total, no "line undefined"
    if classroom_reporter() and shutil.which("node"):
        text = run_reporter(outputs(workflow_run["output"])["result"]).stdout
        assert "undefined" not in text and f"Points {results['score']:g}/{results['max_score']:g}" in text
    assert f"{results['score']:g}" in workflow_run["summary"]
