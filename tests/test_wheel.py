"""The kit from a built wheel, not the checkout: `pip wheel`, a fresh venv, `grade release`, then `grade` on
the release as a student who is not root (docs/authors.md: a lesson is a distribution of its own).

What this guards: everything `grade` reads at run time travels in the wheel (the suites' pytest.ini, the
report templates, the exercises `grade release` ships), and a report that cannot be written is an error
that no message hides. Building needs pip to reach setuptools (an index or a wheelhouse): where it cannot,
the test is skipped, unless GK_REQUIRE_WHEEL=1 (.ci/run) makes that a failure.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pace
import pytest
import venvs

ROOT = Path(__file__).resolve().parent.parent
# What a wheel is built from: the project files and the folders the package and its data come from.
SOURCES = ("pyproject.toml", "setup.py", "README.md", "grader", "templates")
# the embedding lesson's wheel is built from its folder with the course's top-level folders it packs
LESSON_SOURCES = ("lessons/embedding-pe", "exercises", "solutions")
NOBODY = 65534
# Not in xdist_group("kit-seal") (tests/test_host.py): these grade the kit installed from its wheels, as
# nobody (the `process` level, no seal) or inside the Gradescope bundle's container under Docker's defaults
# (the checkout hidden, the seal of that container's own install and /tmp); a uid-level grade of the
# checkout beside them keeps open what they read of it (its .venv, the seal keeps the grader's Python
# trees). The three share the module's wheels and venv, so they run on one worker (tests/conftest.py).
pytestmark = pytest.mark.slow


def build_wheel(dest: Path) -> Path:
    """The kit's wheel, built from a copy of its sources (the checkout is left as it is)."""
    src = dest / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
            )
        else:
            shutil.copy2(ROOT / name, src / name)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "-q", "-w", str(dest / "dist")],
        capture_output=True,
        text=True,
        timeout=pace.seconds(600),
    )
    if proc.returncode != 0:
        unreachable = (
            "No matching distribution",
            "Could not find a version",
            "NewConnectionError",
            "Network is unreachable",
            "Temporary failure in name resolution",
        )
        if any(s in proc.stderr for s in unreachable) and os.environ.get("GK_REQUIRE_WHEEL") != "1":
            pytest.skip(f"pip cannot fetch the build backend here: {proc.stderr.strip().splitlines()[-1]}")
        raise AssertionError(proc.stderr[-3000:])
    return next((dest / "dist").glob("pe_grader-*.whl"))


def build_embedding_wheel(dest: Path) -> Path:
    """The default lesson's wheel, from a copy of lessons/embedding-pe beside copies of the course's
    exercises/ and solutions/, which its build step packs into the package (lessons/embedding-pe/setup.py)."""
    course = dest / "course"
    for name in LESSON_SOURCES:
        shutil.copytree(ROOT / name, course / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(course / "lessons" / "embedding-pe"), "--no-deps", "-q",
         "-w", str(dest / "dist")],
        capture_output=True,
        text=True,
        timeout=pace.seconds(600),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return next((dest / "dist").glob("grade_lesson_embedding_pe-*.whl"))


def as_student(argv: list[str], cwd: Path, scratch: Path) -> list[str]:
    """``argv`` run as an unprivileged user when this is root: ``setpriv`` to nobody, in a private mount
    namespace where the interpreter's prefix is reachable when it sits under a folder only root may enter
    (a pyenv in /root)."""
    if os.geteuid() != 0:
        return argv
    if not (shutil.which("setpriv") and shutil.which("unshare")):
        pytest.skip("setpriv and unshare are needed to grade as a user who is not root")
    drop = [
        "setpriv",
        "--reuid",
        str(NOBODY),
        "--regid",
        str(NOBODY),
        "--clear-groups",
        "env",
        f"HOME={cwd}",
        *argv,
    ]
    # The interpreter, and the venv the suite runs in (whose packages the test's venv links to), may sit
    # under a folder only root may enter (a pyenv in /root, a clone in a 0700 home): mount a traversable
    # tmpfs over each such folder and bring the trees needed back under it.
    needed: dict[Path, set[str]] = {}
    for prefix in {Path(p).resolve() for p in (sys.base_prefix, sys.prefix)}:
        if (closed := _closed_parent(prefix)) is not None:
            needed.setdefault(closed, set()).add(prefix.relative_to(closed).parts[0])
    steps = []
    for closed, inners in sorted(needed.items()):
        kept = {inner: scratch / f"keep-{len(steps)}-{n}" for n, inner in enumerate(sorted(inners))}
        for inner, keep in kept.items():
            keep.mkdir()
            steps.append(f'mount --bind "{closed / inner}" "{keep}"')
        steps.append(f'mount -t tmpfs -o mode=755 tmpfs "{closed}"')
        for inner, keep in kept.items():
            steps.append(f'mkdir -p "{closed / inner}" && mount --move "{keep}" "{closed / inner}"')
    if not steps:
        return drop
    script = " && ".join([*steps, f'cd "{cwd}"', 'exec "$@"'])
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", *drop]


