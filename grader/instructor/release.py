"""`grade release OUT_DIR`: the copy of the kit that students get.

It holds the exercises, the lesson as a notebook, the public suite, the
`grade` tool, the report templates, a student README and a pyproject; never
the hidden suite, the instructor tools (grader/instructor), the solutions, the examples (examples/reference \
is a
solution) or the kit's own tests. Before it finishes, the release is scanned
for anything that would reveal the hidden material (hidden test names,
distinctive lines of the solutions and of the hidden tests); a finding removes
the release and exits with status 1.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import sys
from pathlib import Path

from grader.engine.flags import add_lesson_argument, lesson_from_args
from grader.engine.lessons import DEFAULT_LESSON, PROJECT_FILE
from grader.engine.options import UsageProblem
from grader.instructor.notebook_release import write_notebook
from grader.paths import BUILD_FILES, EXERCISES, KIT_ROOT, PACKAGE, TEMPLATES

GRADER = PACKAGE
HIDDEN = GRADER / "suites" / "hidden"
PUBLIC = GRADER / "suites" / "public"
INSTRUCTOR = GRADER / "instructor"
SOLUTIONS = KIT_ROOT / "solutions"
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "*.gkh", "*.enc")
MIN_LINE = 30  # shorter lines are too generic to call a leak

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


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="grade release", description=(
        "Write the student copy of the kit: exercises, notebook, public tests, the grade tool; no hidden "
        "tests, no solutions. / 학생용 키트를 만듭니다(숨은 테스트와 정답 제외)."))
    p.add_argument("out", type=Path, help="folder to write (must not exist, or be empty; see --force)")
    p.add_argument("--force", action="store_true", help="replace the folder if it exists")
    add_lesson_argument(p)
    return p


def write_release(out: Path, lesson: str = DEFAULT_LESSON) -> list[Path]:
    """Copy what students get into ``out``; returns the top-level entries written. Its pyproject names
    ``lesson`` ([tool.grade]), so `grade` and `check()` in the copy grade that lesson with no flag."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(EXERCISES, out / "exercises", ignore=SKIP)
    write_kit(out)
    write_notebook(EXERCISES, out / "lesson.ipynb")
    if (KIT_ROOT / "docs" / "check-output.png").is_file():  # the README shows it
        (out / "docs").mkdir(exist_ok=True)
        shutil.copy2(KIT_ROOT / "docs" / "check-output.png", out / "docs" / "check-output.png")
    (out / "README.md").write_text(README, encoding="utf-8")
    (out / PROJECT_FILE).write_text(student_pyproject(lesson), encoding="utf-8")
    return sorted(out.iterdir())


def write_kit(out: Path) -> None:
    """The kit's part of any student copy: the grader without its hidden suite and instructor tools, the
    report templates, the build files."""
    grader = out / "grader"
    shutil.copytree(GRADER, grader, ignore=SKIP)
    shutil.rmtree(grader / "suites" / "hidden")
    shutil.rmtree(grader / "instructor")  # batch, merge, bundles, sealing: `grade` says they are not here
    shutil.rmtree(grader / "kitdata", ignore_errors=True)  # an installed kit's copies: the top level has them
    # no suites/hidden/ at all: `grade --hidden` finds no hidden test and says they run at submission
    if TEMPLATES.is_dir():
        shutil.copytree(TEMPLATES, out / "templates", ignore=SKIP)
    if (BUILD_FILES / "setup.py").is_file():  # the copy installs from a wheel as the kit does
        shutil.copy2(BUILD_FILES / "setup.py", out / "setup.py")
    (out / ".gitignore").write_text("__pycache__/\n*.pyc\n*.egg-info/\n/reports/\n", encoding="utf-8")


def student_pyproject(lesson: str = DEFAULT_LESSON) -> str:
    """The kit's pyproject with the package list cut to the grader (no solutions package), none of the
    instructor's own tool settings (the import contracts name grader.instructor, absent here), and the
    student's project setting: the lesson it is (grader/engine/lessons.py reads it)."""
    text = (BUILD_FILES / PROJECT_FILE).read_text(encoding="utf-8")
    text = re.sub(r"(?ms)^\[tool\.grade\]\n.*?(?=^\[|\Z)", "", text)  # the kit's own, if it has one
    text = re.sub(r'include\s*=\s*\[[^\]]*\]', 'include = ["grader*"]', text, count=1)
    text = re.sub(r'(?m)^name\s*=\s*"([^"]+)"', r'name = "\1-student"', text, count=1)
    text = re.sub(r'(?m)^\s*"copydetect[^\n]*\n', "", text)  # `grade similarity` is instructor-only
    text = re.sub(r"(?ms)^\[project\.optional-dependencies\].*?(?=^\[)", "", text)
    # every [tool.importlinter] / [[tool.importlinter.contracts]] table (and the comment over it), up to
    # the next other table; the kit's own test settings too (the release has no tests/)
    for table in (r"\[?tool\.importlinter", r"tool\.pytest\.ini_options"):
        text = re.sub(rf"(?ms)(?:^#[^\n]*\n)*^\[{table}[^\n]*\n.*?(?=^\[(?!{table})|\Z)", "", text)
    text = re.sub(r'(?m)^extend-exclude\s*=.*\n', "", text).rstrip()
    return text + f'\n\n# The lesson `grade` and `check()` grade here.\n[tool.grade]\nlesson = "{lesson}"\n'


