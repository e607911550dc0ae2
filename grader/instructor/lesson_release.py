"""`grade release OUT [--lesson NAME]`: a lesson's student copy, built from its ``Lesson.release``.

The copy holds the kit as every release has it (no hidden suite, no instructor tools), the lesson's package
cut to ``release.student_files()``, its stubs as ``exercises/``, its notebook and README, and a pyproject
that installs both and selects the lesson (``[tool.grade]``), so `grade` and `check()` there grade that
lesson unasked. The lesson's package lands beside the kit (its folder, its entry point added to the
pyproject); no other lesson is copied or registered. Before it is kept, the copy is scanned against
``release.private_files()``: no private file, no hidden test's name, no distinctive line of them, and
against the kit's own (instructor/release.py ``scan_release``); a finding removes the copy and exits with
status 1.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from grader.engine.flags import add_lesson_argument, lesson_from_args
from grader.engine.usage import UsageProblem
from grader.instructor.release import (
    MIN_LINE,
    SKIP,
    release_texts,
    scan_release,
    student_pyproject,
    write_kit,
)
from grader.paths import KIT_ROOT

SUFFIXES = (".py", ".md", ".ini", ".json", ".txt")  # what of the private files is text worth scanning
PICTURE = Path("docs") / "check-output.png"  # the kit's picture of check(), shipped where a README shows it


def package_root(module: str) -> Path:
    """The folder of the lesson's package (found, not imported)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"{module} is not a package: a release copies the lesson's package")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def copy_base(module: str) -> Path:
    """The folder the copy mirrors for the lesson's files: the one holding the lesson's package (which lands
    at the copy's top level)."""
    return package_root(module).parent


def lesson_pyproject(name: str, module: str) -> str:
    """The kit's student pyproject, selecting ``name``; a lesson packaged on its own is also installed and
    registered there."""
    text = student_pyproject(name)
    package = module.split(".")[0]
    text = re.sub(r'include = \["grader\*"\]', f'include = ["grader*", "{package}*"]', text, count=1)
    entry = '[project.entry-points."grader.lessons"]\n'
    if entry in text:
        text = text.replace(entry, f'{entry}{name} = "{module}"\n', 1)
    else:
        text += f'\n{entry}{name} = "{module}"\n'
    data = "[tool.setuptools.package-data]\n"
    files = f'{package} = ["*.md", "exercises/*", "suites/*.ini", "suites/*/*.py"]\n'
    return text.replace(data, data + files, 1) if data in text else text + f"\n{data}{files}"


def _copy_package(out: Path, module: str, release: Any) -> None:
    """The lesson's package in the copy, cut to ``release.student_files()``."""
    base = copy_base(module)
    keep = {Path(f).resolve() for f in release.student_files()}
    for f in sorted(keep):
        dest = out / f.relative_to(base)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, dest)


# What the first `grade` in a terminal starts (grader/daemon/), said where a student reads first.
WARM_GRADER = """## The warm grader / 상주 채점기

The first `grade` you run in a terminal starts a warm grader, and says so: a background process of yours
that keeps torch loaded for 15 minutes after each grade, so the next `grade` (in any folder) is fast and
runs again only the tests whose code changed; its answer is always a fresh grade's. Stop it now:
`grade --stop-daemon`; grade without it: `grade --no-daemon`, or `export GK_DAEMON=0` for good.

터미널에서 처음 `grade`를 실행하면 상주 채점기가 시작되고 그 사실을 알려 줍니다. 채점 뒤 15분 동안
torch를 불러 둔 채 기다리는 백그라운드 프로세스로, 다음 `grade`(어느 폴더든)를 빠르게 하고 바뀐 코드의
테스트만 다시 실행합니다. 결과는 언제나 새로 채점한 것과 같습니다. 지금 끄기: `grade --stop-daemon`;
쓰지 않기: `grade --no-daemon`, 계속은 `export GK_DAEMON=0`.
"""


