"""`grade similarity`: MOSS-style code similarity over a real `grade batch` folder, and over merged shards.

The class (tests/similarity/): ``indep_a`` and ``indep_b`` are two correct solutions written separately
(different structure throughout; both get full marks with the hidden suite), ``reference`` is the kit's
own solution, ``copy_of_a`` is ``indep_a`` with its names renamed and comments added, and ``lesson_1``
and ``lesson_2`` are the stubs with the lesson's own code pasted in and nothing else, in two orders and
files. The kit quotes nothing from the lesson, so those two are made here from the lesson students
read (../shared/lesson/lesson-ko.txt, or $GK_LESSON_TEXT) and left out where it is not. The batches run
one public test (``--public-only -k``) to stay fast: similarity does not depend on the grade.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.instructor.batch import discover, shard_of
from grader.instructor.similarity import collect, find_submissions
from grader.instructor.similarity.fingerprint import Settings, compare_all, fingerprint_all
from tests import batch_cli

ROOT = Path(__file__).resolve().parent.parent
CLASS = ROOT / "tests" / "similarity"
LESSON_TEXT = Path(os.environ.get("GK_LESSON_TEXT") or ROOT.parent / "shared" / "lesson" / "lesson-ko.txt")
HAS_LESSON = LESSON_TEXT.is_file()
needs_lesson = pytest.mark.skipif(not HAS_LESSON,
                                  reason=f"the lesson students read is not here ({LESSON_TEXT})")
FILTER = ["--public-only", "-k", "test_shape_and_dtype", "-j", "2", "--timeout", "120", "-q"]
INDEPENDENT = ("indep_a", "indep_b", "reference")
PHONE = 390


def grade(*args: str, timeout: float = 400) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "grader.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def read_csv(out: Path) -> list[dict]:
    raw = (out / "similarity.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    return list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline="")))


def pair_of(rows: list[dict], a: str, b: str) -> dict:
    return next(r for r in rows if {r["a"], r["b"]} == {a, b})


def lesson_blocks() -> list[str]:
    """The lesson's code blocks: each starts after a line `python` and runs to the next line of prose
    (a line that starts with a Korean letter)."""
    blocks: list[list[str]] = []
    inside = False
    for line in LESSON_TEXT.read_text(encoding="utf-8").splitlines():
        if line.strip() == "python":
            blocks.append([])
            inside = True
        elif inside and line[:1] and "\uac00" <= line[0] <= "\ud7a3":
            inside = False
        elif inside:
            blocks[-1].append(line)
    return ["\n".join(b).strip() + "\n" for b in blocks if "".join(b).strip()]


def lesson_student(folder: Path, order: int) -> Path:
    """The stubs with every code block of the lesson pasted in: into embedding.py in the lesson's order
    (order 1), or into reversal.py last block first (order 2)."""
    shutil.copytree(ROOT / "exercises", folder, ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    blocks = lesson_blocks() if order == 1 else lesson_blocks()[::-1]
    target = folder / ("embedding.py" if order == 1 else "reversal.py")
    target.write_text(target.read_text(encoding="utf-8") + "\n\n" + "\n\n".join(blocks), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def subs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("class")
    for d in CLASS.iterdir():
        shutil.copytree(d, root / d.name)
    shutil.copytree(ROOT / "solutions", root / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    if HAS_LESSON:
        for order in (1, 2):
            lesson_student(root / f"lesson_{order}", order)
    return root


@pytest.fixture(scope="module")
def batch(subs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("batch")
    grade("batch", str(subs), "--out", str(out), *FILTER)
    return out


def test_a_disguised_copy_is_the_most_similar_pair_and_flagged(batch: Path) -> None:
    rows = read_csv(batch)
    names = {"copy_of_a", "indep_a", "indep_b", "reference"}
    names |= {"lesson_1", "lesson_2"} if HAS_LESSON else set()
    assert len(rows) == len(names) * (len(names) - 1) // 2
    assert {r["a"] for r in rows} | {r["b"] for r in rows} == names
    top = rows[0]
    assert {top["a"], top["b"]} == {"copy_of_a", "indep_a"}
    assert top["flagged"] == "true" and float(top["similarity"]) > 0.9 and int(top["matched_tokens"]) > 1000
    assert [r for r in rows if r["flagged"] == "true"] == [top]
    scores = [float(r["similarity"]) for r in rows]
    assert scores == sorted(scores, reverse=True)


def test_independently_written_solutions_are_not_flagged(batch: Path) -> None:
    rows = read_csv(batch)
    for i, a in enumerate(INDEPENDENT):
        for b in INDEPENDENT[i + 1:]:
            row = pair_of(rows, a, b)
            assert row["flagged"] == "false" and float(row["similarity"]) < 0.3, row


@needs_lesson
def test_the_stubs_and_the_lessons_code_alone_do_not_flag_two_students(batch: Path) -> None:
    row = pair_of(read_csv(batch), "lesson_1", "lesson_2")
    assert row["flagged"] == "false" and int(row["matched_tokens"]) < 50, row
    # What keeps them apart is the boilerplate: without it the pasted lesson code is a near-perfect match.
    codes = {s.id: s.code for s in find_submissions(batch)}
    settings = Settings(boilerplate=False)
    pairs = compare_all(fingerprint_all(codes, settings)[0], settings)
    raw = next(p for p in pairs if {p.a, p.b} == {"lesson_1", "lesson_2"})
    assert raw.flagged and raw.similarity > 0.9


def test_the_batch_keeps_each_submissions_code_and_links_the_page(batch: Path) -> None:
    kept = batch / "copy_of_a" / "code"
    assert sorted(p.name for p in kept.iterdir()) == ["embedding.py", "leetcode.py", "reversal.py"]
    assert (kept / "embedding.py").read_text() == (CLASS / "copy_of_a" / "embedding.py").read_text()
    assert 'href="similarity.html"' in (batch / "summary.html").read_text(encoding="utf-8")


def test_the_page_shows_the_copy_side_by_side_and_says_it_is_not_proof(batch: Path) -> None:
    page = (batch / "similarity.html").read_text(encoding="utf-8")
    assert "Similarity is not proof of copying" in page and "유사도는 표절의 증거가 아닙니다" in page
    first = page[page.index('id="pair-1"'):page.index('id="pair-2"')]
    marks = "".join(re.findall(r"<mark>(.*?)</mark>", first, re.S))
    # The renamed line is highlighted on both sides, in each side's own names.
    assert "torch.outer(positions, freqs)" in marks and "torch.outer(pos_idx, inv_freq)" in marks
    assert "copy_of_a/code/" in first and "indep_a/code/" in first


def test_the_page_is_readable_on_a_phone(batch: Path, chromium, tmp_path: Path) -> None:
    visit = chromium.visit(batch / "similarity.html", {"width": "document.documentElement.scrollWidth"},
                           width=PHONE)
    assert visit.console_errors == [] and visit.network_requests == []
    assert visit.values["width"] <= PHONE, visit.values
    (tmp_path / "similarity-phone.png").write_bytes(visit.screenshot)


def test_merged_shards_give_the_same_pairs(subs: Path, batch: Path, tmp_path: Path) -> None:
    one, two, merged = tmp_path / "one", tmp_path / "two", tmp_path / "merged"
    # each shard's submissions as the unsharded batch graded them (with their kept code): each shard's own
    # `grade batch` finds them done and grades none; what is checked here is the pairs, not the grades
    entries = discover(subs)
    for k, out, extra in ((1, one, ["--no-similarity"]), (2, two, [])):
        names = [e.name for e in shard_of(entries, k, 2)]
        batch_cli.seed(batch, out, names)
        proc = batch_cli.grade("batch", str(subs), "--out", str(out), "--shard", f"{k}/2", *extra,
                               *FILTER[:-1], here=True)
        assert f"{len(names)} already graded, 0 to grade" in proc.stdout, proc.stdout
    assert not (one / "similarity.csv").exists() and (two / "similarity.csv").exists()
    assert len(read_csv(two)) < 15  # a shard compares only its own half
    batch_cli.grade("merge", str(one), str(two), "--out", str(merged), "-q")
    proc = batch_cli.grade("similarity", str(merged))
    assert "1 flagged" in proc.stdout and (merged / "similarity.html").exists()
    assert 'href="similarity.html"' in (merged / "summary.html").read_text(encoding="utf-8")
    assert read_csv(merged) == read_csv(batch)


def test_the_command_refuses_what_is_not_a_folder(tmp_path: Path) -> None:
    proc = batch_cli.grade("similarity", str(tmp_path / "nope"), ok=False)
    assert proc.returncode == 2 and "폴더가 아닙니다" in proc.stderr


# -- what is read of a submission ------------------------------------------------------------------


def test_a_zip_and_a_folder_give_the_same_code(tmp_path: Path) -> None:
    archive = tmp_path / "b.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for p in (CLASS / "indep_b").iterdir():
            z.write(p, f"homework/{p.name}")  # one top folder, as students zip it
        z.writestr("homework/__MACOSX/._embedding.py", b"\0\0junk")
    assert collect.submission_code(archive) == collect.submission_code(CLASS / "indep_b")


def test_a_notebook_gives_its_code_cells_with_magics_as_comments(tmp_path: Path) -> None:
    nb = {"cells": [{"cell_type": "markdown", "source": "# title"},
                    {"cell_type": "code", "source": ["%pip install torch\n", "import torch\n"]},
                    {"cell_type": "code", "source": "x = torch.zeros(3)"}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "hw.ipynb"
    path.write_text(json.dumps(nb))
    code = collect.submission_code(path)
    assert code == {"hw.ipynb.py": "# In[2]\n# %pip install torch\nimport torch\n\n"
                                   "# In[3]\nx = torch.zeros(3)\n"}
    assert "def sinusoidal_pe" in collect.submission_code(ROOT / "examples" / "notebook.ipynb")[
        "notebook.ipynb.py"]


def test_links_are_not_followed_and_the_kits_layout_is_read_as_the_grader_reads_it(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    (sub / "exercises").mkdir(parents=True)
    shutil.copy(CLASS / "indep_a" / "embedding.py", sub / "exercises" / "embedding.py")
    (sub / "exercises" / "secret.py").symlink_to("/etc/hostname")
    (sub / "setup.py").write_text("print('not the student code')\n")
    embedding = (CLASS / "indep_a" / "embedding.py").read_text()
    assert collect.submission_code(sub, ("embedding",)) == {"embedding.py": embedding}
    # exercises/ is the submission only for a lesson whose module it holds: for another, the root
    setup = "print('not the student code')\n"
    assert collect.submission_code(sub, ("causal_attention",)) == {"setup.py": setup}


def test_a_result_graded_before_code_was_kept_reads_the_submission_again(batch: Path, tmp_path: Path) -> None:
    out = tmp_path / "old"
    shutil.copytree(batch / "indep_a", out / "indep_a")
    shutil.rmtree(out / "indep_a" / "code")
    marker = json.loads((out / "indep_a" / "batch.json").read_text())
    assert Path(marker["path"]).is_dir()
    (found,) = find_submissions(out)
    assert found.code == collect.submission_code(CLASS / "indep_a", ("embedding", "reversal", "leetcode"))


def test_the_csv_quotes_a_name_a_spreadsheet_would_run(tmp_path: Path) -> None:
    for name in ("=cmd", "plain"):
        (tmp_path / name / "code").mkdir(parents=True)
        shutil.copy(CLASS / "indep_a" / "embedding.py", tmp_path / name / "code" / "embedding.py")
        (tmp_path / name / "batch.json").write_text(json.dumps({"name": name, "student_id": name}))
    batch_cli.grade("similarity", str(tmp_path), "-q")
    (row,) = read_csv(tmp_path)
    assert row["a"] == "'=cmd" and row["b"] == "plain" and row["flagged"] == "true"


# -- the fingerprints ------------------------------------------------------------------------------


def test_the_tokens_are_copydetects_and_map_back_to_the_text_as_written() -> None:
    from copydetect.utils import filter_code

    from grader.instructor.similarity.fingerprint import char_map, join_files

    for folder in (*CLASS.iterdir(), ROOT / "solutions", ROOT / "examples" / "buggy", ROOT / "exercises"):
        text, _ = join_files(collect.submission_code(folder))
        filtered, starts, ends = char_map(text)
        assert filtered == filter_code(text, "code.py")[0], folder
        # a name (V, F, O) or a string's text (S) maps to what was written, a quote to a quote
        for i in range(len(filtered)):
            written, c = text[starts[i]:ends[i]], filtered[i]
            assert (written == c or (c in "VFO" and written.isidentifier()) or (c == "S" and written)
                    or (c == '"' and written in ("'", '"'))), (folder, i, c, written)


def test_a_class_is_fingerprinted_the_same_on_several_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.instructor.similarity import fingerprint

    codes = {f"s{i:02d}": collect.submission_code(CLASS / ("indep_a", "indep_b", "copy_of_a")[i % 3])
             for i in range(40)}
    settings = Settings()
    monkeypatch.setattr(fingerprint.os, "cpu_count", lambda: 2)
    parallel = fingerprint.fingerprint_all(codes, settings)[0]
    monkeypatch.setattr(fingerprint, "PER_WORKER", 10**6)  # one process
    serial = fingerprint.fingerprint_all(codes, settings)[0]
    assert [(d.name, d.fp.hash_idx, d.own_tokens) for d in parallel] == \
        [(d.name, d.fp.hash_idx, d.own_tokens) for d in serial]


def test_the_student_copy_does_not_install_copydetect() -> None:
    import tomllib

    from grader.instructor.release import student_pyproject

    assert any(d.startswith("copydetect") for d in tomllib.loads((ROOT / "pyproject.toml").read_text())[
        "project"]["dependencies"])
    project = tomllib.loads(student_pyproject("embedding-pe"))["project"]
    assert not any("copydetect" in d for d in project["dependencies"])


@needs_lesson
def test_the_kit_keeps_only_hashes_of_the_lesson_and_they_are_current() -> None:
    """The lesson is not quoted in the kit (its README): lesson_kgrams.txt holds numbers only, and they
    are exactly the hashes of the lesson as it is now (else: regenerate, boilerplate.py says how)."""
    from grader.instructor.similarity.boilerplate import LESSON_KGRAMS, stored_lesson_kgrams, text_kgrams

    stored = LESSON_KGRAMS.read_text(encoding="ascii").splitlines()
    assert all(line.startswith(("#", "k=")) or line.lstrip("-").isdigit() for line in stored)
    k, hashes = stored_lesson_kgrams()
    assert hashes == text_kgrams(LESSON_TEXT.read_text(encoding="utf-8"), k)
    shipped = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in ROOT.glob("grader/**/*")
                        if p.is_file() and p.suffix in (".py", ".txt", ".j2", ".md"))
    for block in lesson_blocks():
        lines = [ln for ln in block.splitlines() if len(ln.strip()) > 40]  # not a one-line API call
        assert not any(ln in shipped for ln in lines), lines


def test_a_copy_saved_by_another_editor_reads_as_the_same_code(tmp_path: Path) -> None:
    """Notepad's BOM and CRLF, or the Korean Windows encoding with its cookie, hide nothing: the code is
    read as the grader stages it (core/text.as_python)."""
    original = collect.submission_code(CLASS / "indep_a")
    for name, encode in (("bom_crlf", lambda t: b"\xef\xbb\xbf" + t.replace("\n", "\r\n").encode("utf-8")),
                         ("cp949", lambda t: ("# -*- coding: cp949 -*-\n" + t).encode("cp949"))):
        folder = tmp_path / name
        folder.mkdir()
        for file, text in original.items():
            (folder / file).write_bytes(encode(text))
        saved = collect.submission_code(folder)
        if name == "cp949":
            saved = {f: t.split("\n", 1)[1] for f, t in saved.items()}
        assert saved == original, name