# -- the leak scan ------------------------------------------------------------------------------


def hidden_test_names() -> set[str]:
    """Test functions of the hidden suite that the public suite does not also define."""
    def names(folder: Path) -> set[str]:
        found = set()
        for f in folder.glob("*.py"):
            for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
                    found.add(node.name)
        return found
    return names(HIDDEN) - names(PUBLIC) if HIDDEN.is_dir() else set()


def _lines(files: list[Path]) -> set[str]:
    out = set()
    for f in files:
        out.update(line.strip() for line in f.read_text(encoding="utf-8", errors="replace").splitlines())
    return out


def distinctive_lines(shared: frozenset[str] = frozenset()) -> dict[str, str]:
    """Line -> where it comes from, for solution and hidden-test lines nobody else has.

    A line is distinctive unless the stubs, the public suite or the grader's
    own (non-hidden) code share it: tests share helpers and markers, and the
    worker's probes rebuild a model the contract spells out.
    """
    public = _lines(sorted(p for p in EXERCISES.glob("*") if p.is_file())) | _lines(
        [p for p in sorted(GRADER.rglob("*.py")) if HIDDEN not in p.parents and INSTRUCTOR not in p.parents])
    public |= shared  # lines another released lesson ships on purpose (lesson_release.py)

    def keep(line: str) -> bool:
        return len(line) >= MIN_LINE and not line.startswith(("import ", "from ")) and line not in public

    found: dict[str, str] = {}
    for f in sorted(SOLUTIONS.glob("*.py")) if SOLUTIONS.is_dir() else []:
        for line in _lines([f]):
            if keep(line):
                found.setdefault(line, f"solutions/{f.name}")
    for f in sorted(HIDDEN.glob("*.py")) if HIDDEN.is_dir() else []:
        for line in _lines([f]):
            if keep(line):
                found.setdefault(line, f"grader/suites/hidden/{f.name}")
    return found


def release_texts(root: Path) -> dict[str, str]:
    """Every text file of the release (notebook cells decoded), by relative path."""
    texts = {}
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        raw = f.read_bytes()
        if b"\0" in raw[:4096]:
            continue
        text = raw.decode("utf-8", errors="replace")
        if f.suffix == ".ipynb":
            try:
                text = "\n".join("".join(c.get("source", "")) for c in json.loads(text).get("cells", []))
            except (ValueError, AttributeError):
                pass
        texts[f.relative_to(root).as_posix()] = text
    return texts


def scan_release(root: Path, shared: frozenset[str] = frozenset()) -> list[str]:
    """What in ``root`` would reveal the hidden tests or the solutions (empty when clean); ``shared``:
    lines the copy holds on purpose (a released lesson's own public files), no leak of the kit's."""
    findings = []
    if (root / "solutions").exists():
        findings.append("solutions/ is in the release")
    hidden_dir = root / "grader" / "suites" / "hidden"
    if hidden_dir.exists() and any(hidden_dir.iterdir()):
        findings.append("grader/suites/hidden/ is not empty")
    names = hidden_test_names()
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\b") if names else None
    lines = distinctive_lines(shared)
    for rel, text in release_texts(root).items():
        if pattern:
            for m in sorted(set(pattern.findall(text))):
                findings.append(f"{rel}: names the hidden test {m}")
        for line in {ln.strip() for ln in text.splitlines()} & lines.keys():
            findings.append(f"{rel}: holds a line of {lines[line]}: {line[:80]}")
    return findings


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    out: Path = args.out
    try:
        lesson = lesson_from_args(args)
    except UsageProblem as exc:
        print(f"grade release: {exc}", file=sys.stderr)
        return 2
    declared = lesson.load() if lesson.name != DEFAULT_LESSON else None
    if declared is not None and declared.release is None:
        # Its suites, hidden ones and solutions included, ship in its own package: without its release
        # hook (Lesson.release: what a student gets) the kit cannot tell what to leave out.
        print(f"grade release: {lesson.name!r} declares no release (Lesson.release); only lessons that do "
              f"are released / {lesson.name!r}에는 배포 정의(Lesson.release)가 없습니다", file=sys.stderr)
        return 2
    if out.exists() and any(out.iterdir()):
        if not args.force:
            print(f"grade release: {out} exists and is not empty; use --force to replace it / "
                  f"폴더가 비어 있지 않습니다. 바꾸려면 --force", file=sys.stderr)
            return 2
        shutil.rmtree(out)
    if declared is None:
        write_release(out, lesson.name)
        findings = scan_release(out)
    else:
        from grader.instructor.lesson_release import public_lines, scan_lesson_release, write_lesson_release

        write_lesson_release(out, lesson.name, lesson.module, declared)
        shared = frozenset(public_lines(declared))
        findings = scan_release(out, shared) + scan_lesson_release(out, lesson.module, declared)
    if findings:
        shutil.rmtree(out, ignore_errors=True)
        print("grade release: refused, the release would reveal hidden material / 숨은 자료가 드러나 "
              "배포본을 지웠습니다:\n  " + "\n  ".join(findings), file=sys.stderr)
        return 1
    print(f"student release written to {out}: exercises/, lesson.ipynb, grader/ (public suite only), "
          f"templates/, README.md, pyproject.toml; scanned clean for {len(hidden_test_names())} hidden test "
          f"names and {len(distinctive_lines())} solution/hidden lines / 학생용 배포본을 만들었고 숨은 "
          "자료가 없음을 확인했습니다")
    return 0
