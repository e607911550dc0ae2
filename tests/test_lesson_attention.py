"""The attention lesson (lessons/attention), a second real lesson, graded by the kit's engine as it is:
GradeOptions names the lesson module and its folders. Nothing is installed: the lesson's folder is put
on sys.path, as `pip install` would put the package."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pace
import pytest

from grader.engine.lessons import load_lesson
from grader.engine.runner import GradeOptions, grade_path
from tests.notebook_kernel import check_in_kernel_and_grade_saved

ROOT = Path(__file__).resolve().parent.parent
LESSON_DIR = ROOT / "lessons" / "attention"
EXAMPLES = LESSON_DIR / "examples"


@pytest.fixture(scope="module")
def lesson():
    sys.path.insert(0, str(LESSON_DIR))
    try:
        from lesson_attention import paths

        yield paths
    finally:
        sys.path.remove(str(LESSON_DIR))
        load_lesson.cache_clear()
        for name in [m for m in sys.modules if m == "lesson_attention" or m.startswith("lesson_attention.")]:
            sys.modules.pop(name)


@pytest.fixture(scope="module")
def graded(lesson):
    """Each submission graded once per suite set: {(name, hidden): results}."""
    cache: dict[tuple[str, bool], dict] = {}

    def grade(name: str, hidden: bool, lang: str = "en") -> dict:
        if (name, hidden) not in cache:
            folder = {"stubs": lesson.EXERCISES, "solutions": lesson.SOLUTIONS}.get(name, EXAMPLES / name)
            options = GradeOptions(lesson="lesson_attention", suites_dir=lesson.SUITES,
                                   solutions_dir=lesson.SOLUTIONS, hidden=hidden, lang=lang)
            cache[name, hidden] = grade_path(folder, options)
        return cache[name, hidden]

    return grade


def _tasks(results: dict) -> dict[str, tuple[float, float]]:
    return {name: (t["score"], t["max_score"]) for name, t in results["tasks"].items()}


def _failed(results: dict) -> dict[str, dict]:
    return {t["id"]: t for t in results["tests"] if t["status"] != "passed"}


def test_the_right_submission_gets_full_marks(graded):
    public, full = graded("right", False), graded("right", True)
    assert _tasks(public) == {"causal_mask": (4.0, 4.0), "scaled_dot_product_attention": (7.0, 7.0),
                              "CausalSelfAttention": (5.0, 5.0)}
    assert (full["score"], full["max_score"]) == (35.0, 35.0)
    assert full["suites"] == ["public", "hidden"] and not _failed(full)


def test_the_wrong_submission_scores_exactly_and_says_why(graded):
    public = graded("wrong", False)
    assert _tasks(public) == {"causal_mask": (2.0, 4.0), "scaled_dot_product_attention": (1.0, 7.0),
                              "CausalSelfAttention": (3.0, 5.0)}
    failed = _failed(public)
    assert set(failed) == {
        "public/test_causal_mask.py::test_mask_of_four",
        "public/test_causal_mask.py::test_one_position_sees_itself",
        "public/test_attention.py::test_formula_without_mask",
        "public/test_attention.py::test_causal_mask_blocks_the_future",
        "public/test_attention.py::test_batch_and_head_axes",
        "public/test_attention.py::test_a_row_with_nothing_to_see",
        "public/test_self_attention.py::test_no_position_sees_the_future",
    }
    mask = failed["public/test_causal_mask.py::test_mask_of_four"]
    assert mask["message"].startswith("causal_mask(4): at (0, 0) expected False; found True. Likely cause: "
                                      "the diagonal is blocked too (off by one)")
    assert mask["messages"]["ko"].startswith("causal_mask(4): (0, 0) 위치에서 False여야 하는데 True입니다. "
                                             "원인 추정: 대각선까지 막았습니다")
    assert mask["figure"]["cause"]["key"] == "diagonal_masked"
    assert mask["figure"]["wrong"] == [[0, 0], [1, 1], [2, 2], [3, 3]]  # the diagonal, outlined
    assert mask["location"]["file"] == "causal_attention.py"  # Task.symbols: it points at causal_mask
    for test in ("test_formula_without_mask", "test_causal_mask_blocks_the_future",
                 "test_batch_and_head_axes"):
        entry = failed[f"public/test_attention.py::{test}"]
        assert entry["figure"]["cause"]["key"] == "no_scale"
        assert "without the 1/sqrt(d_k) scale" in entry["message"]
        assert "1/sqrt(d_k) 스케일 없이" in entry["messages"]["ko"]
    causal = failed["public/test_self_attention.py::test_no_position_sees_the_future"]
    assert "found position 0 changed" in causal["message"]
    assert "0번 위치가 바뀌었습니다" in causal["messages"]["ko"]


def test_the_hidden_suite_catches_the_module_that_sees_the_future(graded):
    full = graded("wrong", True)
    # its mask is a bool one (the dtype check passes) with the diagonal blocked (the cells' checks fail)
    assert _tasks(full) == {"causal_mask": (3.5, 8.0), "scaled_dot_product_attention": (1.0, 15.0),
                            "CausalSelfAttention": (5.0, 12.0)}
    hidden = {i: t for i, t in _failed(full).items() if i.startswith("hidden/")}
    module = [t for i, t in hidden.items() if "test_self_attention.py::test_forward_matches_reference" in i]
    assert len(module) == 2
    for entry in module:
        assert "Likely cause: forward applies no causal mask" in entry["message"]
    assert "expected ValueError; found TypeError" in hidden[
        "hidden/test_causal_mask.py::test_bad_sizes_are_value_errors[float]"]["message"]


@pytest.mark.parametrize("cuda_built", [True, False], ids=["fakecuda", "cpu-wheel-meta"])
def test_a_mask_made_on_the_cpu_fails_on_a_gpu(lesson, tmp_path, monkeypatch, cuda_built):
    """The right module with one change: causal_mask(T) without device=x.device (fine on a CPU); caught on
    the GPU FakeTensorMode simulates and on the meta device the kit's device_check takes with the CPU
    wheel, where FakeTensorMode cannot make CUDA tensors."""
    import torch

    if cuda_built and not torch.backends.cuda.is_built():
        pytest.skip("this torch is the CPU wheel")
    monkeypatch.setattr(torch.backends.cuda, "is_built", lambda: cuda_built)
    source = (EXAMPLES / "right" / "causal_attention.py").read_text(encoding="utf-8")
    assert "causal_mask(T, device=x.device)" in source
    (tmp_path / "causal_attention.py").write_text(source.replace("causal_mask(T, device=x.device)",
                                                                 "causal_mask(T)"), encoding="utf-8")
    options = GradeOptions(lesson="lesson_attention", suites_dir=lesson.SUITES,
                           solutions_dir=lesson.SOLUTIONS, hidden=True, keyword="gpu or forward_matches")
    results = grade_path(tmp_path, options)
    by_name = {t["id"].split("::")[-1]: t for t in results["tests"]}
    assert by_name["test_forward_matches_reference[0]"]["status"] == "passed"  # right values on the CPU
    gpu = by_name["test_forward_on_a_gpu"]
    assert gpu["status"] == "failed" and "Likely cause: forward makes a tensor on the CPU" in gpu["message"]
    assert "원인 추정: forward가 CPU에 텐서를 만듭니다" in gpu["messages"]["ko"]


def test_a_task_by_its_name_grades_that_task_only(lesson):
    """`grade -k causal_mask` and check("causal_mask") grade causal_mask's checks, not every test whose
    name holds the task's (scaled_dot_product_attention's test_causal_mask_blocks_the_future)."""
    options = GradeOptions(lesson="lesson_attention", suites_dir=lesson.SUITES,
                           solutions_dir=lesson.SOLUTIONS, keyword="causal_mask")
    results = grade_path(EXAMPLES / "wrong", options)
    assert {t["task"] for t in results["tests"]} == {"causal_mask"} and len(results["tests"]) == 4
    assert (results["score"], results["max_score"]) == (2.0, 4.0)
    expression = grade_path(EXAMPLES / "wrong", GradeOptions(
        lesson="lesson_attention", suites_dir=lesson.SUITES, solutions_dir=lesson.SOLUTIONS,
        keyword="causal_mask_blocks"))  # any other -k is pytest's, as written
    (test,) = expression["tests"]
    assert test["id"] == "public/test_attention.py::test_causal_mask_blocks_the_future"


def test_torchs_own_not_implemented_error_is_a_failure_not_a_stub(lesson, tmp_path):
    """A finished causal_mask whose torch op raises torch's own NotImplementedError (here: copying a meta
    tensor out, as an op a device does not support does) fails like any error; only the student's own
    ``raise NotImplementedError`` reads as "not attempted"."""
    source = (EXAMPLES / "right" / "causal_attention.py").read_text(encoding="utf-8")
    made = "    return rows[None, :] > rows[:, None]\n"
    assert made in source
    broken = source.replace(made, '    return (rows[None, :] > rows[:, None]).to("meta").cpu()\n', 1)
    (tmp_path / "causal_attention.py").write_text(broken, encoding="utf-8")
    options = GradeOptions(lesson="lesson_attention", suites_dir=lesson.SUITES,
                           solutions_dir=lesson.SOLUTIONS, keyword="test_mask_of_four")
    results = grade_path(tmp_path, options)
    (test,) = results["tests"]
    assert test["status"] == "failed" and "NotImplementedError" in test["message"], test
    assert "Not attempted" not in test["message"] and "아직 구현하지 않았습니다" not in test["messages"]["ko"]
    stub = (lesson.EXERCISES / "causal_attention.py")
    (tmp_path / "causal_attention.py").write_text(stub.read_text(encoding="utf-8"), encoding="utf-8")
    (test,) = grade_path(tmp_path, options)["tests"]
    assert "Not attempted" in test["message"], test  # the stub's own raise still reads as not started


def test_a_notebook_may_bind_a_graded_name_to_its_own_function(lesson, tmp_path):
    """``causal_mask = my_mask`` in a cell of its own: right, and graded as right (the notebook plan keeps
    a cell binding a name of the graded lesson's contract, Lesson.contract; it skipped it as demo code,
    12/16, while it read the other lesson's names)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    source = (EXAMPLES / "right" / "causal_attention.py").read_text(encoding="utf-8")
    source = source.replace("causal_mask(", "my_mask(")
    notebook = tmp_path / "lesson.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell(source), new_code_cell("causal_mask = my_mask")]),
                   str(notebook))
    options = GradeOptions(lesson="lesson_attention", suites_dir=lesson.SUITES,
                           solutions_dir=lesson.SOLUTIONS)
    assert grade_path(notebook, options)["score"] == 16.0


