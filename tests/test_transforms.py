"""The grader reads a submission as Python does, and what cannot change what the code does
cannot change its grade.

The decoding checks run on every file of the corpus (they parse, never grade).  The graded property
test lets hypothesis combine transformations (tests/transforms.py) on a few submissions with the
public suite; ``bench/bench_transforms.py`` is the full sweep (every case, every transformation,
both suites).
"""

from __future__ import annotations

import ast
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pace
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from grader.core import tamper
from grader.core.text import as_python, python_source, read_python
from grader.engine.submission import read_submission
from lesson_embedding_pe import structure
from tests.conftest import CORPUS, ROOT, grade, task_scores
from tests.transforms import CONTAINERS, ENCODINGS, NEWLINES, SOURCE_EDITS, build, load, parses, save

sys.path.insert(0, str(ROOT / "bench"))
from bench_transforms import KEYWORD, applies, differences, verdict  # noqa: E402

FOLDERS = sorted({p.parent for p in CORPUS.glob("*/*.py")}
                 | {ROOT / "solutions", ROOT / "examples" / "reference", ROOT / "examples" / "buggy"})
# Each distinct file once (most of the corpus is the reference with one change).
SOURCES = sorted({f.read_bytes(): f for folder in FOLDERS for f in folder.glob("*.py")}.values())


def _same_program(a: bytes | str, b: bytes | str) -> bool:
    """Both compile to the same program (``ast.parse`` of bytes decodes as the importer does)."""
    return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))


# --------------------------------------------------------------------------- one way to read source


def test_every_saving_of_every_corpus_file_is_staged_as_the_importer_reads_it(tmp_path):
    checked = 0
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        if not parses(text):
            continue
        for encoding in ENCODINGS:
            lf = save(text, encoding, "lf")
            program = ast.dump(ast.parse(lf))  # the CPython parser's reading of the bytes
            first = as_python(lf)
            assert first.note == "" and first.text is not None
            assert ast.dump(ast.parse(first.staged)) == program, (path, encoding)
            assert python_source(first.staged) == first.text  # UTF-8, LF, no BOM: one text for all
            (tmp_path / "f.py").write_bytes(lf)
            read = read_python(tmp_path / "f.py")  # the trusted readers' view of the unstaged file
            assert ast.dump(ast.parse(read)) == program and not read.startswith("\ufeff")
            for newline in NEWLINES[1:]:  # CRLF and CR: the same staged bytes, the same reading
                data = save(text, encoding, newline)
                assert as_python(data) == first, (path, encoding, newline)
                if newline == "cr" and encoding == "cp949-cookie":  # the case tokenize alone misreads
                    assert ast.dump(ast.parse(data)) == program
                (tmp_path / "f.py").write_bytes(data)
                assert read_python(tmp_path / "f.py") == read
                checked += 1
    assert checked > 60


def test_form_feeds_tabs_and_a_declared_latin_1_read_as_python_reads_them(tmp_path):
    source = ("# -*- coding: latin-1 -*-\n\x0cdef f():\n\tx = 'café'\n\treturn x\n\x0c\nclass K:\n"
              "    pass\n").encode("latin-1")
    staged = as_python(source)
    assert _same_program(staged.staged, source) and "café" in staged.text
    assert staged.text.splitlines()[0] == "# -*- coding: utf-8 -*-"  # it is staged as UTF-8 now
    ns: dict = {}
    exec(compile(staged.staged, "f.py", "exec"), ns)
    assert ns["f"]() == "café"


def test_bytes_python_refuses_are_staged_as_they_are_so_the_import_says_why():
    wrong_cookie = "# coding: utf-8\nx = '한국어'\n".encode("cp949")
    assert as_python(wrong_cookie).staged == wrong_cookie
    with pytest.raises(SyntaxError):
        compile(as_python(wrong_cookie).staged, "f.py", "exec")
    no_cookie = "x = '한국어'\r\n".encode("cp949")  # the kit is kinder than Python here (as before)
    converted = as_python(no_cookie)
    assert "cp949" in converted.note and converted.text == "x = '한국어'\n"


def test_a_home_file_the_grader_cannot_parse_is_the_graders_error_not_a_lost_point(tmp_path):
    # The structural checks run after the behaviour passed, i.e. after the worker imported the class:
    # when the grader's own parse then fails, the point stays and both languages say whose fault it is.
    (tmp_path / "embedding.py").write_text("class TokenAndPosEmbedding(:\n    pass\n", encoding="utf-8")
    evidence = structure.registers_buffer(tmp_path)
    assert evidence.ok
    assert "grader's error" in evidence.en and "채점기의 오류" in evidence.ko
    (tmp_path / "embedding.py").write_text("TokenAndPosEmbedding = type('T', (), {})\n", encoding="utf-8")
    assert not structure.registers_buffer(tmp_path).ok  # a file that parses and has no class still counts


