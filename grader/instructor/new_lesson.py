"""`grade new-lesson NAME --out DIR`: a whole working lesson package to start from.

It writes what every lesson has and no lesson's content: the pyproject with the entry point and the
package data, the declaration (``LESSON``, with ``grader.author.lesson_package``: the reference loader, a
release and its notebook by default), bilingual stubs with two tasks (a function, and an ``nn.Module`` its
tests call through a ``Remote``), their reference, notes, public and hidden suites written with
``grader.author``, a right and a wrong example, and the package's own tests. As written it installs
(`pip install -e DIR`), is listed by `grade lessons`, grades its reference full, its stubs 0 and its wrong
example in between, and `grade release --lesson NAME` writes its student copy, whose notebook ``check()``
grades; the author then replaces the tasks with the lesson's content. Nothing of the kit is copied: the
package imports ``grader.author`` only.
"""

from __future__ import annotations

import argparse
import keyword
import re
import sys
from pathlib import Path
from string import Template

NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")

PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "grade-lesson-$name"
version = "0.1.0"
description = "Lesson for pe-grader: $name (exercises, reference, suites)"
readme = "README.md"
requires-python = ">=3.10"
dependencies = ["pe-grader>=0.1", "torch>=2.3"]

# The kit finds installed lessons by this group: `grade --lesson $name`.
[project.entry-points."grader.lessons"]
$name = "$package"

[tool.setuptools]
include-package-data = true

[tool.setuptools.packages.find]
include = ["$package"]  # the package only: suites/, exercises/, solutions/ travel as its data

[tool.setuptools.package-data]
$package = [
    "*.md",
    "suites/pytest.ini", "suites/public/*.py", "suites/hidden/*.py",
    "exercises/*.py", "solutions/*.py",
]

[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = "-p no:cacheprovider"
"""

INIT = '''\
"""$title: a lesson package for the grading kit (written by `grade new-lesson $name`).

``LESSON`` is everything the kit knows of the lesson. ``lesson_package`` (grader.author, docs/authors.md)
builds it from this folder: exercises/ (the stubs), solutions/ (the reference), suites/ (public/,
hidden/), the reference loader ``REFERENCE`` the hidden suite compares against, and the student release
(`grade release --lesson $name`) with its README and notebook. ``readme=``, ``notebook=`` make them the
lesson's own; its hooks take its own functions, by phase (docs/authors.md): ``report=ReportHooks(
figure_texts=...)``, ``grade=GradeHooks(warm_up=...)``.
"""

from __future__ import annotations

from grader.author import NotebookTexts, Task, lesson_package

__version__ = "0.1.0"

TASKS = (
    Task("row_means", "Row means", "행 평균", ("row_means",)),
    Task("Centered", "Centring layer", "중심화 레이어", ("Centered",)),
)

TRY_IT = """if __name__ == "__main__":  # runs in Jupyter only, never while grading
    from grader import check
    check()  # the public tests on this notebook's cells / 이 노트북 셀의 공개 테스트
"""

LESSON, REFERENCE = lesson_package(
    __file__, "$name", module="$module", tasks=TASKS, version=__version__,
    title_en="$title", title_ko="$title",  # the lesson's Korean title
    notebook=NotebookTexts(try_it=TRY_IT),
)
'''

STUB = '''\
"""$title: the exercise. / $title: 실습."""

import torch
from torch import nn


def row_means(x: torch.Tensor) -> torch.Tensor:
    """The mean of each row of ``x``. / ``x``의 각 행의 평균.

    Args:
        x: a float tensor of shape (..., n), n >= 1. / (..., n) 모양의 실수 텐서, n >= 1.

    Returns:
        A tensor of shape (...): the mean over the last dimension. / 마지막 차원의 평균, 모양 (...).

    Raises:
        ValueError: when the last dimension is empty (n == 0). / 마지막 차원이 비었을 때(n == 0).

    Hint: ``torch.Tensor.mean`` takes a ``dim``. / 힌트: ``torch.Tensor.mean``은 ``dim``을 받습니다.
    """
    raise NotImplementedError("row_means")


class Centered(nn.Module):
    """A layer that subtracts each row's mean: ``Centered()(x)`` is ``x - row_means(x)[..., None]``.
    / 각 행에서 그 행의 평균을 빼는 레이어."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("Centered.forward")
'''

SOLUTION = '''\
"""$title: the reference solution (never in a student release)."""

import torch
from torch import nn


def row_means(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] == 0:
        raise ValueError(f"row_means needs at least one column, got shape {tuple(x.shape)}")
    return x.mean(dim=-1)