def _closed_parent(path: Path) -> Path | None:
    """The outermost folder above ``path`` that a user who is not root may not enter, if any."""
    closed = (p for p in reversed(path.parents) if p != Path("/") and not os.stat(p).st_mode & 0o001)
    return next(closed, None)


def make_venv(venv: Path) -> None:
    """A venv with the suite's dependencies (torch) and none of its installs of the kit (tests/venvs.py)."""
    venvs.make_venv(venv)


@pytest.fixture
def open_tmp() -> Path:
    """A scratch folder a student's uid may enter (pytest's own tmp_path is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="gk-wheel-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def kit_wheel() -> Path:
    """The kit's wheel, built once for this module's tests."""
    folder = Path(tempfile.mkdtemp(prefix="gk-wheel-build-"))
    folder.chmod(0o755)
    yield build_wheel(folder)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def embedding_wheel(kit_wheel: Path) -> Path:
    """The default lesson's wheel, built once, beside the kit's."""
    return build_embedding_wheel(kit_wheel.parent.parent / "embedding")


def test_the_kit_grades_from_its_wheel_as_a_student(open_tmp: Path, wheel_venv: Path) -> None:
    tmp_path = open_tmp
    venv = wheel_venv
    python = venv / "bin" / "python"
    grade = [str(venv / "bin" / "grade")]
    listed = json.loads(
        subprocess.run(
            [*grade, "lessons", "--json"], cwd=tmp_path, capture_output=True, text=True, check=True
        ).stdout
    )
    site = Path(
        subprocess.run(
            [str(python), "-c", "import grader; print(grader.__file__)"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    ).parent
    assert site.is_relative_to(venv)  # the installed copy, not the checkout
    pe = next(row for row in listed if row["name"] == "embedding-pe")
    lesson = site.parent / "lesson_embedding_pe"  # the lesson's wheel packs the course's folders
    assert Path(pe["exercises"]) == lesson / "exercises" and Path(pe["solutions"]) == lesson / "solutions"
    assert (lesson / "suites" / "pytest.ini").is_file() and (site / "kitdata" / "templates").is_dir()
    assert not (site / "kitdata" / "exercises").exists() and not (site.parent / "solutions").exists()

    release = tmp_path / "release"
    made = subprocess.run([*grade, "release", str(release)], cwd=tmp_path, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr[-2000:]
    assert 'lesson = "embedding-pe"' in (release / "pyproject.toml").read_text(encoding="utf-8")
    # The student solved the embedding file (the reference's); the rest is still the stubs.
    shutil.copy2(ROOT / "examples" / "reference" / "embedding.py", release / "exercises" / "embedding.py")
    if os.geteuid() == 0:
        shutil.chown(tmp_path, NOBODY, NOBODY)
        for p in [release, *release.rglob("*")]:
            os.chown(p, NOBODY, NOBODY, follow_symlinks=False)

    run = subprocess.run(
        as_student(grade, release,
                   tmp_path), cwd=release, capture_output=True, text=True, timeout=pace.seconds(900)
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    reports = release / "reports"
    assert (reports / "feedback.html").stat().st_size > 0 and (reports / "feedback.md").stat().st_size > 0
    results = json.loads((reports / "results.json").read_text(encoding="utf-8"))
    assert results["suites"] == ["public"] and results["lesson"]["name"] == "embedding-pe"
    tasks = results["tasks"]
    for task in ("sinusoidal_pe", "TokenAndPosEmbedding", "weight_tying", "equivariance"):
        assert tasks[task]["score"] == tasks[task]["max_score"] > 0, (task, tasks[task])
    assert tasks["leetcode_practice"]["score"] == 0 and 0 < results["score"] < results["max_score"]
    assert "feedback.html" in run.stdout  # it points at the files it wrote

    # Without its templates the kit cannot write the feedback: an error, and nothing points at them. (The
    # venv is the module's: its templates are put back for the tests after this one.)
    templates, aside = site / "kitdata" / "templates", tmp_path / "templates-aside"
    shutil.move(templates, aside)
    out = tmp_path / "out-no-templates"
    try:
        broken = subprocess.run(
            [*grade, str(release / "exercises"), "--out", str(out), "-k", "sinusoidal_pe"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=pace.seconds(600),
        )
    finally:
        shutil.move(aside, templates)
    assert broken.returncode == 1, broken.stdout[-2000:] + broken.stderr[-2000:]
    assert "feedback reports (feedback.html, feedback.md) were not written" in broken.stderr
    assert "feedback.html" not in broken.stdout and not (out / "feedback.html").exists()
    assert json.loads((out / "results.json").read_text(encoding="utf-8"))["score"] > 0


def build_lesson_wheel(dest: Path) -> Path:
    """The attention lesson's wheel, from a copy of lessons/attention (its own pyproject, package data)."""
    src = dest / "attention-src"
    shutil.copytree(
        ROOT / "lessons" / "attention",
        src,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "tests", "examples"),
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "-q", "-w", str(dest / "dist")],
        capture_output=True,
        text=True,
        timeout=pace.seconds(600),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return next((dest / "dist").glob("grade_lesson_attention-*.whl"))


