"""The kit's part of every student copy, and the scan that keeps the kit's own private files out of it.

`grade release` (instructor/lesson_release.py) writes the kit here (``write_kit``: the `grade` tool without
the instructor tools, the report templates, a pyproject, ``student_pyproject``) and the lesson's part from
its ``Lesson.release`` there; never the hidden suite, the instructor tools (grader/instructor), the
solutions, the examples (examples/reference is a solution), another lesson, or the kit's own tests.
``release_texts`` reads the copy back for the leak scans: ``scan_release`` here for the kit's own making,
the lesson's scan in lesson_release.py against its private files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from grader.engine.lessons import PROJECT_FILE
from grader.paths import BUILD_FILES, PACKAGE, TEMPLATES

GRADER = PACKAGE
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "*.gkh", "*.enc")
MIN_LINE = 30  # shorter lines are too generic to call a leak

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


def student_pyproject(lesson: str) -> str:
    """The kit's pyproject with the package list cut to the grader, none of the
    instructor's own tool settings (the import contracts name grader.instructor, the type checker the
    lessons of the checkout: both absent here), and the
    student's project setting: the lesson it is (grader/engine/lessons.py reads it)."""
    text = (BUILD_FILES / PROJECT_FILE).read_text(encoding="utf-8")
    # the checkout's own setting (the course's lesson), with the comment over it
    text = re.sub(r"(?ms)(?:^#[^\n]*\n)*^\[tool\.grade\]\n.*?(?=^\[|\Z)", "", text)
    text = re.sub(r'include\s*=\s*\[[^\]]*\]', 'include = ["grader*"]', text, count=1)
    text = re.sub(r'(?m)^name\s*=\s*"([^"]+)"', r'name = "\1-student"', text, count=1)
    text = re.sub(r'(?m)^\s*"copydetect[^\n]*\n', "", text)  # `grade similarity` is instructor-only
    text = re.sub(r"(?ms)^\[project\.optional-dependencies\].*?(?=^\[)", "", text)
    # every [tool.importlinter] / [[tool.importlinter.contracts]] table (and the comment over it), up to
    # the next other table; the kit's own test settings too (the release has no tests/), and the kit's
    # import sorting and type checking, which name the lessons of the kit's checkout
    for table in (r"\[?tool\.importlinter", r"tool\.pytest\.ini_options", r"tool\.ruff\.lint\.isort",
                  r"\[?tool\.mypy"):
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