def test_the_reference_passes_and_the_stubs_are_not_attempted(graded):
    assert graded("solutions", True)["score"] == 35.0
    stubs = graded("stubs", False)
    assert (stubs["score"], stubs["max_score"]) == (0.0, 16.0)
    assert all(t["message"].startswith("Not attempted yet: this still raises NotImplementedError")
               for t in stubs["tests"])


# -- the lesson's picture (lesson_attention/report.py), on the kit's SVG heatmap ----------------------------


def _cards(results: dict, lang: str) -> dict[str, dict]:
    """The report's cards by task (report/cards.py), each with the picture the kit draws in it."""
    from grader.report.cards import build_cards
    from grader.report.view import failure_rows

    cards, _idle = build_cards(failure_rows(results, lang, "wrong"), lang)
    return {c["task"]: c for c in cards}


def _marked(svg: str) -> set[tuple[int, int]]:
    return {tuple(map(int, m.split(","))) for m in re.findall(r'data-wrong="(\d+,\d+)"', svg)}


def test_each_card_draws_its_mistake_the_wrong_cells_marked(graded, lesson):
    """The kit draws the lesson's picture in the card of its cause (ReportHooks.figure_texts): one per
    mistake (the missing scale's three checks, drawn once), the wrong cells outlined, the mask drawn as a
    mask (its cells T and F, not 1.00 and 0.00)."""
    results = graded("wrong", False)
    cards = _cards(results, "en")
    assert cards["CausalSelfAttention"]["figure"] is None  # a leak, no matrix to draw
    by_id = {t["id"]: t for t in results["tests"]}
    for task, test, cause in (
            ("causal_mask", "public/test_causal_mask.py::test_mask_of_four", "diagonal_masked"),
            ("scaled_dot_product_attention", "public/test_attention.py::test_formula_without_mask",
             "no_scale")):
        figure = cards[task]["figure"]
        assert figure["cause_key"] == cause and cards[task]["checks"][0]["id"] == test
        assert _marked(figure["found"]) == {tuple(c) for c in by_id[test]["figure"]["wrong"]} != set()
        assert "data-wrong" not in figure["expected"]
    mask, weights = cards["causal_mask"]["figure"], cards["scaled_dot_product_attention"]["figure"]
    assert "Your weights (3, 5)" in weights["found"] and "The right weights (3, 5)" in weights["expected"]
    def cells(svg: str) -> list[str]:  # what the cells read (the axes' numbers are integers)
        return re.findall(r">(T|F|\d\.\d\d)</text>", svg)

    assert len(cells(weights["found"] + weights["expected"])) == 30 and "T" not in cells(weights["found"])
    assert len(cells(mask["found"] + mask["expected"])) == 32 and set(cells(mask["found"])) == {"T", "F"}
    assert mask["count"] == "4 of 16 cells wrong (outlined in yours)."
    assert mask["scale"] == "T = True (blocked, red), F = False (may look, white)."
    assert mask["grid"].startswith("     0 1 2 3\n  0  ■ · · ·\n  1  · ■ · ·\n")
    ko = _cards(results, "ko")
    assert ko["causal_mask"]["figure"]["count"] == "16칸 중 4칸이 틀렸습니다(내 그림에 테두리)."
    assert "내 가중치 (3, 5)" in ko["scaled_dot_product_attention"]["figure"]["found"]


