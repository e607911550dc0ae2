"""`grade new-lesson NAME --out DIR`: a working lesson package to start from (issue 37).

It writes what every lesson has and no lesson's content: the pyproject with the entry point and the
package data, the declaration (``LESSON``), the paths, the task list, the reference loader, bilingual
stubs with one task, its reference, notes, public and hidden suites written with the testkit, a right and
a wrong example, and the package's own tests. As written it installs (`pip install -e DIR`), is listed by
`grade lessons`, grades its reference full and its stubs 0; the author then replaces the one task with
the lesson's content. Nothing of the kit is copied: the package imports the kit's API.
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
"""$title: a lesson package for the grading kit (written by `grade new-lesson`).

``LESSON`` is everything the kit knows of the lesson (grader/engine/lesson_api.py, docs/authors.md): its
tasks, the module a student writes, where its stubs, reference and suites are, and its hooks by phase
(here one: the grade's reference folder handed to the reference loader). The suites import the rest
(``reference``) directly.
"""

from __future__ import annotations

from pathlib import Path

from grader.engine.lesson_api import GradeHooks, Layout, Lesson
from $package import paths, reference
from $package.tasks import CONTRACT, MODULE, TASK_LIST

__version__ = "0.1.0"

TITLE_EN = "$title"
TITLE_KO = "$title"  # the lesson's Korean title


class Grading(GradeHooks):
    """While grading: the reference folder in use (a sealed archive has its own)."""

    def use_solutions(self, folder: Path) -> None:
        reference.REFERENCE.use(folder)


LESSON = Lesson(
    name=TITLE_EN,
    tasks=TASK_LIST,
    layout=Layout(modules=(MODULE,)),
    title_en=TITLE_EN,
    title_ko=TITLE_KO,
    version=__version__,
    contract=CONTRACT,
    exercises=paths.EXERCISES,
    solutions=paths.SOLUTIONS,
    suites=paths.SUITES,
    grade=Grading(),
)
'''

PATHS = '''\
"""Where the lesson's folders live: inside the package, so they travel in its wheel as package data."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
EXERCISES = PACKAGE / "exercises"  # the student's stubs (what `grade release` ships)
SOLUTIONS = PACKAGE / "solutions"  # the reference (hidden suite only; never in a student release)
SUITES = PACKAGE / "suites"  # pytest.ini, public/, hidden/
'''

TASKS = '''\
"""The lesson's rubric tasks, in report order: names, titles, the graded names each points at."""

from __future__ import annotations

from grader.engine.lesson_api import Task

MODULE = "$module"  # the one module a student writes ($module.py)

TASK_LIST = (
    Task("row_means", "Row means", "행 평균", ("row_means",)),
)

TASKS = tuple(t.name for t in TASK_LIST)

# The contract: each graded name -> the module it lives in (a notebook's shims, the runtime's lookup).
CONTRACT = {symbol: MODULE for task in TASK_LIST for symbol in task.symbols}
'''

REFERENCE = '''\
"""The reference solution, loaded in the grader process to compute the hidden suite's expectations.

The kit's loader (``grader.core.testkit.Reference``): by path under a private module name, so it never
collides with the student's module; ``GradeHooks.use_solutions`` hands over the folder in use once per
grade. A hidden test reads ``reference.load().row_means(x)``.
"""

from __future__ import annotations

from grader.core.testkit import Reference
from $package.paths import SOLUTIONS
from $package.tasks import MODULE

REFERENCE = Reference(SOLUTIONS, MODULE)
load = REFERENCE.load
'''

STUB = '''\
"""$title: the exercise. / $title: 실습."""

import torch


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
'''

SOLUTION = '''\
"""$title: the reference solution (never in a student release)."""

import torch


def row_means(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] == 0:
        raise ValueError(f"row_means needs at least one column, got shape {tuple(x.shape)}")
    return x.mean(dim=-1)
'''

WRONG = '''\
"""A classic mistake, for the lesson's tests: the mean over the wrong dimension."""

import torch


def row_means(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] == 0:
        raise ValueError(f"row_means needs at least one column, got shape {tuple(x.shape)}")
    return x.mean(dim=0)
'''

RIGHT = '''\
"""Another correct way to write it, for the lesson's tests: the sum over the count."""

import torch


def row_means(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[-1]
    if n == 0:
        raise ValueError("empty rows: n == 0")
    return x.sum(-1) / n
'''

PYTEST_INI = """\
# The grader's own pytest configuration: passed with -c so nothing in a submission can configure the run.
[pytest]
addopts = -p no:cacheprovider
markers =
    task(name, points=1): the rubric entry of a test
"""

PUBLIC = '''\
"""Public checks of row_means: a small input written out, and an empty row."""

import pytest
import torch

from grader.core.feedback import Said, check, expect_check
from grader.core.testkit import as_tensor, check_shape, raised

X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 4.0, 4.0]])
EXPECTED = torch.tensor([2.0, 4.0])


