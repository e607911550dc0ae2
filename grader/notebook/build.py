"""A lesson's notebook, built from its stubs: what a lesson's release ships as ``lesson.ipynb``.

An intro cell, the stub's imports (one cell), then per graded definition a Markdown step and its code
cell exactly as in the stub (docstring included; constants and helpers travel with the next graded
definition), and an optional try-it cell, which should be guarded by ``if __name__ == "__main__":`` (true
in Jupyter, false while grading). `grade lesson.ipynb` and ``check()`` read it back with the kit's
notebook reader (notebook/plan.py), so a lesson needs no notebook code of its own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook


@dataclass(frozen=True)
class NotebookTexts:
    """The words of a lesson's notebook (Markdown, Korean and English); every field may be left empty.

    ``intro``: the first cell ("": one saying to fill in the stubs and run ``check()``); ``steps``: per
    graded name, its step's cell ("## Step n — name" where none is given); ``try_it``: the last code cell
    ("": none)."""

    intro: str = ""
    steps: Mapping[str, str] = field(default_factory=dict)
    try_it: str = ""


def default_intro(title: str, module: str) -> str:
    """The intro cell a lesson that writes none gets: what to do, in both languages."""
    return (
        f"# {title} — 실습 노트북 / lesson notebook\n\n"
        f"**[한국어]** 이 노트북은 `exercises/{module}.py`와 같은 내용입니다. 각 단계를 읽고 "
        "코드 셀의 `raise NotImplementedError(...)`를 지우고 구현하세요. 함수 이름과 인자는 "
        "바꾸지 마세요: 채점기가 그 이름으로 부릅니다. 노트북 안에서 `from grader import check` "
        "다음 `check()`로 공개 테스트를 돌려 보세요(또는 저장 후 `grade lesson.ipynb`). "
        "숨은 테스트는 제출할 때 실행됩니다.\n\n"
        f"**[English]** This notebook holds the same exercises as `exercises/{module}.py`. Read each "
        "step, then replace the `raise NotImplementedError(...)` in the code cells with your code. Keep "
        "the names and arguments: the grader calls them by name. Inside the notebook, "
        "`from grader import check` then `check()` runs the public tests (or save and run "
        "`grade lesson.ipynb`); the hidden tests run when you submit.")


def _parts(source: str) -> tuple[str, list[tuple[str | None, str]]]:
    """The module's imports (one cell), then each top-level statement's source with its name (None for
    anything but a def or a class). The module docstring and ``from __future__`` stay out."""
    tree = ast.parse(source)
    lines = source.splitlines()
    imports: list[str] = []
    parts: list[tuple[str | None, str]] = []
    for node in tree.body:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        text = "\n".join(lines[start - 1:node.end_lineno])
        if isinstance(node, ast.Import | ast.ImportFrom):
            if not (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
                imports.append(text)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            parts.append((node.name, text))
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):  # the docstring
            parts.append((None, text))
    return "\n".join(imports), parts


def build_notebook(stub: Path, graded: Iterable[str], texts: NotebookTexts | None = None, *,
                   title: str = "") -> Any:
    """The notebook of the stub file ``stub``: a step per name of ``graded`` it defines, in file order."""
    texts = texts or NotebookTexts()
    names = set(graded)
    imports, parts = _parts(Path(stub).read_text(encoding="utf-8"))
    intro = texts.intro or default_intro(title or Path(stub).stem, Path(stub).stem)
    cells = [new_markdown_cell(intro), new_code_cell(f"from __future__ import annotations\n\n{imports}")]
    pending: list[str] = []
    step = 0
    for name, text in parts:
        if name is None or name not in names:
            pending.append(text)
            continue
        step += 1
        cells.append(new_markdown_cell(texts.steps.get(name) or f"## {step}단계 · Step {step} — `{name}`"))
        cells.append(new_code_cell("\n\n\n".join([*pending, text])))
        pending = []
    if pending:
        cells.append(new_code_cell("\n\n\n".join(pending)))
    if texts.try_it:
        cells.append(new_code_cell(texts.try_it.rstrip("\n")))
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def write_notebook(stub: Path, graded: Iterable[str], out: Path, texts: NotebookTexts | None = None, *,
                   title: str = "") -> Path:
    """``build_notebook``, validated and written to ``out``."""
    nb = build_notebook(stub, graded, texts, title=title)
    nbformat.validate(nb)
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(out))
    return out