def test_the_graders_parse_error_is_told_on_the_passing_test(monkeypatch):
    # As if the grader's parser disagreed with the worker's on embedding.py: the structural test keeps
    # its point and its results.json entry says whose error it is, in both languages.
    from grader.core import source

    def unreadable(staging):
        found = source.read_sources(staging)
        for f in found.files:
            if f.name == "embedding.py":
                f.tree, f.error = None, "SyntaxError: as if"
        return found

    from grader.engine import student

    monkeypatch.setattr(student, "sources_of", unreadable)  # what student.sources reads
    results = grade(ROOT / "solutions", hidden=False, keyword="test_sin_table_is_a_buffer")
    [test] = results["tests"]
    assert test["status"] == "passed" and test["score"] == test["max_score"] > 0
    assert "grader's error" in test["messages"]["en"] and "채점기의 오류" in test["messages"]["ko"]


def test_a_declared_encoding_cannot_hide_code_from_the_tamper_scan(tmp_path):
    # UTF-7 spells "__globals__" as "+AF8AXw-globals+AF8AXw-": the scan reads what Python will run.
    for f in (ROOT / "solutions").glob("*.py"):
        shutil.copy(f, tmp_path / f.name)
    hidden = '# coding: utf-7\nname = "+AF8AXw-globals+AF8AXw-"\n'
    rest = (ROOT / "solutions" / "leetcode.py").read_text(encoding="utf-8").encode("utf-7")
    (tmp_path / "leetcode.py").write_bytes(hidden.encode() + rest)
    sub = read_submission(tmp_path, tmp_path / "staged")
    assert '"__globals__"' in sub.sources["leetcode"]
    reasons = tamper.review(sub.staging)["reasons"]
    assert any("__globals__" in r["en"] for r in reasons), reasons


def test_the_staged_log_has_no_byte_order_mark_and_lf_line_ends(tmp_path):
    for f in (ROOT / "solutions").glob("*.py"):
        shutil.copy(f, tmp_path / f.name)
    log = (ROOT / "solutions" / "LEETCODE_LOG.md").read_text(encoding="utf-8")
    (tmp_path / "LEETCODE_LOG.md").write_bytes(b"\xef\xbb\xbf" + log.replace("\n", "\r\n").encode())
    sub = read_submission(tmp_path, tmp_path / "staged")
    assert sub.log_text == log
    assert (tmp_path / "staged" / "LEETCODE_LOG.md").read_text(encoding="utf-8") == log


def _windows_copy(folder: Path, dest: Path) -> Path:
    """``folder`` as a Windows student saves it: Notepad's BOM and CRLF; leetcode.py in CP949, declared."""
    dest.mkdir()
    for f in folder.iterdir():
        if f.suffix == ".py" or f.name == "LEETCODE_LOG.md":
            text = f.read_text(encoding="utf-8")
            if f.name == "leetcode.py":
                text += "# 윈도우 메모장에서 저장함\n"
                (dest / f.name).write_bytes(save(text, "cp949-cookie", "crlf"))
            else:
                (dest / f.name).write_bytes(save(text, "utf-8-bom", "crlf"))
    return dest


def test_a_windows_student_gets_full_marks_on_the_hidden_suite(tmp_path):
    results = grade(_windows_copy(ROOT / "solutions", tmp_path / "win"), keyword=KEYWORD)
    assert results["score"] == results["max_score"], [
        (t["id"], t["messages"]["en"][:200]) for t in results["tests"] if t["status"] != "passed"]
    assert "TokenAndPosEmbedding" in task_scores(results) and "weight_tying" in task_scores(results)


# --------------------------------------------------------------------------- the transformations themselves


@pytest.mark.parametrize("edit", sorted(SOURCE_EDITS))
def test_each_source_edit_changes_the_text_and_keeps_the_program(edit):
    changed = 0
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        if not parses(text):
            continue
        out = SOURCE_EDITS[edit](text, random.Random(3))
        changed += out != text
        before, after = ast.parse(text), ast.parse(out)
        if edit in ("tabs", "comments"):
            assert ast.dump(before) == ast.dump(after), path  # layout only
        elif edit == "reorder":
            assert sorted(map(ast.dump, before.body)) == sorted(map(ast.dump, after.body)), path
        else:  # the same program up to the names of locals
            assert len(list(ast.walk(before))) == len(list(ast.walk(after))), path
            assert {type(n) for n in ast.walk(before)} == {type(n) for n in ast.walk(after)}, path
    assert changed >= len(SOURCES) // 3, f"{edit} changed only {changed} files"


def test_renamed_locals_compute_the_same_values():
    text = (ROOT / "solutions" / "leetcode.py").read_text(encoding="utf-8")
    out = SOURCE_EDITS["rename_locals"](text, random.Random(1))
    assert out != text
    a: dict = {}
    b: dict = {}
    exec(compile(text, "a.py", "exec"), a)
    exec(compile(out, "b.py", "exec"), b)
    for args in [("my_pow", 2.0, -3), ("my_pow", 0.5, 10), ("count_primes", 100), ("is_happy", 19),
                 ("is_happy", 2), ("int_to_roman", 1994), ("int_to_roman", 3999)]:
        assert a[args[0]](*args[1:]) == b[args[0]](*args[1:])