@pytest.mark.task("row_means", points=2)
def test_two_rows(student):
    out = as_tensor(student.call("$module.row_means", X), "row_means(x)")
    check_shape(out, (2,), "row_means(x) of a (2, 3) x")
    expect_check(torch.allclose(out, EXPECTED), check(
        "row_means([[1, 2, 3], [4, 4, 4]])", Said("[2.0, 4.0]", "[2.0, 4.0]"),
        Said(str([round(v, 4) for v in out.tolist()]), str([round(v, 4) for v in out.tolist()])),
        fix=Said("Average over the last dimension: x.mean(dim=-1).",
                 "마지막 차원으로 평균을 내세요: x.mean(dim=-1).")))


@pytest.mark.task("row_means", points=1)
def test_empty_rows_are_a_value_error(student):
    out = student.attempt("$module.row_means", torch.zeros(2, 0))
    raised(out, "ValueError", "row_means(x) of a (2, 0) x",
           "A row needs at least one value: check x.shape[-1] > 0 and raise ValueError.",
           "행에는 값이 하나 이상 있어야 합니다: x.shape[-1] > 0인지 검사하고 ValueError를 발생시키세요.")
'''

HIDDEN = '''\
"""Hidden checks of row_means: random shapes against the reference."""

import pytest
import torch

from grader.core.feedback import Said, check, expect_check
from grader.core.testkit import as_tensor, check_shape, fresh_rng
from $package import reference


@pytest.mark.task("row_means", points=3)
def test_random_shapes_match_the_reference(student):
    rng = fresh_rng()  # seeded per submission: the same inputs on every rerun, replayable
    values = torch.Generator().manual_seed(rng.getrandbits(63))
    for _ in range(3):
        shape = tuple(rng.randint(1, 5) for _ in range(3))
        x = torch.randn(*shape, generator=values)
        out = as_tensor(student.call("$module.row_means", x), f"row_means(x) of a {shape} x")
        want = reference.load().row_means(x)
        check_shape(out, tuple(want.shape), f"row_means(x) of a {shape} x")
        diff = float((out - want).abs().max())
        expect_check(diff < 1e-5, check(
            f"row_means(x) of a {shape} x", Said("the reference's values", "기준 풀이의 값"),
            Said(f"values off by up to {diff:.3g}", f"최대 {diff:.3g}만큼 다른 값"),
            fix=Said("Average over the last dimension only.", "마지막 차원으로만 평균을 내세요.")))
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
grade --lesson $name $package/solutions   # the reference: full marks
grade --lesson $name $package/exercises   # the stubs: 0, every task "not started"
python -m pytest tests                    # the package's own tests
```

Edit `$package/tasks.py` (the tasks), `exercises/` (the stubs students get), `solutions/` (the
reference), `suites/public/` and `suites/hidden/` (the checks, written with `grader.core.testkit` and
`grader.core.feedback`), `examples/` (right and wrong submissions the tests grade) and `NOTES.md`.
"""

CONFTEST = '''\
"""The lesson's own tests grade its folders with the real kit (`grade --lesson $name`)."""
'''

TEST_LESSON = '''\
"""The lesson as written: the reference full, the stubs 0, a right way full and a wrong way caught."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]
PACKAGE = HERE / "$package"


def grade(folder: Path, out: Path, *extra: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "grader.cli", str(folder), "--lesson", "$name", "--out",
                           str(out), "-q", "--lang", "en", *extra], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("folder", [PACKAGE / "solutions", HERE / "examples" / "right"])
def test_a_correct_submission_is_full(folder: Path, tmp_path: Path) -> None:
    results = grade(folder, tmp_path / "out", "--hidden")
    assert results["score"] == results["max_score"] > 0


def test_the_stubs_get_zero_and_the_wrong_way_is_caught(tmp_path: Path) -> None:
    stubs = grade(PACKAGE / "exercises", tmp_path / "stubs")
    assert stubs["score"] == 0 < stubs["max_score"]
    wrong = grade(HERE / "examples" / "wrong", tmp_path / "wrong", "--hidden")
    assert 0 < wrong["score"] < wrong["max_score"]
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
        f"{package}/__init__.py": INIT, f"{package}/paths.py": PATHS, f"{package}/tasks.py": TASKS,
        f"{package}/reference.py": REFERENCE, f"{package}/NOTES.md": NOTES,
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
        "Write a working lesson package (one task, stubs, reference, public and hidden suites, examples, "
        "its own tests) to start a lesson from. / 과제 하나가 든, 바로 채점되는 레슨 패키지를 만듭니다."))
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
          f"{args.out / package_name(args.name) / 'solutions'} / 레슨을 만들었습니다")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