def _page(results: dict, folder: Path, lang: str) -> tuple[str, str]:
    from grader.report.render import write_reports

    out = write_reports(results, folder, lang, "lessons/attention/examples/wrong")
    return out["feedback.html"].read_text(encoding="utf-8"), out["feedback.md"].read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_picture_fits_a_phone(graded, lesson, chromium, tmp_path, lang):
    html, _md = _page(graded("wrong", False), tmp_path, lang)
    visit = chromium.visit(tmp_path / "feedback.html", {
        "scroll": "document.documentElement.scrollWidth",
        "widest": "Math.max(...[...document.querySelectorAll('article svg')]"
                  ".map(s => s.getBoundingClientRect().right))",
        "svgs": "document.querySelectorAll('article svg').length",
    }, width=390)
    assert visit.values["svgs"] == 4 and not visit.console_errors
    assert visit.values["scroll"] <= 390 and visit.values["widest"] <= 390


def test_one_failed_check_is_drawn_by_the_kits_two_tables(graded, lesson):
    """report.figure_view is the kit's two-table picture (report/table_figure.py) with this lesson's words,
    the same view the kit draws another lesson's figures with (the default lesson's, through its
    figure_texts), so the feedback template's figure block could draw either."""
    import torch

    from grader.engine.lessons import load_lesson
    from grader.report.table_figure import figure_view as kit_view
    from lesson_attention.report import figure_texts, figure_view
    from lesson_embedding_pe.pe_checks import pe_formula, table_figure

    pe = table_figure(pe_formula(4, 6).flip(1), pe_formula(4, 6), "sinusoidal_pe(4, 6)", atol=1e-5)
    kit = kit_view(pe, "en", load_lesson().report.figure_texts)
    assert kit is not None and kit["found"].count("data-wrong") == kit["wrong"] > 0
    test = next(t for t in graded("wrong", False)["tests"] if t.get("figure"))
    for lang in ("en", "ko"):
        view = figure_view(test["figure"], lang)
        assert set(kit) == set(view)
        assert view["found"].count("data-wrong") == len(test["figure"]["wrong"]) == view["wrong"] > 0
        assert view["scale"] == figure_texts(test["figure"], lang).scale  # its own words, not the kit's
    assert figure_view(table_figure(torch.zeros(2, 2), torch.ones(2, 2), "x", atol=0.1), "en") is None
    assert kit_view(test["figure"], "en", load_lesson().report.figure_texts) is None  # a kind it lacks


