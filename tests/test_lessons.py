"""Picking a lesson: the registry (entry point group ``grader.lessons``), `--lesson`, the student repo's
``[tool.grade] lesson``, `grade lessons`, what results.json and the reports say of the lesson, and batch's
done-markers (grader/engine/lessons.py, README "Adding a lesson").

The second lesson here is installed the way a distribution installs one: a package and a ``.dist-info``
with its entry point, in a folder on the path, and graded through `grade` in a fresh process.
"""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grader.engine import lessons
from grader.engine.lessons import UnknownLesson, choose, load_lesson, project_lesson, select
from grader.engine.usage import UsageProblem

PE = "embedding-pe"  # the course's lesson, the one this checkout's pyproject.toml names

LESSON = """
from pathlib import Path

from grader.engine.lesson_api import Layout, Lesson, Task

HERE = Path(__file__).resolve().parent

LESSON = Lesson(
    name="Arithmetic warm-up",
    tasks=(Task("notes", "Notes", "노트", document="notes.md"),
           Task("double", "Doubling", "두 배", ("double",))),
    layout=Layout(modules=("arith",), log_name="notes.md"),
    title_ko="산수 준비 운동", version="3",
    exercises=HERE / "exercises", solutions=HERE / "solutions", suites=HERE / "suites",
    templates=HERE / "templates",
)
"""

# The lesson's own feedback.md (its templates folder is searched before the kit's); its feedback.html is
# the kit's.
MARKDOWN = (
    "# Arithmetic feedback / 산수 피드백\n{% for t in tasks %}- {{ t.title }}: {{ t.score }}\n{% endfor %}"
)

SUITE = """
import pytest

from grader.core.feedback import expect


@pytest.mark.task("double", points=2)
def test_double(student):
    value = student.call("arith.double", 21)
    expect(value == 42, f"double(21): expected 42; found {value!r}.",
           f"double(21): 42여야 하는데 {value!r}입니다.")


@pytest.mark.task("notes", points=1)
def test_notes_written(submission):
    expect(bool((submission.log_text or "").strip()), "notes.md is empty.", "notes.md가 비어 있습니다.")
"""