class Centered(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x - row_means(x).unsqueeze(-1)
'''

WRONG = '''\
"""A classic mistake, for the lesson's tests: the mean over the wrong dimension."""

import torch
from torch import nn


def row_means(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] == 0:
        raise ValueError(f"row_means needs at least one column, got shape {tuple(x.shape)}")
    return x.mean(dim=0)


class Centered(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x - x.mean(dim=-1, keepdim=True)
'''

RIGHT = '''\
"""Another correct way to write it, for the lesson's tests: the sum over the count."""

import torch
from torch import nn


def row_means(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[-1]
    if n == 0:
        raise ValueError("empty rows: n == 0")
    return x.sum(-1) / n


class Centered(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x - x.sum(-1, keepdim=True) / x.shape[-1]
'''

PYTEST_INI = """\
# The grader's own pytest configuration: passed with -c so nothing in a submission can configure the run.
[pytest]
addopts = -p no:cacheprovider
markers =
    task(name, points=1): the rubric entry of a test
"""

PUBLIC = '''\
"""Public checks: a small input written out, an empty row, and the layer called as a student's module."""

import pytest
import torch

from grader.author import check_close, raised

X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 4.0, 4.0]])


@pytest.mark.task("row_means", points=2)
def test_two_rows(student):
    check_close(student.call("row_means", X), torch.tensor([2.0, 4.0]), "row_means([[1, 2, 3], [4, 4, 4]])",
                fix_en="Average over the last dimension: x.mean(dim=-1).",
                fix_ko="마지막 차원으로 평균을 내세요: x.mean(dim=-1).")


@pytest.mark.task("row_means", points=1)
def test_empty_rows_are_a_value_error(student):
    out = student.attempt("row_means", torch.zeros(2, 0))
    raised(out, "ValueError", "row_means(x) of a (2, 0) x",
           "A row needs at least one value: check x.shape[-1] > 0 and raise ValueError.",
           "행에는 값이 하나 이상 있어야 합니다: x.shape[-1] > 0인지 검사하고 ValueError를 발생시키세요.")


@pytest.mark.task("Centered", points=2)
def test_the_layer_centres_each_row(student):
    layer = student.call("Centered")  # a Remote: the student's nn.Module, living in the worker
    check_close(student.call(layer, X), torch.tensor([[-1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]),
                "Centered()(x) of [[1, 2, 3], [4, 4, 4]]",
                fix_en="Subtract each row's mean, kept as a column: x - x.mean(-1, keepdim=True).",
                fix_ko="각 행의 평균을 열로 두고 빼세요: x - x.mean(-1, keepdim=True).")
'''

HIDDEN = '''\
"""Hidden checks: random shapes against the reference (``REFERENCE``, the lesson's solutions)."""

import pytest
import torch

from grader.author import check_close, fresh_rng
from $package import REFERENCE


def _inputs(n: int = 3):
    rng = fresh_rng()  # seeded per submission: the same inputs on every rerun, replayable
    values = torch.Generator().manual_seed(rng.getrandbits(63))
    for _ in range(n):
        shape = tuple(rng.randint(1, 5) for _ in range(3))
        yield shape, torch.randn(*shape, generator=values)


@pytest.mark.task("row_means", points=3)
def test_random_shapes_match_the_reference(student):
    for shape, x in _inputs():
        want = REFERENCE.load().row_means(x)
        check_close(student.call("row_means", x), want, f"row_means(x) of a {shape} x",
                    fix_en="Average over the last dimension only.", fix_ko="마지막 차원으로만 평균을 내세요.")


@pytest.mark.task("Centered", points=2)
def test_the_layer_matches_the_reference(student):
    layer = student.call("Centered")
    for shape, x in _inputs():
        check_close(student.call(layer, x), REFERENCE.load().Centered()(x), f"Centered()(x) of a {shape} x")
'''

NOTES = """\
# $title

Notes for the student (Korean and English): what the lesson teaches, the tasks, how they are graded.
Replace this with the lesson's notes. / 학생용 노트: 배우는 내용, 과제, 채점 방식. 이 글을 바꾸세요.
"""

README = """\
# Lesson: $title

A lesson package for the grading kit, written by `grade new-lesson $name`.

```bash
pip install -e .                          # registers the lesson: `grade lessons` lists `$name`
grade --lesson $name $package/solutions --hidden   # the reference: full marks
grade --lesson $name $package/exercises   # the stubs: 0, every task "not started"
grade release ../$name-release --lesson $name      # the student copy: stubs, notebook, public suite
python -m pytest tests                    # the package's own tests
```

Edit `$package/__init__.py` (the tasks, titles, the release's README and notebook texts),
`exercises/` (the stubs students get), `solutions/` (the reference), `suites/public/` and
`suites/hidden/` (the checks, written with `grader.author`), `examples/` (right and wrong submissions
the tests grade) and `NOTES.md`.
"""

CONFTEST = '''\
"""The lesson's own tests grade its folders with the real kit (`grade --lesson $name`)."""
'''

TEST_LESSON = '''\
"""The lesson as written: the reference full, the stubs 0, a right way full and a wrong way caught, and a
student release that holds no private file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]
PACKAGE = HERE / "$package"


def grade(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader.cli", *args], capture_output=True, text=True,
                          timeout=600)


def score(folder: Path, out: Path, *extra: str) -> dict:
    proc = grade(str(folder), "--lesson", "$name", "--out", str(out), "-q", "--lang", "en", *extra)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("folder", [PACKAGE / "solutions", HERE / "examples" / "right"])
def test_a_correct_submission_is_full(folder: Path, tmp_path: Path) -> None:
    results = score(folder, tmp_path / "out", "--hidden")
    assert results["score"] == results["max_score"] > 0


def test_the_stubs_get_zero_and_the_wrong_way_is_caught(tmp_path: Path) -> None:
    stubs = score(PACKAGE / "exercises", tmp_path / "stubs")
    assert stubs["score"] == 0 < stubs["max_score"]
    wrong = score(HERE / "examples" / "wrong", tmp_path / "wrong", "--hidden")
    assert 0 < wrong["score"] < wrong["max_score"]


def test_the_release_holds_the_stubs_and_the_notebook(tmp_path: Path) -> None:
    proc = grade("release", str(tmp_path / "copy"), "--lesson", "$name")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "copy" / "lesson.ipynb").is_file() and (tmp_path / "copy" / "exercises").is_dir()
    assert not (tmp_path / "copy" / "$package" / "solutions").exists()
'''

GITIGNORE = "*.egg-info/\nbuild/\n__pycache__/\n"


def package_name(name: str) -> str:
    return "lesson_" + name.replace("-", "_")


def files(name: str, title: str) -> dict[str, str]:
    """Every file of the new lesson, by path relative to its folder."""
    package, module = package_name(name), name.replace("-", "_")
    values = {"name": name, "package": package, "module": module, "title": title}
    plain = {
        "pyproject.toml": PYPROJECT, "README.md": README, ".gitignore": GITIGNORE,
        f"{package}/__init__.py": INIT, f"{package}/NOTES.md": NOTES,
        f"{package}/exercises/{module}.py": STUB, f"{package}/solutions/{module}.py": SOLUTION,
        f"{package}/suites/pytest.ini": PYTEST_INI,
        f"{package}/suites/public/test_{module}.py": PUBLIC,
        f"{package}/suites/hidden/test_{module}.py": HIDDEN,
        f"examples/right/{module}.py": RIGHT, f"examples/wrong/{module}.py": WRONG,
        "tests/conftest.py": CONFTEST, "tests/test_lesson.py": TEST_LESSON,
    }
    return {path: Template(text).substitute(values) for path, text in plain.items()}


def write_lesson(name: str, out: Path, title: str | None = None) -> list[Path]:
    """Write the lesson ``name`` into the new folder ``out``; the paths written. ValueError on a bad
    name or a folder that is not empty."""
    if not NAME.fullmatch(name) or keyword.iskeyword(name.replace("-", "_")):
        raise ValueError(f"{name!r} is not a lesson name: lower-case letters, digits and dashes, starting "
                         "with a letter (e.g. rope, attention-2)")
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"{out} is not empty: nothing was written")
    written = []
    for rel, text in files(name, title or name.replace("-", " ").capitalize()).items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="grade new-lesson", description=(
        "Write a whole working lesson package to start a lesson from: two tasks (a function and an "
        "nn.Module), stubs, reference, public and hidden suites, a release with its notebook, examples and "
        "its own tests. / 바로 채점·배포되는 레슨 패키지를 만듭니다."))
    p.add_argument("name", help="the lesson's name, as `grade --lesson NAME` will take it (e.g. rope)")
    p.add_argument("--out", type=Path, required=True, help="the new folder (e.g. lessons/rope)")
    p.add_argument("--title", default=None, help="the lesson's title (default: from the name)")
    args = p.parse_args(argv)
    try:
        written = write_lesson(args.name, args.out, args.title)
    except (ValueError, OSError) as exc:
        print(f"grade new-lesson: {exc}", file=sys.stderr)
        return 2
    print(f"{args.out}: lesson '{args.name}' ({len(written)} files, package {package_name(args.name)}). "
          f"Next: pip install -e {args.out} && grade lessons && grade --lesson {args.name} "
          f"{args.out / package_name(args.name) / 'solutions'} --hidden && grade release "
          f"{args.name}-release --lesson {args.name} / 레슨을 만들었습니다")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