# -- the kit's hooks: the lesson's section in the feedback, --lesson in commands, the class page -----------


def _installed() -> bool:
    from grader.engine.lessons import installed

    return "attention" in installed()


needs_install = pytest.mark.skipif(not _installed(), reason="the lesson is not installed (pip install "
                                   "lessons/attention): `grade --lesson attention` cannot find it")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_feedback_holds_the_picture_in_its_card(graded, lesson, tmp_path, lang):
    """feedback.html draws each picture in its cause's card, beside the cause (the SVGs, the wrong cells
    outlined), feedback.md its text grid there; no section of pictures far from their cards, and a report
    with nothing to draw has none."""
    html, md = _page(graded("wrong", False), tmp_path / lang, lang)
    assert "lesson-section" not in html and "attention-weights" not in md
    articles = re.findall(r"<article .*?</article>", html, re.S)
    mask = next(a for a in articles if "test_mask_of_four" in a)
    weights = next(a for a in articles if "test_formula_without_mask" in a)
    for article in (mask, weights):
        assert article.count("<svg") == 2  # the student's beside the right one
        assert article.index("<figure") < article.index('<section class="check"')  # above its checks
    assert ("대각선까지 막았습니다" if lang == "ko" else "the diagonal is blocked too") in mask
    assert len(_marked(mask)) == 4 and len(_marked(weights)) == 15 and html.count("<svg") == 4
    title = "인과 마스크" if lang == "ko" else "Causal mask"
    card_md = md[md.index(f"#### {title}"):]
    card_md = card_md[:card_md.index("\n#### ")]
    assert "  0  ■ · · ·\n" in card_md and card_md.index("■") < card_md.index("<details>")
    assert "<svg" not in md and "outlined" not in md and "테두리" not in md
    right_html, right_md = _page(graded("right", True), tmp_path / f"right-{lang}", lang)
    assert "<svg" not in right_html and "■" not in right_md
    # none of the other lesson's blocks: its experiment, its log review (nor their words)
    for page in (html, md, right_html, right_md):
        assert not re.search(r"Sequence-reversal|순서 뒤집기|LeetCode|log-points|experiment-", page)