def install_toy(site: Path) -> Path:
    """The lesson ``arith`` installed into ``site`` as pip would leave it: package + dist-info."""
    package = site / "arith_lesson"
    for sub in ("suites/public", "exercises", "solutions", "templates"):
        (package / sub).mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(textwrap.dedent(LESSON), encoding="utf-8")
    ini = "[pytest]\naddopts = -p no:cacheprovider\n"
    (package / "suites" / "pytest.ini").write_text(ini, encoding="utf-8")
    (package / "suites" / "public" / "test_arith.py").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    (package / "templates" / "feedback.md.j2").write_text(MARKDOWN, encoding="utf-8")
    meta = site / "arith_lesson-1.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: arith-lesson\nVersion: 1.0\n", encoding="utf-8"
    )
    (meta / "entry_points.txt").write_text("[grader.lessons]\narith = arith_lesson\n", encoding="utf-8")
    return package


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``arith`` installed in a folder on this process's path and on its children's (PYTHONPATH)."""
    site = tmp_path / "site"
    install_toy(site)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    yield site
    load_lesson.cache_clear()
    sys.modules.pop("arith_lesson", None)


def grade(*args: str, cwd: Path, timeout: float = 300, env: dict[str, str] | None = None
          ) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grader.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
        env=env,
    )


def submit(folder: Path, body: str, notes: str = "") -> Path:
    folder.mkdir(parents=True)
    (folder / "arith.py").write_text(body, encoding="utf-8")
    if notes:
        (folder / "notes.md").write_text(notes, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def arith_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess, dict]:
    """A student's repo whose pyproject names the lesson ``arith`` (installed as ``toy`` installs it, for
    `grade` only), graded by a plain `grade --lang en` (no flag, no path: ./exercises, the project's
    lesson): the repo, that run, and the environment that finds ``arith``. One grade read by the test of
    the reports and by the test of another lesson graded in the same folder."""
    base = tmp_path_factory.mktemp("arith")
    install_toy(base / "site")
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(base / "site"), os.environ.get("PYTHONPATH")]))}
    repo = base / "repo"
    submit(repo / "exercises", "def double(x):\n    return x + 1\n", "Added one.")
    (repo / "pyproject.toml").write_text('[tool.grade]\nlesson = "arith"\n', encoding="utf-8")
    return repo, grade("--lang", "en", cwd=repo, env=env), env


# -- the registry and the choice ----------------------------------------------------------------------


def test_grade_lessons_lists_every_installed_lesson(toy: Path, tmp_path: Path) -> None:
    listed = grade("lessons", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert list(rows) == sorted(rows) and {"arith", PE} <= set(rows)  # sorted by name
    arith = rows["arith"]
    assert (arith["title"], arith["title_ko"], arith["version"], arith["module"]) == (
        "Arithmetic warm-up",
        "산수 준비 운동",
        "3",
        "arith_lesson",
    )
    assert arith["exercises"] == str(toy / "arith_lesson" / "exercises")
    assert arith["solutions"] == str(toy / "arith_lesson" / "solutions")
    assert arith["tasks"] == ["notes", "double"] and not arith["chosen"] and "why" not in arith
    # the suite's GK_LESSON (tests/conftest.py) picks the lesson graded here, and the listing says why
    assert rows[PE]["chosen"] and rows[PE]["tasks"][0] == "sinusoidal_pe"
    assert rows[PE]["why"] == {"en": "GK_LESSON names it", "ko": "GK_LESSON로 지정"}
    table = grade("lessons", cwd=tmp_path).stdout
    assert "Arithmetic warm-up / 산수 준비 운동 (version 3)" in table
    assert f"{PE} (graded here / 여기서 채점: GK_LESSON names it / GK_LESSON로 지정)" in table
    # a project's setting outranks it, and is named with its file
    (tmp_path / "pyproject.toml").write_text('[tool.grade]\nlesson = "arith"\n', encoding="utf-8")
    rows = {row["name"]: row for row in json.loads(grade("lessons", "--json", cwd=tmp_path).stdout)}
    assert rows["arith"]["chosen"] and not rows[PE]["chosen"]
    assert rows["arith"]["why"]["en"] == f"[tool.grade] lesson in {tmp_path / 'pyproject.toml'}"


def test_the_lesson_chosen_where_no_flag_names_one(toy: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """--lesson, else the nearest [tool.grade] lesson, else GK_LESSON, else the one lesson whose files the
    folder (or its exercises/) holds, else the only lesson installed; else one line saying how to name one."""
    monkeypatch.delenv("GK_LESSON")
    bare, sub = tmp_path / "bare", submit(tmp_path / "repo" / "exercises", "def double(x):\n    return x\n")
    bare.mkdir()
    with pytest.raises(UsageProblem) as caught:  # several installed, nothing here names one
        choose(None, bare)
    said = str(caught.value)
    assert "\n" not in said and "arith" in said and PE in said
    assert all(way in said for way in ("--lesson NAME", "[tool.grade] lesson", "GK_LESSON=NAME"))
    for start in (sub, sub / "arith.py", sub.parent, sub.parent / "lesson.ipynb"):  # or its exercises/
        chosen = choose(None, bare, start)
        assert (chosen.ref.name, chosen.how, chosen.where) == ("arith", "files", "arith.py"), start
    assert choose(None, sub).why("ko") == "폴더에 arith.py가 있음"
    (sub / "embedding.py").write_text("x = 1\n", encoding="utf-8")  # two lessons' files: no choice by files
    with pytest.raises(UsageProblem):
        choose(None, sub)
    monkeypatch.setenv("GK_LESSON", "arith")
    assert (choose(None, sub).ref.name, choose(None, sub).how) == ("arith", "env")
    monkeypatch.setenv("GK_LESSON", "nope")
    with pytest.raises(UnknownLesson):  # a misspelt setting is said, never passed over
        choose(None, bare)
    (tmp_path / "pyproject.toml").write_text(f'[tool.grade]\nlesson = "{PE}"\n', encoding="utf-8")
    chosen = choose(None, sub)  # the project outranks the environment
    assert (chosen.ref.name, chosen.how, chosen.where) == (PE, "project", str(tmp_path / "pyproject.toml"))
    assert choose("arith", sub).how == "flag"
    (tmp_path / "pyproject.toml").unlink()
    monkeypatch.delenv("GK_LESSON")
    only = {"arith": lessons.LessonRef("arith", "arith_lesson")}
    monkeypatch.setattr(lessons, "installed", lambda: only)
    assert (choose(None, bare).ref.name, choose(None, bare).how) == ("arith", "only")


def test_an_unknown_lesson_is_one_line_and_exit_2(tmp_path: Path) -> None:
    submit(tmp_path / "sub", "def double(x):\n    return 2 * x\n")
    for args in (["sub", "--lesson", "nope"], ["batch", "subs", "--out", "o", "--lesson", "nope"]):
        (tmp_path / "subs").mkdir(exist_ok=True)
        proc = grade(*args, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and "unknown lesson 'nope'" in proc.stderr, proc.stderr
        assert "grade lessons" in proc.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.grade]\nlesson = "nope"\n', encoding="utf-8")
    proc = grade("sub", cwd=tmp_path)  # the project's setting is checked the same way
    assert proc.returncode == 2 and "unknown lesson 'nope'" in proc.stderr


def test_an_unknown_lesson_is_said_before_any_zygote_or_warm_grader_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from grader import cli
    from grader.sandbox import host

    def started(*_args: object, **_kwargs: object) -> int:
        raise AssertionError("a zygote (torch's import, seconds) was started to say the lesson is unknown")
    monkeypatch.setattr(host, "run_hosted", started)
    monkeypatch.setattr(cli, "run_warm", started)
    submit(tmp_path / "sub", "def double(x):\n    return 2 * x\n")
    monkeypatch.chdir(tmp_path)
    assert cli.run_hosted(["sub", "--lesson", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("grade: ") and err.count("\n") == 1 and "unknown lesson 'nope'" in err


def test_the_project_setting_is_the_nearest_grade_table(tmp_path: Path) -> None:
    deep = tmp_path / "repo" / "exercises" / "sub"
    deep.mkdir(parents=True)
    assert project_lesson(deep) is None
    (tmp_path / "pyproject.toml").write_text('[tool.grade]\nlesson = "outer"\n', encoding="utf-8")
    # a pyproject without [tool.grade] (a student's own package) says nothing: the search goes on up
    (tmp_path / "repo" / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    assert project_lesson(deep) == "outer"
    (tmp_path / "repo" / "pyproject.toml").write_text('[tool.grade]\nlesson = "inner"\n', encoding="utf-8")
    assert project_lesson(deep / "arith.py") == "inner"
    with pytest.raises(UnknownLesson):  # the setting found is looked up like a flag
        select(None, deep)
    assert select(PE, deep).name == PE  # --lesson wins over the setting


def test_grade_and_the_reports_follow_the_lesson(toy: Path, tmp_path: Path, arith_repo) -> None:
    """`grade` in a repo whose pyproject names the lesson: its tasks, titles and order everywhere."""
    repo, proc, _ = arith_repo  # `grade --lang en` there: no flag, no path: ./exercises, the project's lesson
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = json.loads((repo / "reports" / "results.json").read_text(encoding="utf-8"))
    assert (results["score"], results["max_score"]) == (1.0, 3.0)
    assert results["lesson"] == {
        "name": "arith",
        "module": "arith_lesson",
        "version": "3",
        "title": {"en": "Arithmetic warm-up", "ko": "산수 준비 운동"},
        "tasks": [
            {"name": "notes", "en": "Notes", "ko": "노트"},
            {"name": "double", "en": "Doubling", "ko": "두 배"},
        ],
    }
    assert "Doubling" in proc.stdout and "Notes" in proc.stdout
    page = (repo / "reports" / "feedback.html").read_text(encoding="utf-8")
    assert page.index(">Notes<") < page.index(">Doubling<")  # the task table, in the lesson's order
    markdown = (repo / "reports" / "feedback.md").read_text(encoding="utf-8")
    assert markdown == "# Arithmetic feedback / 산수 피드백\n- Notes: 1.0\n- Doubling: 0.0\n"
    scope = json.loads((repo / "reports" / "gradescope.json").read_text(encoding="utf-8"))
    assert [(t["number"], t["name"]) for t in scope["tests"]] == [
        ("1.1", "Notes: public/test_arith.py::test_notes_written"),
        ("2.1", "Doubling: public/test_arith.py::test_double"),
    ]
    summary = (repo / "reports" / "summary.txt").read_text(encoding="utf-8")
    assert "Doubling" in summary and "sinusoidal" not in summary.lower()

    flagged = grade(
        str(repo / "exercises"),
        "--lesson",
        PE,
        "--out",
        str(tmp_path / "pe"),
        "-k",
        "sinusoidal_pe",
        "-q",
        cwd=tmp_path,
    )  # the flag wins
    assert flagged.returncode == 0, flagged.stderr[-2000:]
    pe = json.loads((tmp_path / "pe" / "results.json").read_text(encoding="utf-8"))
    assert pe["lesson"]["name"] == PE and set(pe["tasks"]) == {"sinusoidal_pe"}


def test_batch_regrades_for_a_changed_suite_or_another_lesson(toy: Path, tmp_path: Path) -> None:
    from grader.instructor import batch

    subs = tmp_path / "subs"
    submit(subs / "alice", "def double(x):\n    return 2 * x\n", "Doubled.")
    submit(subs / "bob", "def double(x):\n    return x + 1\n")
    out = tmp_path / "out"
    proc = grade(
        "batch",
        str(subs),
        "--out",
        str(out),
        "--lesson",
        "arith",
        "--public-only",
        "-j",
        "1",
        "-q",
        "--no-similarity",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    book = (out / "gradebook.csv").read_text(encoding="utf-8-sig").splitlines()
    header = book[0].split(",")
    after = header.index("note") + 1  # the tasks follow the instructor's columns, in the lesson's order
    assert header[after : after + 2] == ["notes", "double"]
    assert json.loads((out / "alice" / "results.json").read_text(encoding="utf-8"))["score"] == 3.0

    def planned(*flags: str) -> tuple[int, int]:
        args = batch.build_parser().parse_args([str(subs), "--out", str(out), "--public-only", *flags])
        todo, done = batch.plan(batch.discover(subs), out, batch.config_from_args(args))
        return len(todo), len(done)

    assert planned("--lesson", "arith") == (0, 2)  # the same lesson and suites: already graded
    assert planned("--lesson", PE) == (2, 0)  # another lesson into the same folder
    suite = toy / "arith_lesson" / "suites" / "public" / "test_arith.py"
    suite.write_text(suite.read_text(encoding="utf-8") + "\n# a changed suite\n", encoding="utf-8")
    assert planned("--lesson", "arith") == (2, 0)


def test_the_kit_registers_this_lesson_by_entry_point() -> None:
    """The kit's own pyproject names it (an editable install of the kit has the entry point)."""
    from importlib.metadata import entry_points

    registered = {ep.name: ep.value for ep in entry_points(group=lessons.GROUP)}
    assert registered.get(PE) == "lesson_embedding_pe"
    assert lessons.lookup("lesson_embedding_pe").name == PE  # GradeOptions' module, named


