"""Notebooks as students hand them in, graded by the real grader: full marks for correct ones
whatever their top level does, points lost in the right task for buggy ones, and every cell
the grader did not run (or that failed) named in the report in both languages."""

from __future__ import annotations

import functools
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from grader.engine.submission import read_submission
from tests.conftest import ROOT, computed_once, failed_messages, grade, task_scores

NOTEBOOKS = ROOT / "tests" / "notebooks"
EXPECT = json.loads((NOTEBOOKS / "expect.json").read_text())


@pytest.fixture(scope="session")
def graded_notebook(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], dict]:
    """A notebook of tests/notebooks graded with the hidden suite, once per run (tests/conftest.py)."""
    @functools.cache
    def get(name: str) -> dict:
        return computed_once(tmp_path_factory, f"notebook-{name}", lambda: grade(NOTEBOOKS / f"{name}.ipynb"))
    return get


# Module-scoped: pytest then runs each notebook's tests one after the other, on one worker.
@pytest.fixture(scope="module", params=sorted(EXPECT))
def graded(request, graded_notebook):
    return request.param, EXPECT[request.param], graded_notebook(request.param)


def notes_of(results: dict) -> list[dict]:
    return ((results.get("artifacts") or {}).get("notebook") or {}).get("notes") or []


def test_correct_notebooks_get_full_marks_and_bugs_lose_their_task(graded):
    name, expect, results = graded
    scores = task_scores(results)
    failing = set(expect.get("failing_tasks", []))
    for task, (got, top) in scores.items():
        if task in failing:
            assert got < top, f"{name}: {task} should lose points"
        else:
            assert got == top, f"{name}: {task} {got}/{top}: {failed_messages(results, task)[:800]}"
    if expect.get("full_marks"):
        assert results["score"] == results["max_score"] == 94.5


def test_every_note_is_said_in_both_languages(graded):
    name, _expect, results = graded
    notes = notes_of(results)
    assert notes, f"{name}: a notebook with magics and demos has notes"
    for n in notes:
        assert n["messages"]["en"].startswith(f"cell {n['cell']}, line {n['line']}:")
        assert n["messages"]["ko"].startswith(f"셀 {n['cell']}, {n['line']}번째 줄:")


def test_a_korean_page_says_the_skipped_statements_once_in_korean(graded_notebook):
    """results.json keeps the statements with the ignored files (its contract); the pages say them once,
    as the notebook's notes in the reader's language, not again in English under "ignored files"."""
    from grader.report.render import render_html, render_markdown
    from grader.report.text import text_summary

    results = graded_notebook("ok_colab_export")
    assert any(" cell 2 line 1: `!pip install" in d for d in results["dropped"])
    for page in (render_markdown(results, "ko", "lesson.ipynb"), render_html(results, "ko", "lesson.ipynb"),
                 text_summary(results, "ko", "lesson.ipynb")):
        assert "cell 2 line 1" not in page and "not run" not in page
    assert "셀 2, 1번째 줄" in render_markdown(results, "ko", "lesson.ipynb")


def test_colab_export_says_what_it_skipped_and_skips_the_experiment(reference_results, graded_notebook):
    results = graded_notebook("ok_colab_export")
    by_text = "\n".join(n["messages"]["en"] for n in notes_of(results))
    assert "cell 4, line 2: `drive.mount('/content/drive')` needs Colab" in by_text
    assert "`from grader import check` the grading kit itself" in by_text
    assert "`google.colab` needs Colab: skipped" in by_text
    assert "`run_experiment` run at top level: not run while grading" in by_text
    assert "cell 2, line 1: `!pip install -q torch` a notebook command" in by_text
    assert "셀 4, 2번째 줄: `drive.mount('/content/drive')` Colab이 필요합니다" in "\n".join(
        n["messages"]["ko"] for n in notes_of(results))
    # a ten-minute sweep at top level: graded in about the time of the same code as .py files
    assert results["duration"] < reference_results["duration"] + 20


def test_early_failures_are_recorded_and_the_rest_still_runs(graded_notebook):
    results = graded_notebook("ok_early_failure")
    notes = {(n["cell"], n["reason"]): n for n in notes_of(results)}
    assert notes[(1, "raised")]["type"] == "ModuleNotFoundError" and "wandb" in notes[(1, "raised")]["detail"]
    assert notes[(2, "syntax")]["action"] == "failed"
    assert notes[(3, "raised")]["type"] == "NameError" and "BASE_LEN" in notes[(3, "raised")]["detail"]
    assert notes[(6, "slow")]["action"] == "stopped"  # train_all() at top level: stopped after 2 s
    assert all(n["important"] for key, n in notes.items() if key[1] in ("raised", "syntax", "slow"))