def test_check_shows_the_picture_in_the_notebook(graded, lesson):
    """check()'s output under a cell draws the pictures in their cards, as feedback.html does."""
    from grader.jupyter.check import CheckResult

    shown = CheckResult(graded("wrong", False), "ko", None)._repr_html_()
    assert shown.count("<svg") == 4 and "16칸 중 4칸이 틀렸습니다" in shown and "lesson-section" not in shown
    assert shown.count('class="gk-fig" data-figure="attention-weights"') == 2
    assert "<svg" not in CheckResult(graded("right", True), "en", None)._repr_html_()


def test_results_that_name_no_lesson_get_the_lesson_chosen_heres_blocks():
    """Results from before results.json named its lesson get the blocks of the lesson chosen here (the
    suite's GK_LESSON, the course's: the experiment and the log review, report-only: check()'s view
    leaves them out)."""
    from grader.report.lesson_sections import lesson_sections

    assert [s["key"] for s in lesson_sections({}, "ko", report=True)] == ["experiment", "log"]
    assert lesson_sections({}, "ko") == []
    assert lesson_sections({"lesson": {"module": "not_installed_here"}}, "en", report=True) == []


@needs_install
def test_check_in_a_kernel_and_grade_of_the_saved_notebook_agree_on_every_number(notebook_kernel, tmp_path):
    """A notebook is one submission: check() in its kernel and `grade lesson.ipynb` of the saved file draw
    the same inputs (the seed comes from the code that runs, not from the staged driver's cell numbers,
    file name or skipped statements), so every number and message agrees."""
    pytest.importorskip("nbclient", reason="nbclient and ipykernel are test dependencies")
    import nbformat

    (tmp_path / "pyproject.toml").write_text('[tool.grade]\nlesson = "attention"\n', encoding="utf-8")
    task = "scaled_dot_product_attention"
    code = nbformat.v4.new_code_cell((EXAMPLES / "wrong" / "causal_attention.py").read_text(encoding="utf-8"))
    in_kernel, graded = check_in_kernel_and_grade_saved(tmp_path, [code], f"check({task!r}, lang='ko')",
                                                        ["--lang", "ko", "-k", task], run=notebook_kernel.run)

    def numbers(results: dict) -> tuple:
        return (results["score"], results["max_score"], results["replay"]["seed"],
                sorted((t["id"], t["score"], t["messages"]["ko"]) for t in results["tests"]))

    assert numbers(in_kernel) == numbers(graded)
    assert any("위치에서 0." in t["messages"]["ko"] for t in graded["tests"])  # numbers drawn from the seed


