"""`check()` in a real Jupyter kernel (nbclient + ipykernel): the cells so far, graded like `grade` does.

Every notebook here runs in the test process's one kernel, reset before each to what a fresh kernel holds
(tests/conftest.py ``notebook_kernel``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import pace
import pytest

from tests.conftest import ROOT
from tests.notebook_kernel import check_in_kernel_and_grade_saved

nbclient = pytest.importorskip(
    "nbclient", reason="nbclient and ipykernel are test dependencies (pip install -e .[test])")

REFERENCE = (ROOT / "solutions" / "embedding.py").read_text()
SIN_ONLY = REFERENCE.replace("pe[:, 1::2] = torch.cos(angle)", "pe[:, 1::2] = torch.sin(angle)")
CHECK_CELL = ('from grader import check\n'
              'result = check("sinusoidal_pe", lang="{lang}")\n'
              'print(json.dumps({{"score": result.score, "max": result.max_score}}))\n'
              'result')


def printed(cell) -> object:
    """The JSON a cell printed last."""
    text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    return json.loads(text.strip().splitlines()[-1])


def shown(cell) -> str:
    """The HTML of a cell's value (check()'s view of its result)."""
    return "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs
                   if o.output_type == "execute_result")


# check() of the sin-only bug from one cell run twice (two identical cells), then the fix: the same grade
# serves the tests of repeated calls, of the table and the change since the last call, and of the score.
AGAIN = ("from grader import check\nr = check('sinusoidal_pe', lang='{lang}')\n"
         "print(json.dumps([r.results['replay']['content_hash'], r.score, r.max_score]))\nr")


@pytest.fixture(scope="module")
def unnamed_session(notebook_kernel, tmp_path_factory):
    """A kernel nobody names its notebook to: the sin-only bug checked twice from one cell, in English;
    then the reference, a demo cell using it and check() again (cells 2, 3 and 6)."""
    folder = tmp_path_factory.mktemp("unnamed")
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import json, os\n%matplotlib inline\npass"),
        nbformat.v4.new_code_cell(SIN_ONLY),
        nbformat.v4.new_code_cell(AGAIN.format(lang="en")),
        nbformat.v4.new_code_cell(AGAIN.format(lang="en")),
        nbformat.v4.new_code_cell(REFERENCE),
        nbformat.v4.new_code_cell("pe = sinusoidal_pe(16, 8)\nprint(pe.shape)"),
        nbformat.v4.new_code_cell(CHECK_CELL.format(lang="en")),
    ])
    nbformat.write(nb, str(folder / "lesson.ipynb"))  # saved, but the kernel is not told so
    notebook_kernel.run(nb, folder)
    return nb


@pytest.fixture(scope="module")
def named_session(notebook_kernel, tmp_path_factory):
    """A kernel Jupyter names its saved notebook to: the sin-only bug checked twice from one cell, in
    Korean (cells 2 and 3)."""
    folder = tmp_path_factory.mktemp("named")
    saved = folder / "lesson.ipynb"
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(f"import json, os\nos.environ['JPY_SESSION_NAME'] = {str(saved)!r}"),
        nbformat.v4.new_code_cell(SIN_ONLY),
        nbformat.v4.new_code_cell(AGAIN.format(lang="ko")),
        nbformat.v4.new_code_cell(AGAIN.format(lang="ko")),
    ])
    nbformat.write(nb, str(saved))
    notebook_kernel.run(nb, folder)
    return nb


def test_check_in_a_kernel_gives_full_marks_to_the_reference_and_fewer_to_a_bug(unnamed_session,
                                                                               named_session):
    good, good_html = printed(unnamed_session.cells[6]), shown(unnamed_session.cells[6])
    assert good["score"] == good["max"] > 0
    assert 'class="gk-check"' in good_html and "All checks passed." in good_html

    _, score, top = printed(named_session.cells[2])
    bad, bad_html = {"score": score, "max": top}, shown(named_session.cells[2])
    assert bad["max"] == good["max"] and bad["score"] < bad["max"]
    # the report's feedback: the failing check, expected / found / likely cause, in Korean
    assert "gk-check" in bad_html and "기대한 것" in bad_html and "원인 추정" in bad_html
    assert "test_formula_small" in bad_html


def test_check_outside_a_kernel_grades_exercises(tmp_path):
    """A plain Python session: check() grades ./exercises (here a copy of the reference)."""
    (tmp_path / "exercises").mkdir()
    for name in ("embedding.py", "reversal.py", "leetcode.py"):
        (tmp_path / "exercises" / name).write_text((ROOT / "solutions" / name).read_text())
    code = ("import sys, json\nfrom grader import check\nassert 'torch' not in sys.modules\n"
            "r = check('weight_tying', lang='en')\nprint(json.dumps([r.score, r.max_score]))\n"
            "assert 'torch' not in sys.modules  # grading happened in the worker, not here")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         timeout=pace.seconds(600), env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr[-2000:]
    score, top = json.loads(out.stdout.strip().splitlines()[-1])
    assert score == top > 0


def test_unknown_task_is_said_plainly():
    from grader.jupyter.check import CheckResult, render_html

    result = CheckResult({"score": 0.0, "max_score": 0.0, "tests": [], "tasks": {},
                          "error": "-k 'sinusoidal' matches no test"}, "en", "sinusoidal")
    assert "matches no test" in render_html(result) and "matches no test" in repr(result)


def test_check_in_a_kernel_reads_the_log_from_the_saved_notebook(notebook_kernel, tmp_path):
    """The LeetCode log is Markdown, which the input history lacks: the notebook file Jupyter names has it."""
    saved = tmp_path / "lesson.ipynb"
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(f"import json, os\nos.environ['JPY_SESSION_NAME'] = {str(saved)!r}"),
        nbformat.v4.new_markdown_cell((ROOT / "solutions" / "LEETCODE_LOG.md").read_text()),
        nbformat.v4.new_code_cell("from grader import check\nr = check('leetcode_log', lang='en')\n"
                                  "print(json.dumps([r.score, r.max_score]))"),
    ])
    nbformat.write(nb, str(saved))  # what Jupyter saved; the kernel runs the same cells
    notebook_kernel.run(nb, tmp_path)
    score, top = printed(nb.cells[-1])
    assert score == top > 0


@pytest.mark.parametrize("cell_filled", [True, False])
def test_check_and_grade_of_the_saved_notebook_read_the_same_log(notebook_kernel, tmp_path, cell_filled):
    """A notebook is one submission: its log cell is the log, whatever exercises/LEETCODE_LOG.md says.
    check() in the kernel and `grade lesson.ipynb` of the saved file agree on every number."""
    filled = (ROOT / "solutions" / "LEETCODE_LOG.md").read_text()
    blank = (ROOT / "exercises" / "LEETCODE_LOG.md").read_text()
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "LEETCODE_LOG.md").write_text(blank if cell_filled else filled)
    cells = [nbformat.v4.new_code_cell(REFERENCE),
             nbformat.v4.new_markdown_cell(filled if cell_filled else blank)]
    in_kernel, graded = check_in_kernel_and_grade_saved(tmp_path, cells, "check('leetcode_log', lang='en')",
                                                        ["--lang", "en", "-k", "leetcode_log"],
                                                        run=notebook_kernel.run)

    def numbers(results: dict) -> tuple:
        return (results["score"], results["max_score"],
                sorted((t["id"], t["score"], t["max_score"]) for t in results["tests"]))

    assert numbers(in_kernel) == numbers(graded)
    assert (in_kernel["score"] == in_kernel["max_score"] > 0) is cell_filled
    if not cell_filled:  # a notebook's log is its cell: check() and the page name it, never a LEETCODE_LOG.md
        from grader.jupyter.check import CheckResult
        from grader.report.render import render_html

        for lang, words in (("en", "the log in cell 3 is still the blank template"),
                            ("ko", "3번 셀의 기록이 빈 양식")):
            for page in (CheckResult(in_kernel, lang, None)._repr_html_(),
                         render_html(graded, lang, "lesson.ipynb")):
                assert words in page and "LEETCODE_LOG.md" not in page


def test_check_before_a_cell_ran_says_run_it_and_never_renames_a_graded_function(notebook_kernel, tmp_path):
    """count_primes is defined in a later cell, not yet run: "run cell N", never "did you mean
    count_params" (itself a function the lesson grades)."""
    saved = tmp_path / "lesson.ipynb"
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(f"import json, os\nos.environ['JPY_SESSION_NAME'] = {str(saved)!r}"),
        nbformat.v4.new_code_cell(REFERENCE),
        nbformat.v4.new_code_cell("from grader import check\nr = check('leetcode_practice', lang='en')\n"
                                  "print(json.dumps([t['message'] for t in r.results['tests']]))"),
        nbformat.v4.new_code_cell((ROOT / "solutions" / "leetcode.py").read_text()),
    ])
    nbformat.write(nb, str(saved))
    notebook_kernel.run(nb, tmp_path)
    messages = " ".join(json.dumps(m) for m in printed(nb.cells[2]))
    assert "count_primes" in messages and "Run cell 4" in messages, messages
    assert "count_params" not in messages and "spelling" not in messages, messages


