"""`grade release OUT_DIR`: the copy of the kit that students get.

It holds the kit's part (the public suite, the `grade` tool, the report templates, a pyproject) and the
lesson's (its exercises, notebook and student README, from ``Lesson.release``: instructor/lesson_release.py);
never the hidden suite, the instructor tools (grader/instructor), the solutions, the examples
(examples/reference is a solution) or the kit's own tests. Before it finishes, the release is scanned
for anything that would reveal the hidden material (hidden test names,
distinctive lines of the solutions and of the hidden tests); a finding removes
the release and exits with status 1."""

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
from grader.paths import BUILD_FILES, EXERCISES, KIT_ROOT, PACKAGE, TEMPLATES

GRADER = PACKAGE
HIDDEN = GRADER / "suites" / "hidden"
PUBLIC = GRADER / "suites" / "public"
INSTRUCTOR = GRADER / "instructor"
SOLUTIONS = KIT_ROOT / "solutions"
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