def test_a_zip_from_finder_holds_the_files_under_a_top_folder_with_macosx(tmp_path):
    path = build(load(ROOT / "solutions"), tmp_path, container="zip-macos")
    import zipfile

    names = zipfile.ZipFile(path).namelist()
    assert "my_submission/embedding.py" in names and "__MACOSX/my_submission/._embedding.py" in names
    assert read_submission(path, tmp_path / "staged").files == ["embedding.py", "leetcode.py", "reversal.py"]


# --------------------------------------------------------------------------- graded: the property

PROPERTY_CASES = ("solutions", "bug_tie_clone", "bug_wrong_base", "bug_pe_plain_attr", "syntax_error")
_BASELINES: dict[str, tuple[dict[str, str], float]] = {}


def _case(name: str) -> Path:
    return ROOT / "solutions" if name == "solutions" else CORPUS / name


def _public(path: Path) -> tuple[dict[str, str], float]:
    return verdict(grade(path, hidden=False, keyword=KEYWORD))


@settings(max_examples=12, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=st.sampled_from(PROPERTY_CASES),
       edits=st.lists(st.sampled_from(sorted(SOURCE_EDITS)), unique=True, max_size=4),
       encoding=st.sampled_from(ENCODINGS), newline=st.sampled_from(NEWLINES),
       container=st.sampled_from(CONTAINERS), seed=st.integers(0, 2**16))
def test_no_transformation_changes_a_status_or_the_score(tmp_path_factory, case, edits, encoding, newline,
                                                        container, seed):
    files = load(_case(case))
    spec = dict(edits=tuple(edits), encoding=encoding, newline=newline, container=container, seed=seed)
    assume(applies(files, spec))  # e.g. a file with a SyntaxError is not the same program as cells
    if case not in _BASELINES:
        _BASELINES[case] = _public(_case(case))
    path = build(files, tmp_path_factory.mktemp("t"), **spec)
    assert differences(_BASELINES[case], _public(path)) == [], spec


# --------------------------------------------------------------------------- the student copy


def test_a_windows_student_gets_full_marks_from_the_student_copy(tmp_path):
    """`grade release` writes the kit students get; its own `grade` reads their Windows-saved exercises/."""
    from tests.test_release import run_released

    kit = tmp_path / "kit"
    made = subprocess.run([sys.executable, "-m", "grader.cli", "release", str(kit)], cwd=ROOT,
                          capture_output=True, text=True, timeout=pace.seconds(300))
    assert made.returncode == 0, made.stdout + made.stderr
    shutil.rmtree(kit / "exercises")
    _windows_copy(ROOT / "solutions", kit / "exercises")
    done = run_released(kit, "--out", str(tmp_path / "out"), "-q", "-k", KEYWORD, "--lang", "en")
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["suites"] == ["public"], done.stderr[-2000:]
    assert results["score"] == results["max_score"] > 0, [
        (t["id"], t["message"][:200]) for t in results["tests"] if t["status"] != "passed"]


def test_a_cp949_file_graded_by_conversion_is_said_not_ignored(tmp_path):
    """A .py saved in CP949 without a cookie: the kit converts and grades it (full marks), and every page
    says Python itself refuses it and how to save it, never under "Ignored"; the claim is true."""
    from grader.report.render import render_html, render_markdown
    from grader.report.text import text_summary

    sub = tmp_path / "sub"
    shutil.copytree(ROOT / "solutions", sub)
    source = (sub / "embedding.py").read_text(encoding="utf-8") + "\n# 한국어 주석: 위치 인코딩\n"
    (sub / "embedding.py").write_bytes(source.encode("cp949"))
    python = subprocess.run([sys.executable, "embedding.py"], cwd=sub, capture_output=True, text=True)
    assert "SyntaxError: Non-UTF-8 code" in python.stderr  # what the page says Python does
    results = grade(sub, hidden=False, keyword="sinusoidal_pe")
    assert results["score"] == results["max_score"] > 0
    for lang, words in (("en", "embedding.py is saved in the Korean Windows encoding (CP949), not UTF-8"),
                        ("ko", "embedding.py는 저장 인코딩이 UTF-8이 아니라 한국어 Windows 인코딩(CP949)"
                               "입니다")):
        summary = text_summary(results, lang, "sub")
        assert words in summary and ("Python itself refuses" in summary or "실행하지 못합니다" in summary)
        assert "Ignored" not in summary and "무시한 항목" not in summary, summary
        for page in (render_html(results, lang, "sub"), render_markdown(results, lang, "sub")):
            assert words in page, lang
