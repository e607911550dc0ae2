"""What a student release of this lesson holds, and its texts.

The kit's ``grade release`` writes the student's copy; from this lesson it takes ``student_files()``
(the package without its reference and hidden suite), the README below, the notebook
(lesson_attention/notebook.py) and the project setting that makes a plain ``grade`` pick this lesson.
``private_files()`` is what must never ship: the kit's leak scan compares the two.
"""

from __future__ import annotations

from pathlib import Path

from lesson_attention.paths import PACKAGE, SOLUTIONS, SUITES

PRIVATE = (SOLUTIONS, SUITES / "hidden")  # the reference and the hidden suite: graded on the server only
LESSON_NAME = "attention"  # its entry point name (pyproject.toml, [project.entry-points."grader.lessons"])

# The student repo's pyproject.toml setting, so that `grade` and `check()` pick this lesson unasked.
PROJECT_SETTING = f'[tool.grade]\nlesson = "{LESSON_NAME}"\n'

README = """# 스케일드 닷프로덕트 어텐션 + 인과 마스크 — 실습 키트 / exercise kit

## 한국어

지난 시간의 임베딩 + 위치인코딩 다음 단계입니다. 어텐션과 인과 마스크를 직접 구현합니다.
개념은 `lesson_attention/NOTES.md`에 있습니다.

1. 설치: `pip install -e .` (Python 3.10 이상, PyTorch CPU 버전이면 충분합니다)
2. `exercises/causal_attention.py`의 `causal_mask`, `scaled_dot_product_attention`,
   `CausalSelfAttention`을 채우거나, 같은 내용의 노트북 `lesson.ipynb`에서 풀어도 됩니다.
   함수 이름과 인자는 바꾸지 마세요.
3. 채점: `grade` (이 저장소의 `pyproject.toml`에 `[tool.grade] lesson = "attention"`이 있어
   이 수업을 채점합니다; 다른 곳에서는 `grade --lesson attention`). 노트북은 `grade lesson.ipynb`.
   결과는 `reports/`에 저장됩니다(`results.json`, `feedback.html`). 특정 과제만: `grade -k causal_mask`.
4. 노트북 안에서: `from grader import check` 다음 `check()` 또는 `check("scaled_dot_product_attention")`.

**이 복사본에는 공개 테스트만 있습니다.** 숨은 테스트는 제출할 때 채점 서버에서 실행되므로, 여기서 모두
통과해도 최종 점수는 다를 수 있습니다. 틀린 가중치는 보고서에 정답 옆에 그림으로 나오고, 틀린 칸에
테두리가 있습니다.

제출: `causal_attention.py`가 든 폴더, 노트북 하나, 또는 그것들의 zip.

## English

The step after embeddings + positional encoding: build attention and the causal mask yourself.
`lesson_attention/NOTES.md` explains the ideas.

1. Install: `pip install -e .` (Python 3.10 or later; the CPU build of PyTorch is enough).
2. Fill in `causal_mask`, `scaled_dot_product_attention` and `CausalSelfAttention` in
   `exercises/causal_attention.py`, or work in the notebook `lesson.ipynb`, which holds the same
   exercises. Keep the names and arguments.
3. Grade: `grade` (this repository's `pyproject.toml` says `[tool.grade] lesson = "attention"`; elsewhere,
   `grade --lesson attention`). A notebook: `grade lesson.ipynb`. Results go to `reports/` (`results.json`,
   `feedback.html`). One task only: `grade -k causal_mask`.
4. Inside a notebook: `from grader import check`, then `check()` or `check("scaled_dot_product_attention")`.

**This copy holds the public tests only.** The hidden tests run on the grading server when you submit, so
passing everything here does not guarantee the final score. Wrong weights are drawn in the report beside
the right ones, the wrong cells outlined.

Submit a folder holding `causal_attention.py`, one notebook, or a zip of either.
"""


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def private_files() -> list[Path]:
    """The reference and the hidden suite: never in a student's copy."""
    return [p for folder in PRIVATE for p in _files(folder)]


def student_files() -> list[Path]:
    """Everything of the package a student's copy holds (stubs, notes, public suite, the checks)."""
    return [p for p in _files(PACKAGE) if not any(p.is_relative_to(folder) for folder in PRIVATE)]


def write_notebook(source_dir: Path, out: Path) -> Path:
    """The lesson notebook (notebook.py) from the stubs in ``source_dir``."""
    from lesson_attention.notebook import write_notebook as write

    return write(source_dir, out)
