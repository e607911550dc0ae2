"""What a student release of this lesson holds, and its texts (``Lesson.release``).

`grade release` (grader/instructor/lesson_release.py) writes the student's copy: the kit, which holds this
lesson's package () and its public suite, cut to ``student_files()``; the stubs as
``exercises/``; the notebook (lesson/notebook.py); the README below. ``private_files()`` is what must never
ship (the reference solutions and the hidden suite): the kit's leak scan compares the copy with it. The
README names this lesson's files and shows the kit's picture of check() (docs/check-output.png, which the
kit then ships beside it).
"""

from __future__ import annotations

from pathlib import Path

from lesson_embedding_pe.paths import SOLUTIONS
from lesson_embedding_pe.paths import SUITES as SUITES_DIR

PACKAGE = Path(__file__).resolve().parent
PRIVATE = (SOLUTIONS, SUITES_DIR / "hidden")  # graded on the server only

README = """# Embedding + Positional Encoding — 실습 키트 / exercise kit

## 한국어

토큰 임베딩과 위치인코딩(사인, 학습형) 실습입니다.

1. 설치: `pip install -e .` (Python 3.10 이상, PyTorch CPU 버전이면 충분합니다)
2. `exercises/`의 `embedding.py`, `reversal.py`, `leetcode.py`를 채우거나, 같은 내용의 노트북
   `lesson.ipynb`에서 풀어도 됩니다. 함수 이름과 인자는 바꾸지 마세요.
3. LeetCode: `leetcode.py`의 Medium 문제 세 개(50. Pow(x, n), 204. Count Primes, 12. Integer to Roman) 중 아무
   두 문제를 푸세요. 가장 잘 푼 두 문제가 같은 비중으로 점수에 들어갑니다. 202. Happy Number는 LeetCode에서
   Easy라 몸풀기용입니다. 코드는 점수에 들어가지 않고, 기록에 쓰면 제출할 때 0.5점이 깎입니다(기록은 Medium
   문제만 받습니다). 고르지 않은 함수는 `NotImplementedError`를 그대로 두세요.
   풀이 기록은 `exercises/LEETCODE_LOG.md`에 씁니다. 노트북에서는 템플릿 칸(`**문제 (Problem):**` ...)이 있는
   마크다운 셀에 씁니다: `lesson.ipynb`에서는 맨 아래 셀이고, 직접 만든 노트북이면 템플릿을 마크다운 셀에
   붙여 넣으세요. 채점기는 셀의 위치가 아니라 내용으로 기록을 찾고, `check()`는 저장된 노트북에서 읽습니다.
4. 채점: `grade` (= `grade exercises`) 또는 `grade lesson.ipynb`. 결과는 `reports/`에, 노트북은
   `reports/lesson/`에 따로 저장됩니다(`results.json`, `feedback.html`).
   특정 과제만: `grade -k sinusoidal_pe`.

**이 복사본에는 공개 테스트만 있습니다.** 숨은 테스트는 제출할 때 채점 서버에서 실행되므로, 여기서 모두 \
통과해도
최종 점수는 다를 수 있습니다. `grade --hidden`은 이 복사본에서 동작하지 않고 그 사실을 알려 줍니다.
공개 테스트의 메시지는 무엇을 기대했고 무엇이 나왔는지, 흔한 원인이 무엇인지 알려 줍니다.

제출: 폴더(`embedding.py`, `reversal.py`, `leetcode.py`, `LEETCODE_LOG.md`), 노트북 하나, 또는 그것들의 zip.

### 노트북(Jupyter, Colab)에서 바로 확인하기

Colab이면 노트북의 첫 셀에서 이 키트를 설치합니다(주소는 강사가 알려 준 것을 쓰세요. zip을 받았다면
`!unzip -qo 키트.zip -d kit`로 대신합니다).

```python
!git clone -q <강사가 알려 준 키트 주소> kit
%pip install -q -e kit
import sys; sys.path.insert(0, "kit")
```

그다음 아무 셀에서나 `check`로 지금까지 실행한 셀을 공개 테스트로 채점합니다. 셀의 코드는 `grade`와 똑같이
격리된 프로세스에서 실행되고, 결과는 `grade`의 보고서와 같은 설명(무엇을 기대했고 무엇이 나왔는지, 원인
추정)으로 셀 아래에 나옵니다. Jupyter가 아닌 파이썬에서는 `./exercises`를 채점합니다.

```python
from grader import check
check("sinusoidal_pe")   # 과제 하나 (TokenAndPosEmbedding, weight_tying, equivariance, leetcode_practice ...)
check()                  # 모든 과제; 언어는 check(lang="ko")
```

![check() 결과](docs/check-output.png)

노트북을 제출하면 코드 셀을 순서대로, 문장 하나씩 실행합니다. Colab에만 있는 import(`google.colab`,
`drive.mount`), IPython import, `!pip`·`%` 명령, 출력과 그래프, 최상위의 실험(`run_experiment(...)`)처럼 \
채점에
필요 없는 코드는 실행하지 않고, 실패한 셀이 있어도 다음 셀은 계속 실행합니다. 무엇을 건너뛰었고 무엇이
실패했는지는 보고서에 셀 번호와 함께 나옵니다.

## English

Exercises on token embeddings and positional encodings (sinusoidal and learned).

1. Install: `pip install -e .` (Python 3.10 or later; the CPU build of PyTorch is enough).
2. Fill in `embedding.py`, `reversal.py` and `leetcode.py` in `exercises/`, or work in the notebook
   `lesson.ipynb`, which holds the same exercises. Keep the names and arguments of the functions.
3. LeetCode: solve any two of the three Medium problems in `leetcode.py` (50. Pow(x, n), 204. Count Primes,
   12. Integer to Roman); your best two count, each worth the same. 202. Happy Number is Easy on LeetCode:
   it is there to warm up, its code never counts, and a log entry for it loses 0.5 at submission (the log
   takes Medium problems only). Leave the others raising `NotImplementedError`. Write the log in
   `exercises/LEETCODE_LOG.md`; in a notebook, in a Markdown cell holding the template's fields
   (`**문제 (Problem):**` ...): the last cell of `lesson.ipynb`, or paste the template into a Markdown cell of
   your own notebook. The grader finds the log by its content, not its place; `check()` reads it from the
   saved notebook.
4. Grade: `grade` (same as `grade exercises`) or `grade lesson.ipynb`. Results go to `reports/`, a
   notebook's to its own `reports/lesson/` (`results.json`, `feedback.html`). One task only:
   `grade -k sinusoidal_pe`.

**This copy holds the public tests only.** The hidden tests run on the grading server when you submit, so
passing everything here does not guarantee the final score. `grade --hidden` does not work in this copy and
says so. Each public test's message says what was expected, what was found, and the likely cause.

Submit a folder (`embedding.py`, `reversal.py`, `leetcode.py`, `LEETCODE_LOG.md`), one notebook, or a zip of \
either.

### Checking from inside a notebook (Jupyter, Colab)

In Colab, install this kit in the notebook's first cell (use the address your instructor gives; with a zip,
`!unzip -qo kit.zip -d kit` instead of the clone):

```python
!git clone -q <the kit's address from your instructor> kit
%pip install -q -e kit
import sys; sys.path.insert(0, "kit")
```

Then, in any cell, `check` grades what the cells you ran so far define, with the public tests. The cells'
code runs in the same isolated process as with `grade`, and the answer under the cell is the report's
feedback: what was expected, what was found, the likely cause. Outside Jupyter it grades `./exercises`.

```python
from grader import check
check("sinusoidal_pe")   # one task (TokenAndPosEmbedding, weight_tying, equivariance, leetcode_practice ...)
check()                  # every task; check(lang="ko") for Korean
```

![check() output](docs/check-output.png)

A submitted notebook runs cell by cell, one statement at a time. What grading does not need is not run:
Colab-only imports (`google.colab`, `drive.mount`), IPython imports, `!pip` and `%` commands, output and
plots, the experiment at top level (`run_experiment(...)`); a cell that fails does not stop the next ones.
The report lists, by cell number, what was skipped and what failed.
"""


def _files(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def private_files() -> list[Path]:
    """The reference and the hidden suite: never in a student's copy."""
    return [p for folder in PRIVATE for p in _files(folder)]


def student_files() -> list[Path]:
    """This lesson's package as a student's copy holds it: all of it but the hidden suite and the reference
    (and, in an installed wheel, its copy of the stubs, which ship as the copy's exercises/)."""
    private = [folder.resolve() for folder in (*PRIVATE, PACKAGE / "exercises")]
    return [f for f in _files(PACKAGE) if not any(f.resolve().is_relative_to(d) for d in private)]


def write_notebook(source_dir: Path, out: Path) -> Path:
    """The lesson notebook (lesson/notebook.py) from the stubs in ``source_dir``."""
    from lesson_embedding_pe.notebook import write_notebook as write

    return write(source_dir, out)
