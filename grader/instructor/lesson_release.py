"""`grade release OUT --lesson NAME` for a lesson in its own package (``Lesson.release``).

The copy holds the kit as the default release has it (no hidden suite, no instructor tools), the lesson's
package cut to ``release.student_files()``, its stubs as ``exercises/``, its notebook and README, and a
pyproject that installs both and registers the lesson (entry point and ``[tool.grade]``), so `grade` and
`check()` there grade that lesson unasked. Before it is kept, the copy is scanned against
``release.private_files()``: no private file, no hidden test's name, no distinctive line of them.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import shutil
from pathlib import Path
from typing import Any

from grader.instructor.release import MIN_LINE, SKIP, release_texts, student_pyproject, write_kit

SUFFIXES = (".py", ".md", ".ini", ".json", ".txt")  # what of the private files is text worth scanning


def package_root(module: str) -> Path:
    """The folder of the lesson's package (found, not imported)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"{module} is not a package: a release copies the lesson's package")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def lesson_pyproject(name: str, module: str) -> str:
    """The kit's student pyproject, also installing the lesson's package and registering it as ``name``."""
    package = module.split(".")[0]
    text = student_pyproject(name)
    text = re.sub(r'include = \["grader\*"\]', f'include = ["grader*", "{package}*"]', text, count=1)
    entry = '[project.entry-points."grader.lessons"]\n'
    if entry in text:
        text = text.replace(entry, f'{entry}{name} = "{module}"\n', 1)
    else:
        text += f'\n{entry}{name} = "{module}"\n'
    data = "[tool.setuptools.package-data]\n"
    files = f'{package} = ["*.md", "exercises/*", "suites/*.ini", "suites/*/*.py"]\n'
    return text.replace(data, data + files, 1) if data in text else text + f"\n{data}{files}"


def write_lesson_release(out: Path, name: str, module: str, lesson: Any) -> list[Path]:
    """Write the student copy of ``lesson`` (registered as ``name``, declared by ``module``) into ``out``."""
    release = lesson.release
    root = package_root(module)
    out.mkdir(parents=True, exist_ok=True)
    write_kit(out)
    target = out / root.name
    for f in release.student_files():
        dest = target / Path(f).resolve().relative_to(root)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, dest)
    if lesson.exercises is not None:
        shutil.copytree(lesson.exercises, out / "exercises", ignore=SKIP)
        release.write_notebook(lesson.exercises, out / "lesson.ipynb")
    (out / "README.md").write_text(release.README, encoding="utf-8")
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
    private = [Path(f).resolve() for f in release.private_files()]
    public = [Path(f).resolve() for f in release.student_files()]
    package = package_root(module)
    findings = [
        f"{root.name}/{f.relative_to(package.parent).as_posix()} is in the release"
        for f in private
        if (root / f.relative_to(package.parent)).exists()
    ]
    hidden = _test_names(private) - _test_names(public)
    shared = _lines(public)
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


__all__ = ["lesson_pyproject", "public_lines", "scan_lesson_release", "write_lesson_release"]