def test_check_called_again_from_the_same_cell_sees_the_same_inputs(unnamed_session, named_session):
    """The same cell run twice (here: two identical cells): the same staged code, so the same seed and
    the same numbers, whether Jupyter names the saved notebook or not."""
    for named, nb in ((True, named_session), (False, unnamed_session)):
        first, second = (printed(nb.cells[i]) for i in (2, 3))
        assert first == second, (named, first, second)


def test_check_in_a_kernel_that_imports_the_exercises_grades_the_files(notebook_kernel, tmp_path):
    """A notebook that only imports exercises/*.py (and defines nothing of the lesson) grades those files."""
    (tmp_path / "exercises").mkdir()
    for name in ("embedding.py", "reversal.py", "leetcode.py"):
        (tmp_path / "exercises" / name).write_text((ROOT / "solutions" / name).read_text())
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import json, sys\nsys.path.insert(0, 'exercises')\n"
                                  "from embedding import sinusoidal_pe\nsinusoidal_pe(4, 6)"),
        nbformat.v4.new_code_cell("from grader import check\nr = check('sinusoidal_pe', lang='en')\n"
                                  "print(json.dumps([r.score, r.max_score]))"),
    ])
    notebook_kernel.run(nb, tmp_path)
    score, top = printed(nb.cells[-1])
    assert score == top > 0


