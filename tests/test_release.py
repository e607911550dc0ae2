"""The student release, the lesson notebook, and the Gradescope autograder bundle.

The release is written by the real command and then searched, independently
of release.py's own scan, for every hidden test name and every distinctive
line of the solutions; its `grade` is run from the release folder on the stubs
and on the notebook. The Gradescope bundle is unpacked into a local copy of
Gradescope's /autograder layout and its run_autograder is run there.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pace
import pytest

from grader.engine.runner import GradeOptions, grade_path
from grader.instructor import release
from grader.instructor.lesson_release import scan_lesson_release
from lesson_embedding_pe import LESSON
from lesson_embedding_pe.notebook import build_notebook, write_notebook
from lesson_embedding_pe.paths import SUITES

ROOT = Path(__file__).resolve().parent.parent
HIDDEN = SUITES / "hidden"
PUBLIC = SUITES / "public"
STUB_NAMES = {"sinusoidal_pe", "TokenAndPosEmbedding", "TinyLM", "count_params", "equivariance_error",
              "make_batch", "ReversalModel", "train_reversal", "evaluate", "run_experiment",
              "my_pow", "count_primes", "is_happy", "int_to_roman"}


def _defs(folder: Path, prefix: str = "test_") -> set[str]:
    names = set()
    for f in folder.glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith(prefix):
                names.add(node.name)
    return names


def _release_text(root: Path) -> dict[str, str]:
    out = {}
    for f in root.rglob("*"):
        if f.is_file():
            text = f.read_bytes().decode("utf-8", "replace")
            if f.suffix == ".ipynb":  # JSON escapes quotes: search the cells as written
                text += "\n" + "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells)
            out[f.relative_to(root).as_posix()] = text
    return out


# `pip install -e .` of the instructor checkout (as here and in CI) installs a finder that serves any
# grader.* module from that checkout, instructor/ included; a student's machine has only the release.
RELEASE_ONLY = (
    "import runpy, sys\n"
    "sys.meta_path[:] = [f for f in sys.meta_path\n"
    "                    if not getattr(f, '__module__', '').startswith('__editable__')]\n"
    "runpy.run_module('grader.cli', run_name='__main__', alter_sys=True)\n"
)


def run_released(release_dir: Path, *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    """The release's own `grade`, from its folder, with nothing of the instructor copy on the path."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(release_dir)
    return subprocess.run([sys.executable, "-c", RELEASE_ONLY, *args], cwd=release_dir, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("release") / "student-kit"
    proc = subprocess.run([sys.executable, "-m", "grader.cli", "release", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=pace.seconds(120))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "scanned clean" in proc.stdout
    return out


# -- what the release holds ----------------------------------------------------------------------


def test_release_layout(released: Path) -> None:
    for rel in ("exercises/embedding.py", "exercises/reversal.py", "exercises/leetcode.py",
                "exercises/LEETCODE_LOG.md", "lesson.ipynb", "README.md", "pyproject.toml",
                "grader/cli.py", "lesson_embedding_pe/suites/pytest.ini", "templates/summary.html.j2"):
        assert (released / rel).is_file(), rel
    assert {p.name for p in (released / "lesson_embedding_pe/suites/public").glob("test_*.py")} == \
        {p.name for p in PUBLIC.glob("test_*.py")}
    # not even empty: nothing of the instructor's
    assert not (released / "lesson_embedding_pe/suites/hidden").exists()
    for absent in ("solutions", "examples", "tests", "bench", ".github", "lesson_attention",
                   "lesson_embedding_pe/solutions", "grader/suites", "grader/lesson"):
        assert not (released / absent).exists(), absent
    assert not list(released.rglob("__pycache__"))
    # The student's tool is the grader without instructor/: no batch, merge, bundle, sealing.
    assert not (released / "grader" / "instructor").exists()
    instructor_modules = {p.stem for p in (ROOT / "grader" / "instructor").glob("*.py")} - {"__init__"}
    shipped = {p.stem for p in (released / "grader").rglob("*.py")}
    assert instructor_modules and not instructor_modules & shipped, instructor_modules & shipped
    pyproject = (released / "pyproject.toml").read_text()
    assert 'include = ["grader*", "lesson_embedding_pe*"]' in pyproject and "solutions" not in pyproject
    assert "lesson_attention" not in pyproject  # the release carries only its lesson
    # the instructor's own settings stay home: import contracts (they name grader.instructor), tests
    assert "importlinter" not in pyproject and "lint-imports" not in pyproject
    assert "grader.instructor" not in pyproject and "tests/corpus" not in pyproject
    assert 'grade = "grader.cli:program"' in pyproject
    readme = (released / "README.md").read_text(encoding="utf-8")
    assert "hidden tests run on the grading server when you submit" in readme
    assert "숨은 테스트는 제출할 때" in readme
    assert "grade --stop-daemon" in readme and "상주 채점기" in readme  # the warm grader


def test_release_holds_no_hidden_test_name(released: Path) -> None:
    names = _defs(HIDDEN) - _defs(PUBLIC)
    if not names:
        pytest.skip("this copy has no hidden suite to hide")
    pattern = re.compile(r"\b(" + "|".join(sorted(names)) + r")\b")
    leaks = {rel: sorted(set(pattern.findall(text))) for rel, text in _release_text(released).items()}
    assert {rel: found for rel, found in leaks.items() if found} == {}


def test_release_holds_no_solution_body(released: Path) -> None:
    """Distinctive solution lines: not in the stubs, and not shared by the grader's public code."""
    shared = set()
    for f in [*ROOT.joinpath("exercises").glob("*"), *ROOT.joinpath("grader").rglob("*.py"),
              *SUITES.parent.rglob("*.py")]:
        if f.is_file() and HIDDEN not in f.parents:
            shared.update(ln.strip() for ln in f.read_text(encoding="utf-8", errors="replace").splitlines())
    lines = {ln.strip() for f in ROOT.joinpath("solutions").glob("*.py")
             for ln in f.read_text(encoding="utf-8").splitlines()}
    distinctive = {ln for ln in lines
                   if len(ln) >= 30 and not ln.startswith(("import ", "from ")) and ln not in shared}
    assert len(distinctive) > 20, "the reference should have plenty of lines of its own"
    found = {rel: sorted(distinctive & {ln.strip() for ln in text.splitlines()})
             for rel, text in _release_text(released).items()}
    assert {rel: hits for rel, hits in found.items() if hits} == {}
    assert release.scan_release(released) == []
    assert scan_lesson_release(released, "lesson_embedding_pe", LESSON) == []


def test_the_scan_catches_a_planted_leak(released: Path, tmp_path: Path) -> None:
    """The scan is not vacuous: a solution and a hidden test copied into a release are both found."""
    copy = tmp_path / "leaky"
    shutil.copytree(released, copy)
    shutil.copy(ROOT / "solutions" / "embedding.py", copy / "exercises" / "embedding.py")
    hidden_file = next(iter(sorted(HIDDEN.glob("test_*.py"))), None)
    if hidden_file is not None:
        shutil.copy(hidden_file, copy / "lesson_embedding_pe" / "suites" / "public" / "test_extra.py")
    findings = scan_lesson_release(copy, "lesson_embedding_pe", LESSON)
    assert any("exercises/embedding.py: holds a private line" in f for f in findings)
    if hidden_file is not None:
        assert any("test_extra.py: names the hidden test" in f for f in findings)


def test_release_refuses_a_non_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    proc = subprocess.run([sys.executable, "-m", "grader.cli", "release", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=pace.seconds(60))
    assert proc.returncode == 2 and "--force" in proc.stderr and "비어 있지 않습니다" in proc.stderr
    assert (tmp_path / "keep.txt").read_text() == "mine"


# -- the released grade --------------------------------------------------------------------------


def test_released_grade_works_on_the_stubs(released: Path, tmp_path: Path) -> None:
    where = subprocess.run([sys.executable, "-c", "import grader; print(grader.__file__)"], cwd=released,
                           env={**os.environ, "PYTHONPATH": str(released)}, capture_output=True, text=True)
    assert where.stdout.strip().startswith(str(released)), where.stdout
    proc = run_released(released, "--out", str(tmp_path / "r"), "-q", "-k", "test_pe", "--lang", "en")
    assert proc.returncode == 0, proc.stderr
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["suites"] == ["public"] and results["score"] == 0 and results["max_score"] > 0
    assert results["tests"] and all(t["status"] != "passed" for t in results["tests"])
    assert any("NotImplementedError" in t["message"] or "not attempted" in t["message"].lower()
               or "not implemented" in t["message"].lower() for t in results["tests"])


def test_released_grade_says_instructor_commands_are_absent(released: Path, tmp_path: Path) -> None:
    for command in ("batch", "merge", "release", "gradescope-bundle", "pack-hidden"):
        proc = run_released(released, command, str(tmp_path / "x"), timeout=pace.seconds(60))
        assert proc.returncode == 2, (command, proc.stderr)
        assert "not in the student copy" in proc.stderr and "학생용 키트에는 없습니다" in proc.stderr
    proc = run_released(released, "exercises", "--hidden-from", str(tmp_path / "x.gkpack"),
                        timeout=pace.seconds(60))
    assert proc.returncode == 2 and "instructor copy" in proc.stderr


def test_released_lessons_list_no_folder_the_copy_lacks(released: Path) -> None:
    """`grade lessons` in a student's copy names no solutions folder: the copy has none."""
    proc = run_released(released, "lessons", "--json", timeout=pace.seconds(60))
    rows = [r for r in json.loads(proc.stdout) if "error" not in r]
    assert rows and all(r["solutions"] is None or Path(r["solutions"]).is_dir() for r in rows), rows
    assert any(r["exercises"] for r in rows)
    assert "not in this copy" in run_released(released, "lessons", timeout=pace.seconds(60)).stdout


def test_released_grade_says_hidden_tests_run_at_submission(released: Path, tmp_path: Path) -> None:
    proc = run_released(released, "--hidden", "--out", str(tmp_path / "r"), "-q", "--lang", "en",
                        timeout=pace.seconds(60))
    assert proc.returncode == 2
    assert "hidden tests run when you submit" in proc.stderr and "숨은" not in proc.stderr  # --lang's only
    proc = run_released(released, "--hidden", "--out", str(tmp_path / "r"), "-q", "--lang", "ko",
                        timeout=pace.seconds(60))
    assert proc.returncode == 2 and "숨은 테스트는 제출할 때 실행됩니다" in proc.stderr


def test_released_help_is_short_and_in_the_students_language(released: Path) -> None:
    instructor_flags = ("--isolation", "--memory-mb", "--cpu-seconds", "--hidden", "--key-env", "--ci",
                        "--fail-under", "--time-limit", "Gradescope")
    # the lesson's own title: the one `grade` picks in the copy ([tool.grade])
    for lang, words in (("en", ("-k EXPR", "--lang", "--out", "hidden tests run when you submit",
                                "'Embedding + Positional Encoding'", "command: `grade lessons`")),
                        ("ko", ("-k EXPR", "피드백 언어", "채점할 제출물", "숨은 테스트는 제출할 때",
                                "'임베딩 + 위치 인코딩'", "명령: `grade lessons`"))):
        proc = run_released(released, "--help", "--lang", lang, timeout=pace.seconds(60))
        assert proc.returncode == 0, proc.stderr
        assert all(w in proc.stdout for w in words), (lang, proc.stdout)
        assert not any(f in proc.stdout for f in instructor_flags), (lang, proc.stdout)
        assert len(proc.stdout.splitlines()) <= 25
    # the instructor's copy documents every flag
    full = subprocess.run([sys.executable, "-m", "grader.cli", "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=pace.seconds(60)).stdout
    assert all(f in full for f in instructor_flags[:-1])


# -- the lesson notebook -------------------------------------------------------------------------


def test_notebook_cells(released: Path) -> None:
    nb = nbformat.read(str(released / "lesson.ipynb"), as_version=4)
    nbformat.validate(nb)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    defined = {n.name for src in code for n in ast.parse(src).body
               if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    assert defined == STUB_NAMES
    for src in code:  # one function or class per cell, with its docstring
        defs = [n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
        assert len(defs) <= 1
        if defs:
            assert ast.get_docstring(defs[0]), defs[0].name
            assert "NotImplementedError" in src
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for step in ("1단계", "2단계", "3단계", "4단계", "5단계", "Step 1", "Step 5", "LeetCode"):
        assert step in markdown
    assert "from embedding import" not in "\n".join(code)  # one namespace in a notebook
    assert "## 문제 1 (Problem 1)" in markdown  # the log template, to fill in place


def test_released_grade_accepts_the_notebook(released: Path, tmp_path: Path) -> None:
    proc = run_released(released, "lesson.ipynb", "--out", str(tmp_path / "r"), "-q", "-k", "test_pe",
                        "--lang", "en")
    assert proc.returncode == 0, proc.stderr
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["kind"] == "notebook" and results["score"] == 0 and results["tests"]
    assert not any("could not be imported" in t["message"] for t in results["tests"])


def test_a_finished_notebook_gets_full_marks(tmp_path: Path) -> None:
    """The same generator fed the reference: what a student who finished hands back."""
    nb_path = write_notebook(ROOT / "solutions", tmp_path / "lesson.ipynb",
                             ROOT / "examples" / "reference" / "LEETCODE_LOG.md")
    assert build_notebook(ROOT / "solutions").cells  # same builder, other source
    results = grade_path(nb_path,
                         GradeOptions(hidden=False, keyword="test_pe or test_tying or test_equivariance"))
    assert results["kind"] == "notebook"
    assert results["max_score"] > 0 and results["score"] == results["max_score"], \
        [(t["id"], t["message"]) for t in results["tests"] if t["status"] != "passed"]


# -- the Gradescope autograder -------------------------------------------------------------------


def gradescope_layout(tmp: Path, bundle: Path, submission: Path | None) -> Path:
    root = tmp / "autograder"
    (root / "source").mkdir(parents=True)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    with zipfile.ZipFile(bundle) as zf:
        zf.extractall(root / "source")
    for name in ("setup.sh", "run_autograder"):
        os.chmod(root / "source" / name, 0o755)
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")  # as Gradescope does
    if submission is not None:
        for f in submission.iterdir():
            if f.is_file():
                shutil.copy(f, root / "submission" / f.name)
    return root


def run_autograder(root: Path, python: str = sys.executable) -> subprocess.CompletedProcess:
    """The layout's run_autograder as Gradescope runs it, with ``python`` (one that has the kit and the
    lesson, as setup.sh leaves the container)."""
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "GK_PYTHON": python}
    env.pop("PYTHONPATH", None)
    return subprocess.run(["bash", str(root / "run_autograder")], env=env, capture_output=True, text=True,
                          timeout=pace.seconds(240))


def test_bundle_contents(tmp_path: Path) -> None:
    bundle = tmp_path / "autograder.zip"
    proc = subprocess.run([sys.executable, "-m", "grader.cli", "gradescope-bundle", str(bundle)], cwd=ROOT,
                          capture_output=True, text=True, timeout=pace.seconds(60))
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(bundle) as zf:
        names = set(zf.namelist())
        assert {"setup.sh", "run_autograder", "pyproject.toml", "grader/cli.py",
                "solutions/embedding.py"} <= names
        hidden = "lessons/embedding-pe/lesson_embedding_pe/suites/hidden/test_"
        assert any(n.startswith(hidden) for n in names) == any(HIDDEN.glob("test_*.py"))
        assert "lessons/embedding-pe/pyproject.toml" in names  # its source: setup.sh installs it
        assert not any(n.startswith("lessons/attention/") for n in names)
        assert not any("__pycache__" in n for n in names)
        for script in ("setup.sh", "run_autograder"):
            assert (zf.getinfo(script).external_attr >> 16) & 0o111
        assert "pip install -e /autograder/source" in zf.read("setup.sh").decode()
        assert json.loads(zf.read("gk_gradescope.json"))["hidden"] is True


def test_run_autograder_in_gradescope_layout(tmp_path: Path) -> None:
    bundle = tmp_path / "autograder.zip"
    proc = subprocess.run([sys.executable, "-m", "grader.cli", "gradescope-bundle", str(bundle),
                           "--public-only", "-k", "test_pe", "--lang", "en"], cwd=ROOT, capture_output=True,
                          text=True, timeout=pace.seconds(60))
    assert proc.returncode == 0, proc.stderr
    root = gradescope_layout(tmp_path, bundle, ROOT / "examples" / "buggy")
    proc = run_autograder(root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    gs = json.loads((root / "results" / "results.json").read_text())
    schema_file = ROOT / "tests" / "schemas" / "gradescope_results.schema.json"
    if schema_file.exists():
        import jsonschema

        jsonschema.validate(gs, json.loads(schema_file.read_text()))
    # The buggy example concatenates sin and cos: the formula tests fail, shape and dtype pass.
    full = round(sum(t["max_score"] for t in gs["tests"]), 6)  # 0.4-point cases: float sums
    assert 0 < gs["score"] < full
    assert gs["score"] == sum(t["score"] for t in gs["tests"] if t["status"] == "passed")
    assert all("public/test_pe.py::" in t["name"] for t in gs["tests"])
    failed = [t for t in gs["tests"] if t["status"] == "failed"]
    assert failed and any("concatenated" in t["output"] for t in failed)  # buggy: sin and cos concatenated
    assert not (root / "submission").joinpath("reports").exists()  # graded a private copy


def test_run_autograder_reports_an_empty_submission(tmp_path: Path) -> None:
    bundle = tmp_path / "autograder.zip"
    subprocess.run([sys.executable, "-m", "grader.cli", "gradescope-bundle", str(bundle), "--public-only"],
                   cwd=ROOT, check=True, capture_output=True, timeout=pace.seconds(60))
    root = gradescope_layout(tmp_path, bundle, None)
    (root / "submission" / "notes.txt").write_text("nothing here")
    proc = run_autograder(root)
    assert proc.returncode == 0, proc.stderr
    gs = json.loads((root / "results" / "results.json").read_text())
    assert gs["score"] == 0
    assert "제출물을 읽을 수 없습니다" in gs["output"] and "could not be read" in gs["output"]


def test_the_student_stubs_hold_no_instructor_lines_and_no_space_before_a_particle() -> None:
    """The stubs are the student's: no `grade PATH --hidden`, and Korean particles attached ("`grade`를")."""
    import re

    for stub in sorted((ROOT / "exercises").glob("*.py")):
        text = stub.read_text(encoding="utf-8")
        assert "--hidden" not in text and "instructors" not in text and "강사" not in text, stub.name
        # after code, quoted or not ("self.mode를", "max_len이면", "fn(x)[:, perm]과"), at a line's end too
        josa = "(를|을|이|가|은|는|로|으로|와|과|의|도|이면|이나|처럼)"
        space = re.search(r"[A-Za-z0-9_`)\]] " + josa + r"(?=[ .,)]|$)", text, re.M)
        assert not space, (stub.name, space and text[space.start() - 30:space.end()])
        # a particle a wrap cut off (not 이 or 가: "이 파일의" opens a sentence)
        assert not re.search(r"^\s*(를|을|은|는|로|으로|와|과|의) ", text, re.M), stub.name