def write_lesson_release(out: Path, name: str, module: str, lesson: Any) -> list[Path]:
    """Write the student copy of ``lesson`` (registered as ``name``, declared by ``module``) into ``out``;
    returns the top-level entries written."""
    release = lesson.release
    out.mkdir(parents=True, exist_ok=True)
    write_kit(out)
    _copy_package(out, module, release)
    if lesson.exercises is not None:
        shutil.copytree(lesson.exercises, out / "exercises", ignore=SKIP)
        if release.write_notebook is not None:
            release.write_notebook(lesson.exercises, out / "lesson.ipynb")
    readme = release.readme or f"# {lesson.title}\n"  # a lesson that writes none: its title
    readme = readme.rstrip("\n") + "\n\n" + WARM_GRADER  # every lesson's students meet the kit's daemon
    if PICTURE.as_posix() in readme and (KIT_ROOT / PICTURE).is_file():
        (out / PICTURE).parent.mkdir(exist_ok=True)
        shutil.copy2(KIT_ROOT / PICTURE, out / PICTURE)
    (out / "README.md").write_text(readme, encoding="utf-8")
    (out / "pyproject.toml").write_text(lesson_pyproject(name, module), encoding="utf-8")
    return sorted(out.iterdir())


def _test_names(files: list[Path]) -> set[str]:
    names = set()
    for f in files:
        if f.suffix == ".py":
            for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
                    names.add(node.name)
    return names


def _lines(files: list[Path]) -> set[str]:
    return {
        line.strip()
        for f in files
        if f.suffix in SUFFIXES
        for line in f.read_text(encoding="utf-8", errors="replace").splitlines()
    }


def public_lines(lesson: Any) -> set[str]:
    """The lines of what the lesson ships (its student files): public by the lesson's own choice."""
    return _lines([Path(f) for f in lesson.release.student_files()])


def scan_lesson_release(root: Path, module: str, lesson: Any) -> list[str]:
    """What in the copy at ``root`` would reveal ``lesson``'s private files (empty when clean)."""
    release = lesson.release
    private = [Path(p).resolve() for p in release.private_files()]
    public = [Path(f).resolve() for f in release.student_files()]
    base = copy_base(module)
    findings = [
        f"{root.name}/{f.relative_to(base).as_posix()} is in the release"
        for f in private
        if f.is_relative_to(base) and (root / f.relative_to(base)).exists()
    ]
    hidden = _test_names(private) - _test_names(public)
    # lines the copy ships on purpose: the lesson's student files and stubs, and the kit's own code
    stubs = sorted(p for p in Path(lesson.exercises).rglob("*") if p.is_file()) if lesson.exercises else []
    kit = sorted(p for p in (root / "grader").rglob("*") if p.is_file())
    shared = _lines(public) | _lines(stubs) | _lines(kit)
    lines = {
        line
        for line in _lines(private)
        if len(line) >= MIN_LINE and line not in shared and not line.startswith(("import ", "from "))
    }
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(hidden))) + r")\b") if hidden else None
    for rel, text in release_texts(root).items():
        if pattern:
            findings += [f"{rel}: names the hidden test {m}" for m in sorted(set(pattern.findall(text)))]
        findings += [
            f"{rel}: holds a private line: {line[:80]}"
            for line in sorted({ln.strip() for ln in text.splitlines()} & lines)
        ]
    return findings


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="grade release", description=(
        "Write the student copy of the kit: exercises, notebook, public tests, the grade tool; no hidden "
        "tests, no solutions. / 학생용 키트를 만듭니다(숨은 테스트와 정답 제외)."))
    p.add_argument("out", type=Path, help="folder to write (must not exist, or be empty; see --force)")
    p.add_argument("--force", action="store_true", help="replace the folder if it exists")
    add_lesson_argument(p)
    return p


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


__all__ = ["build_parser", "lesson_pyproject", "main", "public_lines", "scan_lesson_release",
           "write_lesson_release"]