def test_notebook_report_lists_the_notes(graded_notebook):
    from grader.report.render import render_html, render_markdown

    name = "ok_colab_export"
    results = graded_notebook(name)

    html = render_html(results, "ko", str(NOTEBOOKS / f"{name}.ipynb"))
    assert 'id="notebook"' in html and "Colab이 필요합니다" in html
    assert "needs Colab" in render_markdown(results, "en", name)


def _notebook(tmp_path: Path, *sources: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    path = tmp_path / "work.ipynb"
    nbformat.write(nb, path)
    return path


def test_definitional_patterns_still_run(tmp_path):
    """Module-level tables built by helpers, setattr and attribute patching, register_buffer: all kept."""
    solution = (ROOT / "solutions" / "embedding.py").read_text()
    path = _notebook(
        tmp_path,
        solution.replace("from __future__ import annotations\n", ""),
        "def _table(n):\n    return sinusoidal_pe(n, 8)\n\n_PE_CACHE = {16: _table(16)}\n"
        "def cached_pe(n):\n    return _PE_CACHE[n]",
        "_original_forward = TokenAndPosEmbedding.forward\n\n"
        "def _forward(self, ids):\n    return _original_forward(self, ids)\n\n"
        "TokenAndPosEmbedding.forward = _forward\nsetattr(TinyLM, 'n_layers', 0)",
        "emb = TokenAndPosEmbedding(10, 8, 16)\nemb.eval()\n"
        "print(emb(torch.zeros(1, 3, dtype=torch.long)).shape)",
    )
    sub = read_submission(path, tmp_path / "staging")
    kept = sub.sources["notebook"]
    assert "_PE_CACHE = {16: _table(16)}" in kept and "TokenAndPosEmbedding.forward = _forward" in kept
    assert "setattr(TinyLM" in kept and "emb.eval()" not in kept
    results = grade(path, hidden=False, keyword="TokenAndPosEmbedding or weight_tying")
    assert {t: s for t, s in task_scores(results).items() if s[1]} == {
        "TokenAndPosEmbedding": task_scores(results)["TokenAndPosEmbedding"],
        "weight_tying": task_scores(results)["weight_tying"]}
    assert all(got == top for got, top in task_scores(results).values() if top)
    assert not [n for n in notes_of(results) if n["action"] != "skipped"]


def test_a_failing_cell_costs_only_what_it_defines(tmp_path):
    """A typo in one class of a cell loses that class; the cell's other definitions and later cells still count."""  # noqa: E501
    emb = (ROOT / "solutions" / "embedding.py").read_text()
    broken = emb.replace("class TinyLM(nn.Module):", "class TinyLM(nn.Module)")  # a missing colon
    assert broken != emb
    path = _notebook(tmp_path, broken, (ROOT / "solutions" / "leetcode.py").read_text())
    results = grade(path, hidden=False, keyword="weight_tying or leetcode_practice or sinusoidal_pe")
    scores = task_scores(results)
    assert scores["weight_tying"][0] < scores["weight_tying"][1]
    for task in ("sinusoidal_pe", "leetcode_practice"):
        assert scores[task][0] == scores[task][1] > 0, failed_messages(results, task)[:600]
    assert any(n["reason"] == "syntax" and n["cell"] == 1 for n in notes_of(results))
    text = failed_messages(results, "weight_tying")
    # the check's words agree with the cell's note (the rest of the cell ran: sinusoidal_pe passes)
    assert ("Expected `TinyLM` from your notebook; found none: cell 1 defines it, but that statement does "
            "not parse") in text and "(the rest of the cell was)" in text
    assert "nothing in that cell" not in text
    ko = failed_messages(results, "weight_tying", "ko")
    assert "셀 1에서 정의하지만 그 문장에 문법 오류가" in ko and "셀의 나머지는 실행했습니다" in ko
    note = next(n for n in notes_of(results) if n["reason"] == "syntax")
    assert "the rest of the cell was" in note["messages"]["en"]
    assert "셀의 나머지는 실행했습니다" in note["messages"]["ko"]
    # every check the cell costs is one cause: one card, counted once
    from grader.report.cards import build_cards
    from grader.report.view import failure_rows

    cards, _ = build_cards(failure_rows(results, "en", "lesson.ipynb"), "en")
    missing = [c for c in cards if any("found none: cell 1" in f["text"] for f in c["checks"])]
    assert len(missing) == 1 and missing[0]["count"] == len(
        [t for t in results["tests"] if "found none: cell 1" in t["message"]]), [c["count"] for c in cards]


def test_py_files_with_demos_and_an_unguarded_experiment_get_full_marks(tmp_path):
    """The lesson's demos pasted into embedding.py and run_experiment() without a __main__ guard in reversal.py."""  # noqa: E501
    for f in (ROOT / "solutions").iterdir():
        if f.is_file():  # not a bytecode cache
            shutil.copy(f, tmp_path / f.name)
    with (tmp_path / "embedding.py").open("a") as fh:
        fh.write("\nfrom google.colab import drive\ndrive.mount('/content/drive')\n"
                 "pe = sinusoidal_pe(16, 8)\nprint(pe.shape)\n"
                 "print(sinusoidal_pe(5, 3))  # odd d_model: raises\n"
                 "layer = TokenAndPosEmbedding(10, 8, 16, mode='sin')\nlayer.eval()\n"
                 "out = layer(torch.tensor([[1, 2, 3, 2]]))\n")
    with (tmp_path / "reversal.py").open("a") as fh:
        fh.write("\nrows = run_experiment(seeds=(0, 1, 2), steps=1500)\nprint(rows)\n")
    sub = read_submission(tmp_path, tmp_path / "staging")
    staged = (sub.staging / "embedding.py").read_text()
    assert "print(pe.shape)" not in staged and "def sinusoidal_pe" in staged
    assert staged.count("\n") == (tmp_path / "embedding.py").read_text().count("\n")  # line numbers kept
    results = grade(tmp_path, hidden=False, keyword="not log")
    assert all(got == top for got, top in task_scores(results).values()), task_scores(results)
    notes = "\n".join(n["messages"]["en"] for n in notes_of(results))
    assert "run_experiment" in notes and "embedding.py line" in notes


# --------------------------------------------------------------------------- files that are not text


@pytest.mark.parametrize("content,words_en,words_ko", [
    (b"PK\x03\x04" + b"\0" * 200, "looks like a zip archive", "zip 압축 파일"),
    (b"\xa7\r\r\n" + b"\0" * 12 + b"\xe3" * 40, "compiled Python bytecode", "바이트코드"),
    (b"def f():\n    return 1\n\0\0\0garbage", "binary data (it holds NUL bytes)", "NUL 바이트"),
])
def test_a_binary_file_is_named_as_such_not_a_syntax_error(tmp_path, content, words_en, words_ko):
    for f in (ROOT / "solutions").glob("*.py"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "embedding.py").write_bytes(content)
    results = grade(tmp_path, hidden=False, keyword="sinusoidal_pe or leetcode_practice")
    scores = task_scores(results)
    assert (scores["sinusoidal_pe"][0] == 0
            and scores["leetcode_practice"][0] == scores["leetcode_practice"][1])
    en, ko = failed_messages(results, "sinusoidal_pe"), failed_messages(results, "sinusoidal_pe", "ko")
    assert "embedding.py is not a text file" in en and words_en in en and "SyntaxError" not in en
    assert "텍스트 파일이 아닙니다" in ko and words_ko in ko
    assert any("embedding.py: not a text file" in d for d in results["dropped"])


def test_korean_windows_and_utf16_sources_are_converted(tmp_path):
    for f in (ROOT / "solutions").glob("*.py"):
        shutil.copy(f, tmp_path / f.name)
    text = (ROOT / "solutions" / "leetcode.py").read_text() + "\n# 한국어 주석: 윈도우 메모장에서 저장함\n"
    (tmp_path / "leetcode.py").write_bytes(text.encode("cp949"))
    (tmp_path / "embedding.py").write_bytes(
        (ROOT / "solutions" / "embedding.py").read_text().encode("utf-16"))
    results = grade(tmp_path, hidden=False, keyword="leetcode_practice or sinusoidal_pe")
    assert all(got == top for got, top in task_scores(results).values() if top)
    assert any("cp949" in d for d in results["dropped"]) and any("UTF-16" in d for d in results["dropped"])


def test_a_binary_log_is_named_as_such(tmp_path):
    for f in (ROOT / "solutions").glob("*.py"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "LEETCODE_LOG.md").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 300)
    results = grade(tmp_path, hidden=False, keyword="leetcode_log")
    assert task_scores(results)["leetcode_log"][0] == 0
    assert ("LEETCODE_LOG.md is not a text file: it looks like an old-style Office document"
            in failed_messages(results, "leetcode_log"))