def test_check_in_a_kernel_draws_the_table_and_says_what_changed_since_the_last_call(unnamed_session):
    """Two calls in one kernel: the sin-only table drawn with its wrong cells, then the fix reported."""
    first, second = (shown(unnamed_session.cells[i]) for i in (2, 6))
    assert 'data-figure="pe-diff"' in first and "data-wrong=" in first and "since the last run" not in first
    assert "since the last run" in second and "Sinusoidal positional encoding now passes" in second
    assert 'data-figure="pe-diff"' not in second


def test_check_numbers_cells_as_grade_does_and_says_run_check_again(notebook_kernel, tmp_path):
    """Markdown between code cells: check() and `grade lesson.ipynb` name the same cell; a kernel's verbs."""
    saved = tmp_path / "lesson.ipynb"
    stub = (ROOT / "exercises" / "leetcode.py").read_text()
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(f"import json, os\nos.environ['JPY_SESSION_NAME'] = {str(saved)!r}"),
        nbformat.v4.new_markdown_cell("# 1단계 · Step 1"),
        nbformat.v4.new_markdown_cell("설명 / explanation"),
        nbformat.v4.new_code_cell(REFERENCE + "\nprint(sinusoidal_pe(4, 6).shape)\nx = undefined_name + 1"),
        nbformat.v4.new_markdown_cell("## 연습 · Practice"),
        nbformat.v4.new_code_cell(stub),
        nbformat.v4.new_code_cell("from grader import check\nr = check(lang='en')\n"
                                  "print(json.dumps([[n['cell'], n['line']] for n in "
                                  "r.results['artifacts']['notebook']['notes']]))\n"
                                  "r"),
    ])
    nbformat.write(nb, str(saved))
    notebook_kernel.run(nb, tmp_path, allow_errors=True)
    outputs = nb.cells[-1].outputs
    html = shown(nb.cells[-1])
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors, errors
    in_kernel = printed(nb.cells[-1])
    line = REFERENCE.count("\n") + 2  # the print after the reference code, in the fourth cell
    assert [4, line] in in_kernel, in_kernel
    proc = subprocess.run([sys.executable, "-m", "grader.cli", str(saved), "--out", str(tmp_path / "out"),
                           "-q", "--lang", "en"], capture_output=True, text=True, timeout=pace.seconds(600),
                          env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    graded = json.loads((tmp_path / "out" / "results.json").read_text())
    # the same notes at the same places; `grade` also reads the last cell, the one calling check()
    by_grade = [[n["cell"], n["line"]] for n in graded["artifacts"]["notebook"]["notes"] if n["cell"] < 7]
    assert by_grade == in_kernel
    # the practice stubs are not started: a kernel is told to run check() again, not grade
    assert "run <code>check()</code> again" in html and "run <code>grade</code> again" not in html


def test_check_html_keeps_korean_words_whole():
    """A narrow notebook column breaks between words, never inside one ("통⏎과")."""
    from grader.jupyter.check import CheckResult, render_html

    html = render_html(CheckResult({"score": 1.0, "max_score": 2.0, "tests": [], "tasks": {}}, "ko", None))
    assert "word-break:keep-all" in html


@pytest.mark.parametrize("named_by", ["vscode", None])
def test_check_names_what_it_read_and_never_deducts_for_a_log_it_did_not_see(notebook_kernel, tmp_path,
                                                                              named_by):
    """VS Code names the notebook in the user namespace: check() and `grade lesson.ipynb` agree on every
    number. A kernel nobody names it to (nbclient, like an old server's): the log cell cannot be read, so
    the blank exercises/ template is not graded in its place; the log is left out of check()'s score, and a
    sentence says which notebook was not found, which log file was seen and how to grade the log."""
    filled = (ROOT / "solutions" / "LEETCODE_LOG.md").read_text()
    blank = (ROOT / "exercises" / "LEETCODE_LOG.md").read_text()
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "LEETCODE_LOG.md").write_text(blank)
    cells = [nbformat.v4.new_code_cell((ROOT / "solutions" / "leetcode.py").read_text()),
             nbformat.v4.new_markdown_cell(filled)]
    call = "check('leetcode_log or leetcode_practice', lang='en')"
    in_kernel, graded = check_in_kernel_and_grade_saved(
        tmp_path, cells, call, ["--lang", "en", "-k", "leetcode_log or leetcode_practice"], named_by=named_by,
        run=notebook_kernel.run)

    def numbers(results: dict, task: str | None = None) -> list:
        return sorted((t["id"], t["score"], t["max_score"]) for t in results["tests"]
                      if task is None or t["task"] == task)

    assert graded["score"] == graded["max_score"] > 0
    from grader.jupyter.check import CheckResult

    if named_by == "vscode":
        assert numbers(in_kernel) == numbers(graded) and in_kernel["score"] == graded["score"]
        assert "lesson.ipynb (as last saved)" in repr(CheckResult(in_kernel, "en", None))
        return
    log_points = graded["tasks"]["leetcode_log"]["max_score"]
    assert numbers(in_kernel, "leetcode_practice") == numbers(graded, "leetcode_practice")
    assert numbers(in_kernel, "leetcode_log") == []
    assert in_kernel["score"] == in_kernel["max_score"] == graded["max_score"] - log_points
    for lang, words in (("en", ["could not find which notebook file", "exercises/LEETCODE_LOG.md",
                                f"({log_points:g} points) is left out of this score, not deducted"]),
                        ("ko", ["노트북 파일을 찾지 못했습니다", "exercises/LEETCODE_LOG.md",
                                f"({log_points:g}점)은 이 점수에서 빼 두었을 뿐 감점하지 않았습니다"])):
        result = CheckResult(in_kernel, lang, None)
        for view in (repr(result), result._repr_html_()):
            assert all(w in view for w in words), (lang, view[-1500:])
            assert "blank template" not in view.replace("still the blank template, which is not", "")


def test_check_says_a_cause_once_and_names_no_file_a_notebook_lacks(tmp_path):
    """A notebook with no log cell: the ten log checks fail for one reason, said once (not ten lines), in
    the notebook's terms (its practice code, never a leetcode.py), in both languages."""
    from grader.jupyter.check import CheckResult
    from tests.conftest import grade

    practice = (ROOT / "solutions" / "leetcode.py").read_text()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(REFERENCE),
                                         nbformat.v4.new_code_cell(practice)])
    nbformat.write(nb, str(tmp_path / "lesson.ipynb"))
    results = grade(tmp_path / "lesson.ipynb", hidden=False, keyword="leetcode_log")
    failing = [t for t in results["tests"] if t["status"] != "passed"]
    assert len(failing) == 10
    for lang, words in (("en", "No LeetCode log was found in this notebook"),
                        ("ko", "이 노트북에서 LeetCode 기록을 찾지 못했습니다")):
        text = repr(CheckResult(results, lang, "leetcode_log"))
        lines = [line for line in text.splitlines() if line.startswith("- ")]
        assert len(lines) == 1 and words in lines[0], text
        assert "leetcode.py" not in text
        assert "leetcode.py" not in CheckResult(results, lang, None)._repr_html_()
