"""A lesson declared from its package folder: the boilerplate every lesson had, as the kit's defaults.

A lesson package keeps its stubs in ``exercises/``, its reference in ``solutions/`` and its suites in
``suites/`` (``public/``, ``hidden/``, ``pytest.ini``). ``lesson_package`` turns that folder and the
lesson's own data (tasks, titles, the module a student writes) into its ``Lesson`` with

- the reference loader (``grader.core.reference.Reference``) its hidden suites compare against, handed the
  folder in use once per grade (``GradeHooks.use_solutions``, added to the lesson's own ``grade=``);
- a release (``standard_release``): the package without its reference and hidden suite, a bilingual
  README, and the notebook built from the stubs (notebook/build.py), so `grade release --lesson NAME`
  and ``check()`` in that notebook work as soon as the lesson exists.

Any of it can be replaced: a lesson passes its own ``grade=``, ``release=`` or README text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from grader.core.reference import Reference
from grader.engine.lesson_api import GradeHooks, Layout, Lesson, ReleaseHooks, Task
from grader.notebook.build import NotebookTexts, write_notebook


def default_readme(name: str, title_en: str, title_ko: str, module: str) -> str:
    """A release README for a lesson that writes none: install, fill in, grade, ``check()``, submit."""
    return f"""# {title_ko or title_en} — 실습 키트 / exercise kit{f' ({title_en})' if title_ko else ''}

## 한국어

1. 설치: `pip install -e .` (Python 3.10 이상, PyTorch CPU 버전이면 충분합니다)
2. `exercises/{module}.py`의 함수와 클래스를 채우거나, 같은 내용의 노트북 `lesson.ipynb`에서 풀어도 됩니다.
   함수 이름과 인자는 바꾸지 마세요.
3. 채점: `grade` (이 저장소의 `pyproject.toml`이 이 수업 `{name}`을 고릅니다; 다른 곳에서는
   `grade --lesson {name}`). 노트북은 `grade lesson.ipynb`. 결과는 `reports/`에 저장됩니다.
4. 노트북 안에서: `from grader import check` 다음 `check()`.

**이 복사본에는 공개 테스트만 있습니다.** 숨은 테스트는 제출할 때 채점 서버에서 실행됩니다.

제출: `{module}.py`가 든 폴더, 노트북 하나, 또는 그것들의 zip.

## English

1. Install: `pip install -e .` (Python 3.10 or later; the CPU build of PyTorch is enough).
2. Fill in the functions and classes of `exercises/{module}.py`, or work in the notebook `lesson.ipynb`,
   which holds the same exercises. Keep the names and arguments.
3. Grade: `grade` (this repository's `pyproject.toml` selects the lesson `{name}`; elsewhere,
   `grade --lesson {name}`). A notebook: `grade lesson.ipynb`. Results go to `reports/`.
4. Inside a notebook: `from grader import check`, then `check()`.

**This copy holds the public tests only.** The hidden tests run on the grading server when you submit.

Submit a folder holding `{module}.py`, one notebook, or a zip of either.
"""


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def standard_release(package: Path, *, private: Sequence[Path], readme: str, module: str,
                     graded: Sequence[str], notebook: NotebookTexts | None = None,
                     title: str = "") -> ReleaseHooks:
    """A package's student copy: every file of ``package`` but the ``private`` folders and files, the
    README ``readme``, and the notebook of the stub ``module``.py, a step per name of ``graded``."""
    package, hidden = Path(package), tuple(map(Path, private))
    texts = notebook or NotebookTexts()

    def private_files() -> list[Path]:
        return [f for p in hidden for f in (_files(p) if p.is_dir() else [p] if p.is_file() else [])]

    def student_files() -> list[Path]:
        leave_out = set(private_files())
        return [p for p in _files(package) if p not in leave_out]

    def notebook_of(source_dir: Path, out: Path) -> Path | None:
        stub = Path(source_dir) / f"{module}.py"
        if not stub.is_file():
            return None
        return write_notebook(stub, tuple(graded), out, texts, title=title)

    return ReleaseHooks(student_files=student_files, private_files=private_files, readme=readme,
                        write_notebook=notebook_of)


def lesson_package(init_file: str | Path, name: str, *, tasks: Sequence[Task], module: str,
                   title_en: str, title_ko: str = "", version: str = "0", readme: str = "",
                   notebook: NotebookTexts | None = None, layout: Layout | None = None,
                   grade: GradeHooks | None = None, release: ReleaseHooks | None = None,
                   **more: Any) -> tuple[Lesson, Reference]:
    """The ``Lesson`` of the package whose ``__init__.py`` is ``init_file``, and its reference loader.

    ``name`` is the lesson's entry point name (``grade --lesson NAME``, the README's commands); ``module``
    the one module a student writes; the folders are the package's ``exercises/``, ``solutions/``,
    ``suites/`` and, where it exists, ``probes.py``. ``more`` takes any other ``Lesson`` field (``report=``,
    ``hidden_artifacts=``...). A hidden suite reads the reference as ``REFERENCE.load().fn(x)``::

        LESSON, REFERENCE = lesson_package(__file__, "rope", module="rope", title_en="RoPE",
                                           tasks=(Task("rotate", "Rotation", "회전", ("rotate",)),))
    """
    root = Path(init_file).resolve().parent
    exercises, solutions, suites = root / "exercises", root / "solutions", root / "suites"
    reference = Reference(solutions, module)
    graded = tuple(dict.fromkeys(s for t in tasks for s in t.symbols))
    if release is None:
        release = standard_release(root, private=(solutions, suites / "hidden"), module=module, graded=graded,
                                   readme=readme or default_readme(name, title_en, title_ko, module),
                                   notebook=notebook, title=title_ko or title_en)
    grade = grade or GradeHooks()
    if grade.use_solutions is None:  # the reference loader learns the folder in use, whatever else it does
        grade = replace(grade, use_solutions=reference.use)
    if (root / "probes.py").is_file():
        more.setdefault("probes", root / "probes.py")
    lesson = Lesson(name=title_en, tasks=tuple(tasks), layout=layout or Layout(modules=(module,)),
                    title_en=title_en, title_ko=title_ko, version=version,
                    contract=more.pop("contract", None) or {s: module for s in graded},
                    exercises=exercises, solutions=solutions, suites=suites,
                    grade=grade, release=release, **more)
    return lesson, reference