@needs_install
def test_the_reproduce_command_grades_the_same_test(graded, lesson, tmp_path):
    """Each printed command names --lesson attention (grade PATH alone would grade embedding-pe), and run,
    it grades that one test with the same verdict; a project that selects the lesson needs no flag."""
    import shlex
    import subprocess

    from grader.report.view import failure_rows

    results = graded("wrong", False)
    path = str(EXAMPLES / "wrong")
    rows = failure_rows(results, "en", path)
    assert rows and all(" --lesson attention " in r["reproduce"] for r in rows)
    row = next(r for r in rows if r["id"].endswith("test_mask_of_four"))
    assert row["reproduce"] == f"grade {shlex.quote(path)} --lesson attention -k test_mask_of_four"
    argv = shlex.split(row["reproduce"])
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "grader.cli", *argv[1:], "--out", str(out), "-q"],
                          capture_output=True, text=True, timeout=pace.seconds(300), cwd=ROOT)
    rerun = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert done.returncode == 0, done.stderr  # graded (a failing test is no error)
    assert rerun["lesson"]["name"] == "attention"
    assert [(t["id"], t["status"], t["message"]) for t in rerun["tests"]] == [
        (row["id"], row["status"], next(t["message"] for t in results["tests"] if t["id"] == row["id"]))]
    # the student's own copy, released with [tool.grade] lesson = "attention": the plain command is right
    (tmp_path / "copy").mkdir()
    setting = '[tool.grade]\nlesson = "attention"\n'
    (tmp_path / "copy" / "pyproject.toml").write_text(setting, encoding="utf-8")
    plain = failure_rows(results, "en", str(tmp_path / "copy"))
    assert plain and all("--lesson" not in r["reproduce"] for r in plain)