@pytest.fixture(scope="module")
def lesson_wheel(kit_wheel: Path) -> Path:
    """The attention lesson's wheel, built once, beside the kit's."""
    return build_lesson_wheel(kit_wheel.parent.parent)


@pytest.fixture(scope="module")
def wheel_venv(kit_wheel: Path, lesson_wheel: Path, embedding_wheel: Path) -> Path:
    """A fresh venv (torch from the suite's own dependencies, tests/venvs.py) with the kit and both lessons
    installed from their wheels, not editable; shared by the module's tests (the first takes its templates
    away for one grade and puts them back)."""
    folder = Path(tempfile.mkdtemp(prefix="gk-wheel-venv-"))
    folder.chmod(0o755)  # a student's uid runs its Python
    venv = folder / "venv"
    make_venv(venv)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", str(kit_wheel),
         str(lesson_wheel), str(embedding_wheel)],
        check=True,
        capture_output=True,
    )
    yield venv
    shutil.rmtree(folder, ignore_errors=True)


def test_a_lesson_from_its_own_wheel_is_released_and_graded_as_a_student(
    open_tmp: Path, wheel_venv: Path
) -> None:
    """The kit and a lesson that is its own distribution, both installed from
    wheels (not editable), found by entry point; `grade release --lesson attention`, then a plain `grade`
    in the student's copy as a user who is not root grades that lesson (its [tool.grade] setting)."""
    tmp_path = open_tmp
    venv = wheel_venv
    grade = [str(venv / "bin" / "grade")]
    listed = {
        row["name"]: row
        for row in json.loads(
            subprocess.run(
                [*grade, "lessons", "--json"], cwd=tmp_path, capture_output=True, text=True, check=True
            ).stdout
        )
    }
    assert {"embedding-pe", "attention"} <= set(listed)
    # the installed wheel's package, not the checkout's (an editable install beside it is shadowed)
    assert Path(listed["attention"]["exercises"]).is_relative_to(venv), listed["attention"]

    release = tmp_path / "release"
    made = subprocess.run(
        [*grade, "release", str(release), "--lesson", "attention"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr[-2000:]
    assert 'lesson = "attention"' in (release / "pyproject.toml").read_text(encoding="utf-8")
    assert not (release / "lesson_attention" / "solutions").exists()
    # the release carries only its lesson: the embedding lesson is neither shipped nor registered
    assert not (release / "lesson_embedding_pe").exists() and not (release / "solutions").exists()
    assert "embedding" not in (release / "pyproject.toml").read_text(encoding="utf-8")
    right = ROOT / "lessons" / "attention" / "examples" / "right" / "causal_attention.py"
    shutil.copy2(right, release / "exercises" / "causal_attention.py")
    if os.geteuid() == 0:
        shutil.chown(tmp_path, NOBODY, NOBODY)
        for p in [release, *release.rglob("*")]:
            os.chown(p, NOBODY, NOBODY, follow_symlinks=False)
    run = subprocess.run(
        as_student([*grade, "-q"], release, tmp_path),
        cwd=release,
        capture_output=True,
        text=True,
        timeout=pace.seconds(900),
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    results = json.loads((release / "reports" / "results.json").read_text(encoding="utf-8"))
    assert results["lesson"]["name"] == "attention" and results["suites"] == ["public"]
    assert results["score"] == results["max_score"] == 16.0, results["score"]
    assert (release / "reports" / "feedback.html").stat().st_size > 0


def test_the_gradescope_bundle_of_a_kit_and_lesson_installed_from_wheels(
    open_tmp: Path, kit_wheel: Path, lesson_wheel: Path, wheel_venv: Path
) -> None:
    """The Gradescope bundle, from the kit and a lesson installed from wheels: each
    ships as a wheel rebuilt from its installed files; the bundle's setup.sh installs them into a fresh
    Python (the container's), and run_autograder grades there as Gradescope runs it (root with Docker's
    defaults: the `uid` level), the hidden suite and the reference from the installed lesson."""
    tmp = open_tmp
    bundle = tmp / "autograder.zip"
    made = subprocess.run(
        [str(wheel_venv / "bin" / "grade"), "gradescope-bundle", str(bundle), "--lesson", "attention",
         "--lang", "en"],
        cwd=tmp, capture_output=True, text=True, timeout=pace.seconds(300),
    )
    assert made.returncode == 0, made.stderr[-2000:]
    with zipfile.ZipFile(bundle) as zf:
        names = sorted(zf.namelist())
        setup = zf.read("setup.sh").decode()
        shipped = zf.read(f"wheels/{lesson_wheel.name}")
    assert names == sorted(["setup.sh", "run_autograder", "gk_gradescope.json", f"wheels/{kit_wheel.name}",
                            f"wheels/{lesson_wheel.name}"])
    assert "pip install -e /autograder/source\n" not in setup  # no kit source: its wheel
    # the rebuilt wheel holds what the built one did, byte for byte (RECORD aside: its rows' order)
    with zipfile.ZipFile(io.BytesIO(shipped)) as new, zipfile.ZipFile(lesson_wheel) as old:
        assert sorted(new.namelist()) == sorted(old.namelist())
        assert all(new.read(n) == old.read(n) for n in old.namelist() if not n.endswith("/RECORD"))

    sys.path.insert(0, str(Path(__file__).parent))
    import docker_defaults

    why = docker_defaults.unavailable()
    if why:
        pytest.skip(f"cannot simulate Gradescope's container here: {why}")
    root = tmp / "autograder"
    for folder in ("source", "submission", "results"):
        (root / folder).mkdir(parents=True)
    with zipfile.ZipFile(bundle) as zf:
        zf.extractall(root / "source")
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    wrong = ROOT / "lessons" / "attention" / "examples" / "wrong" / "causal_attention.py"
    shutil.copy2(wrong, root / "submission")
    # The container's Python, before setup.sh: the system's site-packages stand in for the torch and the
    # dependencies it would download (offline: PIP_NO_INDEX; the venv's own old setuptools would hide the
    # system's, which torch's metadata asks for).
    python = tmp / "container" / "bin" / "python"
    make_venv(python.parent.parent)
    subprocess.run([str(python), "-m", "pip", "uninstall", "-y", "-q", "setuptools"], capture_output=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{python.parent}{os.pathsep}{env.get('PATH', '')}", PIP_NO_INDEX="1")
    installed = subprocess.run(["bash", "-c", setup.replace("/autograder", str(root))], env=env,
                               capture_output=True, text=True, timeout=pace.seconds(600))
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    where = subprocess.run([str(python), "-c", "import lesson_attention; print(lesson_attention.__file__)"],
                           cwd=tmp, env=env, capture_output=True, text=True, check=True)
    package = Path(where.stdout.strip()).parent
    assert package.is_relative_to(python.parent.parent)  # the container's install, not the checkout's

    # what the student's code finds of the installed lesson, in a file of root's it may write (the teardown
    # removes the files its uid owns in shared folders)
    drop = tmp / "drop.txt"
    drop.write_text("")
    os.chmod(drop, 0o666)
    carrier = (f"\n\nimport os as _os  # noqa: E402\ntry:\n    _os.listdir({str(package)!r})\n"
               f"    _SEEN = 'listed'\nexcept OSError as _exc:\n    _SEEN = type(_exc).__name__\n"
               f"with open({str(drop)!r}, 'w') as _fh:\n    _fh.write(_SEEN)\n")
    submitted = root / "submission" / "causal_attention.py"
    submitted.write_text(submitted.read_text(encoding="utf-8") + carrier, encoding="utf-8")
    mode = package.stat().st_mode
    env.update(AUTOGRADER_ROOT=str(root), GK_PYTHON=str(python))
    done = docker_defaults.run(f"timeout 600 bash {root}/run_autograder", env=env, timeout=pace.seconds(660),
                               hide=(str(ROOT),), tmp=(str(tmp),))
    gs = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert done.returncode == 0, done.stderr[-2000:]
    # the wrong example: 6 of the public suite's 16 (its mask's dtype is a check of its own: a bool mask
    # keeps that point), 3.5 of the hidden suite's 19: the same 9.5 as tests/test_lesson_attention.py
    assert sum(t["max_score"] for t in gs["tests"]) == 35.0 and gs["score"] == 9.5, gs["output"][:1500]
    hidden = [t for t in gs["tests"] if "hidden/" in t["name"]]
    assert {t["status"] for t in hidden} == {"passed", "failed"}
    assert "Isolation: uid" in gs["output"]
    # the installed lesson (hidden suite, reference) was root's alone while the student's code ran, and its
    # modes are given back after
    assert drop.read_text() == "PermissionError"
    assert package.stat().st_mode == mode