PATTERNS = '''\
import os
import sys
import torch
import torch.nn as nn
from google.colab import drive

os.environ["KMP_DUPLICATE_LIB_OK"] = "TRUE"
torch.manual_seed(0)
torch.backends.cudnn.deterministic = True
_TABLE = {}


def _build(n):
    return torch.arange(n)


pe_table = _build(16)
_TABLE[16] = _build(16)
shared = nn.Embedding(4, 2)


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("pe", pe_table.clone())


def _forward(self, x):
    return x


Holder.forward = _forward
setattr(Holder, "tag", "ok")
Holder.shared = shared
demo = Holder()
print(demo(torch.zeros(1)))
drive.mount("/content/drive")
for i in range(3):
    pass
rows = run_experiment(seeds=(0, 1, 2), steps=1500)
'''


def test_py_pruning_keeps_every_definitional_pattern():
    from grader.engine.lessons import load_lesson
    from grader.engine.submission import notebook_rules
    from grader.notebook.plan import prune_module

    pruned, notes = prune_module(PATTERNS, set(), notebook_rules(load_lesson()))
    dropped = {n.code for n in notes}
    assert dropped == {"from google.colab import drive", "demo = Holder()", "print(demo(torch.zeros(1)))",
                       'drive.mount("/content/drive")', "rows = run_experiment(seeds=(0, 1, 2), steps=1500)"}
    for kept in ('os.environ["KMP_DUPLICATE_LIB_OK"]', "torch.manual_seed(0)", "cudnn.deterministic",
                 "pe_table = ", "_TABLE[16] = ", "shared = nn.Embedding", "Holder.forward = _forward",
                 "setattr(Holder", "Holder.shared = shared", "for i in range(3):"):
        assert kept in pruned, kept
    assert pruned.count("\n") == PATTERNS.count("\n")