@needs_install
def test_the_class_page_of_an_attention_batch_has_no_reversal_section(tmp_path):
    import subprocess

    out = tmp_path / "batch"
    argv = ["batch", str(EXAMPLES), "--lesson", "attention", "--out", str(out), "-j", "1", "-q"]
    done = subprocess.run([sys.executable, "-m", "grader.cli", *argv], capture_output=True, text=True,
                          timeout=pace.seconds(600), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert "Reversal experiment" not in summary and "No experiment numbers" not in summary
    gradebook = (out / "gradebook.csv").read_text(encoding="utf-8")
    assert gradebook.splitlines()[0].count("causal_mask") == 1 and "right" in gradebook


@needs_install
def test_the_lesson_is_released_and_graded_in_the_students_copy(lesson, tmp_path):
    """`grade release OUT --lesson attention`: the kit and the lesson's package without its reference and
    hidden suite; a plain `grade` in the copy grades this lesson (its project setting) with the copy's
    own packages; a private line planted in the copy is found by the leak scan."""
    import os
    import subprocess

    from grader.engine.lessons import lookup
    from grader.instructor.lesson_release import main, public_lines, scan_lesson_release

    out = tmp_path / "copy"
    assert main([str(out), "--lesson", "attention"]) == 0
    package = out / "lesson_attention"
    assert (package / "suites" / "public").is_dir() and (package / "suites" / "pytest.ini").is_file()
    assert not (package / "suites" / "hidden").exists() and not (package / "solutions").exists()
    assert not (out / "lesson_embedding_pe").exists() and (out / "lesson.ipynb").is_file()
    assert "exercises/causal_attention.py" in (out / "README.md").read_text(encoding="utf-8")
    project = (out / "pyproject.toml").read_text(encoding="utf-8")
    assert '[tool.grade]\nlesson = "attention"' in project and 'attention = "lesson_attention"' in project
    assert 'include = ["grader*", "lesson_attention*"]' in project
    (out / "exercises" / "causal_attention.py").write_text(
        (EXAMPLES / "right" / "causal_attention.py").read_text(encoding="utf-8"), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(out))  # the copy's grader and lesson, before the installed ones
    done = subprocess.run([sys.executable, "-m", "grader.cli", "-q", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=pace.seconds(300), cwd=out, env=env)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert (results["score"], results["max_score"], results["suites"]) == (16.0, 16.0, ["public"])
    assert results["lesson"]["name"] == "attention"
    declared = lookup("attention").load()
    (out / "exercises" / "causal_attention.py").unlink()  # a submission in the copy is no release's
    assert scan_lesson_release(out, "lesson_attention", declared) == []
    solution = [line.strip() for line in (lesson.SOLUTIONS / "causal_attention.py").read_text(
        encoding="utf-8").splitlines()]
    shipped = public_lines(declared)
    private = next(line for line in solution if len(line) >= 30 and line not in shipped
                   and not line.startswith(("import", "from", "#")))
    (package / "planted.py").write_text(private + "\n", encoding="utf-8")
    findings = scan_lesson_release(out, "lesson_attention", declared)
    assert findings == [f"lesson_attention/planted.py: holds a private line: {private[:80]}"]


@needs_install
def test_the_gradescope_bundle_ships_and_grades_the_lesson(tmp_path):
    """`grade gradescope-bundle --lesson attention`: the lesson's source (hidden suite and reference, no
    tests or caches) beside the kit, installed by setup.sh; run in Gradescope's layout (with the lesson
    installed here, as setup.sh installs it there), the wrong example gets its 5 of 16."""
    import os
    import shutil
    import subprocess
    import zipfile

    from grader.instructor import gradescope_bundle

    bundle = tmp_path / "autograder.zip"
    argv = [str(bundle), "--lesson", "attention", "--public-only", "--lang", "en"]
    assert gradescope_bundle.main(argv) == 0
    with zipfile.ZipFile(bundle) as zf:
        names = set(zf.namelist())
        assert json.loads(zf.read(gradescope_bundle.CONFIG))["lesson"] == "attention"
        assert 'python3 -m pip install -e "$lesson"' in zf.read("setup.sh").decode()
    ours = {n for n in names if n.startswith("lessons/attention/")}
    assert {"lessons/attention/pyproject.toml", "lessons/attention/lesson_attention/__init__.py",
            "lessons/attention/lesson_attention/suites/hidden/test_attention.py",
            "lessons/attention/lesson_attention/solutions/causal_attention.py"} <= ours
    assert not any("/tests/" in n or "/examples/" in n or "/." in n for n in ours)
    root = tmp_path / "autograder"
    for folder in ("source", "submission", "results"):
        (root / folder).mkdir(parents=True)
    with zipfile.ZipFile(bundle) as zf:
        zf.extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    shutil.copy(EXAMPLES / "wrong" / "causal_attention.py", root / "submission")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "GK_PYTHON": sys.executable}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(["bash", str(root / "run_autograder")], env=env, capture_output=True, text=True,
                          timeout=pace.seconds(300))
    assert done.returncode == 0, done.stdout + done.stderr
    graded = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert graded["score"] == 6.0 and sum(t["max_score"] for t in graded["tests"]) == 16.0