def test_check_in_a_notebook_takes_the_lesson(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from grader.jupyter.check import check

    sub = submit(tmp_path / "sub", "def double(x):\n    return 2 * x\n", "Doubled.")
    result = check(path=sub, lesson="arith", lang="en")
    assert (result.score, result.max_score) == (3.0, 3.0)
    assert result.results["lesson"]["name"] == "arith"
    # no argument: the project the notebook runs in says which lesson
    (tmp_path / "pyproject.toml").write_text('[tool.grade]\nlesson = "arith"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert check(path=sub, lang="en").results["lesson"]["name"] == "arith"


def test_the_gradescope_bundle_names_its_lesson(tmp_path: Path) -> None:
    import zipfile

    from grader.instructor import gradescope_bundle

    zip_path = tmp_path / "autograder.zip"
    assert gradescope_bundle.main([str(zip_path), "--public-only", "--lesson", PE]) == 0
    with zipfile.ZipFile(zip_path) as zf:
        config = json.loads(zf.read(gradescope_bundle.CONFIG))
    assert config["lesson"] == PE  # run_autograder passes it on as `grade --lesson`
    assert gradescope_bundle.main([str(tmp_path / "x.zip"), "--lesson", "nope"]) == 2


def test_a_lesson_that_cannot_load_is_named_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    meta = tmp_path / "site" / "broken-1.0.dist-info"
    meta.mkdir(parents=True)
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n", encoding="utf-8")
    (meta / "entry_points.txt").write_text(
        "[grader.lessons]\nbroken = no_such_lesson_module\n", encoding="utf-8"
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    submit(tmp_path / "sub", "def double(x):\n    return 2 * x\n")
    proc = grade("sub", "--lesson", "broken", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "lesson 'broken' (no_such_lesson_module) cannot be loaded: ModuleNotFoundError" in proc.stderr
    listed = grade("lessons", "--json", cwd=tmp_path)
    assert listed.returncode == 1  # the others are still listed
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert "cannot be loaded" in rows["broken"]["error"] and "error" not in rows[PE]


def test_every_installed_lessons_package_is_hidden_from_the_worker(toy: Path) -> None:
    """An installed lesson carries its hidden suite and solutions in site-packages, which the worker's
    view binds: the runner adds each lesson's package to what the sandbox hides (namespaces) and seals
    (uid), found without importing the lesson."""
    from grader.sandbox.launch import SandboxPolicy, hidden_paths

    folders = lessons.private_folders()
    assert str((toy / "arith_lesson").resolve()) in folders
    assert "arith_lesson" not in sys.modules  # found by its spec, not imported
    assert str((toy / "arith_lesson").resolve()) in hidden_paths(SandboxPolicy(hide=folders), bound=False)


def test_another_lessons_folder_is_said_and_its_history_kept(arith_repo) -> None:
    """`grade --lesson embedding-pe` in an arith repo: the reports say whose folder it is and how to grade
    it as that, the arith run in reports/ is kept (no "since the last run" across lessons), and this run
    goes to reports/<lesson>/."""
    repo, arith_run, env = arith_repo
    assert arith_run.returncode == 0
    own = (repo / "reports" / "results.json").read_text(encoding="utf-8")
    for lang, words in (("en", "This folder belongs to the Arithmetic warm-up lesson (its pyproject.toml "
                                'says lesson = "arith")'),
                        ("ko", "이 폴더는 산수 준비 운동 실습의 것입니다")):
        proc = grade("--lesson", PE, "-k", "sinusoidal_pe", "--lang", lang, "-q", cwd=repo, env=env)
        assert proc.returncode in (0, 1), proc.stderr[-2000:]
        assert (repo / "reports" / "results.json").read_text(encoding="utf-8") == own  # kept
        mine = repo / "reports" / PE
        results = json.loads((mine / "results.json").read_text(encoding="utf-8"))
        assert results["other_lesson"]["name"] == "arith"
        # the first run of this lesson here compares with nothing (never with arith's run); the second
        # with the first
        assert ("previous" in results) is (lang == "ko")
        for page in ("summary.txt", "feedback.html", "feedback.md"):
            text = html.unescape((mine / page).read_text(encoding="utf-8"))
            assert words in text and "grade --lesson arith" in text, (lang, page, text[:800])


def test_a_folder_is_told_by_its_files_where_no_project_names_its_lesson(toy: Path, tmp_path: Path) -> None:
    from grader.engine.other_lesson import other_lesson

    folder = submit(tmp_path / "sub", "def double(x):\n    return 2 * x\n")
    default = lessons.lookup(PE).module
    found = other_lesson(folder, default)
    assert found is not None and found["name"] == "arith" and found["files"] == ["arith.py"]
    assert not found["project"]
    assert other_lesson(folder, "arith_lesson") is None  # its own lesson
    (folder / load_lesson(default).layout.modules[0]).with_suffix(".py").write_text("x = 1\n")
    assert other_lesson(folder, default) is None  # one of the graded lesson's files is there: its folder


def test_what_changed_names_the_graded_lessons_tasks_by_their_titles() -> None:
    """"since the last run" in another lesson: its task titles, never its function names (the default
    lesson's titles do not know them)."""
    from grader.report.changes import change_view

    tasks = [{"name": "causal_mask", "en": "Causal mask", "ko": "인과 마스크"},
             {"name": "CausalSelfAttention", "en": "Causal multi-head self-attention", "ko": "인과 멀티헤드"}]
    results = {
        "score": 5.0, "max_score": 5.0, "lesson": {"name": "attention", "tasks": tasks},
        "tasks": {"causal_mask": {"score": 2.0, "max_score": 2.0}, "CausalSelfAttention": {"score": 3.0,
                                                                                         "max_score": 3.0}},
        "tests": [],
        "previous": {"score": 2.0, "max_score": 5.0, "when": "2026-01-01T10:00:00Z", "failed": ["a"],
                     "tasks": {"causal_mask": {"score": 0.0, "max_score": 2.0},
                               "CausalSelfAttention": {"score": 2.0, "max_score": 3.0}}},
    }
    for lang, words in (("en", ["Causal mask now passes", "Causal multi-head self-attention now passes"]),
                        ("ko", ["인과 마스크", "인과 멀티헤드"])):
        view = change_view(results, lang)
        assert view is not None and all(w in view["text"] for w in words), view
        assert "causal_mask" not in view["text"] and "CausalSelfAttention" not in view["text"]