def test_a_notebook_stages_the_same_file_whatever_the_string_hashing(tmp_path):
    """The staged file decides the content hash and so the seeds a grade draws: it must not follow
    Python's per-process string hashing (the zygote runs `python -I`, so each grade has its own)."""
    import hashlib
    import os
    import subprocess
    import sys

    code = ("import sys, tempfile, pathlib; from grader.engine.submission import read_submission; "
            "s = read_submission(pathlib.Path(sys.argv[1]), pathlib.Path(tempfile.mkdtemp())); "
            "print((s.staging / 'notebook.py').read_text(encoding='utf-8'))")
    staged = set()
    for seed in ("1", "2", "3"):
        done = subprocess.run([sys.executable, "-c", code, str(ROOT / "examples" / "notebook.ipynb")],
                              capture_output=True, text=True, check=True, cwd=ROOT,
                              env=dict(os.environ, PYTHONHASHSEED=seed))
        assert "__GK_UNAVAILABLE = {" in done.stdout
        staged.add(hashlib.sha256(done.stdout.encode()).hexdigest())
    assert len(staged) == 1


def test_a_place_in_a_notebook_reads_as_a_cell_in_the_readers_language(tmp_path):
    """A check stopping at a cell's NotImplementedError names the place "cell 2:3" in English and
    "셀 2:3" in Korean, in the message and in the not-started line (never "cell" on a Korean page)."""
    from grader.jupyter.check import CheckResult
    from grader.report.render import render_markdown
    from grader.report.text import text_summary

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import math\nimport torch"),
        nbformat.v4.new_code_cell("def sinusoidal_pe(max_len, d_model):\n    # TODO\n"
                                  "    raise NotImplementedError"),
    ])
    path = tmp_path / "lesson.ipynb"
    nbformat.write(nb, str(path))
    results = grade(path, hidden=False, keyword="sinusoidal_pe")
    assert "cell 2:3" in failed_messages(results, "sinusoidal_pe", "en")
    ko = [text_summary(results, "ko", "lesson.ipynb"), render_markdown(results, "ko", "lesson.ipynb"),
          repr(CheckResult(results, "ko", None)), failed_messages(results, "sinusoidal_pe", "ko")]
    for page in ko:
        assert "셀 2:3" in page and "cell 2" not in page, page
    assert "cell 2:3" in text_summary(results, "en", "lesson.ipynb")


def test_a_notebook_whose_cells_lack_ids_is_read_without_a_warning(tmp_path):
    """A 4.5 notebook without cell ids (written by an older tool, or by hand) is read as it is: nbformat's
    schema note is no student's business and never reaches the terminal."""
    import warnings

    nb = json.loads((ROOT / "examples" / "notebook.ipynb").read_text(encoding="utf-8"))
    nb["nbformat"], nb["nbformat_minor"] = 4, 5
    for cell in nb["cells"]:
        cell.pop("id", None)
    path = tmp_path / "no_ids.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the read
        sub = read_submission(path, tmp_path / "staging")
    assert sub.notebook and "notebook.py" in sub.files
