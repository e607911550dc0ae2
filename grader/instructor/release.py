"""`grade release OUT_DIR`: the copy of the kit that students get.

It holds the kit's part (the `grade` tool, the report templates, a pyproject) and the lesson's (its
package cut to its public suite, its exercises, notebook and student README, from ``Lesson.release``:
instructor/lesson_release.py); never the hidden suite, the instructor tools (grader/instructor), the
solutions, the examples (examples/reference is a solution), another lesson, or the kit's own tests. Before
it finishes, the release is scanned for anything that would reveal the lesson's private files (hidden test
names, distinctive lines of the solutions and of the hidden tests); a finding removes the release and exits
with status 1."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

from grader.engine.flags import add_lesson_argument, lesson_from_args
from grader.engine.lessons import DEFAULT_LESSON, PROJECT_FILE
from grader.engine.options import UsageProblem
from grader.paths import BUILD_FILES, PACKAGE, TEMPLATES

GRADER = PACKAGE
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "*.gkh", "*.enc")
MIN_LINE = 30  # shorter lines are too generic to call a leak

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="grade release", description=(
        "Write the student copy of the kit: exercises, notebook, public tests, the grade tool; no hidden "
        "tests, no solutions. / 학생용 키트를 만듭니다(숨은 테스트와 정답 제외)."))
    p.add_argument("out", type=Path, help="folder to write (must not exist, or be empty; see --force)")
    p.add_argument("--force", action="store_true", help="replace the folder if it exists")
    add_lesson_argument(p)
    return p


def write_kit(out: Path) -> None:
    """The kit's part of any student copy: the grader without its instructor tools, the report templates,
    the build files (the kit holds no lesson: instructor/lesson_release.py adds the released one)."""
    grader = out / "grader"
    shutil.copytree(GRADER, grader, ignore=SKIP)
    shutil.rmtree(grader / "instructor")  # batch, merge, bundles, sealing: `grade` says they are not here
    shutil.rmtree(grader / "kitdata", ignore_errors=True)  # an installed kit's copies: the top level has them
    if TEMPLATES.is_dir():
        shutil.copytree(TEMPLATES, out / "templates", ignore=SKIP)
    if (BUILD_FILES / "setup.py").is_file():  # the copy installs from a wheel as the kit does
        shutil.copy2(BUILD_FILES / "setup.py", out / "setup.py")
    (out / ".gitignore").write_text("__pycache__/\n*.pyc\n*.egg-info/\n/reports/\n", encoding="utf-8")


def student_pyproject(lesson: str = DEFAULT_LESSON) -> str:
    """The kit's pyproject with the package list cut to the grader, none of the
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
    # and the kit's import sorting, which names the lessons of the kit's checkout
    for table in (r"\[?tool\.importlinter", r"tool\.pytest\.ini_options", r"tool\.ruff\.lint\.isort"):
        text = re.sub(rf"(?ms)(?:^#[^\n]*\n)*^\[{table}[^\n]*\n.*?(?=^\[(?!{table})|\Z)", "", text)
    text = re.sub(r'(?m)^extend-exclude\s*=.*\n', "", text).rstrip()
    return text + f'\n\n# The lesson `grade` and `check()` grade here.\n[tool.grade]\nlesson = "{lesson}"\n'


# -- the leak scan ------------------------------------------------------------------------------


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


def scan_release(root: Path) -> list[str]:
    """What of the kit's own making in ``root`` should not be there (empty when clean): a solutions folder,
    the instructor's tools. The lesson's private files are scanned by instructor/lesson_release.py."""
    findings = []
    if (root / "solutions").exists():
        findings.append("solutions/ is in the release")
    if (root / "grader" / "instructor").exists():
        findings.append("grader/instructor/ is in the release")
    return findings


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    out: Path = args.out
    try:
        lesson = lesson_from_args(args)
        declared = lesson.load()
    except UsageProblem as exc:
        print(f"grade release: {exc}", file=sys.stderr)
        return 2
    if declared.release is None:
        # Its suites, hidden ones and solutions included, may ship in its own package: without its release
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
    from grader.instructor.lesson_release import scan_lesson_release, write_lesson_release

    write_lesson_release(out, lesson.name, lesson.module, declared)
    findings = scan_release(out) + scan_lesson_release(out, lesson.module, declared)
    if findings:
        shutil.rmtree(out, ignore_errors=True)
        print("grade release: refused, the release would reveal hidden material / 숨은 자료가 드러나 "
              "배포본을 지웠습니다:\n  " + "\n  ".join(findings), file=sys.stderr)
        return 1
    print(f"student release written to {out}: exercises/, lesson.ipynb, grader/, the lesson's package "
          f"(public suite only), templates/, README.md, pyproject.toml; scanned clean of its hidden tests "
          f"and solutions / 학생용 배포본을 만들었고 숨은 자료가 없음을 확인했습니다")
    return 0
