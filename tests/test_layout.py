
"""The tree keeps the shape the README's architecture section describes."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pace

ROOT = Path(__file__).resolve().parent.parent
GRADER = ROOT / "grader"
PACKAGES = ("engine", "sandbox", "runtime", "notebook", "report", "instructor", "core", "jupyter")


def test_few_modules_at_the_top_and_every_folder_says_its_job() -> None:
    top = sorted(p.name for p in GRADER.glob("*.py"))
    assert len(top) <= 12, top
    for name in PACKAGES:
        init = GRADER / name / "__init__.py"
        assert init.is_file(), name
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and len(doc.split()) >= 8, f"grader/{name}/__init__.py has no docstring naming its job"


def test_every_lesson_is_a_package_under_lessons() -> None:
    """The kit holds no lesson: each, the default too, is a distribution of its own under lessons/
    that registers itself in the ``grader.lessons`` entry-point group."""
    assert not (GRADER / "lesson").exists() and not (GRADER / "suites").exists()
    assert not (GRADER / "kitdata" / "exercises").exists()
    folders = sorted(p.parent for p in (ROOT / "lessons").glob("*/pyproject.toml"))
    assert [p.name for p in folders] >= ["attention", "embedding-pe"], folders
    for folder in folders:
        text = (folder / "pyproject.toml").read_text(encoding="utf-8")
        assert '[project.entry-points."grader.lessons"]' in text, folder


def test_the_runtime_imports_nothing_of_the_grader() -> None:
    """runtime/ is copied flat into the worker: a `grader.` import there would fail in the sandbox."""
    for f in (GRADER / "runtime").glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom | ast.Import):
                if isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                else:
                    names = [a.name for a in node.names]
                assert not any(n == "grader" or n.startswith("grader.") for n in names), (f.name, names)


def test_nothing_but_the_cli_imports_instructor_code() -> None:
    """The student release drops instructor/: only lazy imports in cli.py may name it."""
    for f in GRADER.rglob("*.py"):
        if "instructor" in f.relative_to(GRADER).parts or f.name == "cli.py":
            continue
        text = f.read_text(encoding="utf-8")
        assert "grader.instructor" not in text, f


def test_every_cited_document_is_in_the_repository() -> None:
    """Documents are cited as docs/NAME.md or by an upper-case name (CONTRACT.md): each must exist here."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    files = listed.stdout.split()
    names = {Path(f).name for f in files}
    cited = re.compile(r"(?<![\w/.-])(docs/[\w-]+\.md|[A-Z][A-Z_]+\.md)\b")
    missing = []
    for rel in files:
        if rel == "tests/test_layout.py" or not rel.endswith(
                (".py", ".md", ".j2", ".ini", ".toml", ".yml", ".ipynb")):
            continue
        for m in cited.finditer((ROOT / rel).read_text(encoding="utf-8", errors="replace")):
            doc = m.group(1)
            if not ((ROOT / doc).is_file() if "/" in doc else doc in names):
                missing.append(f"{rel}: {doc}")
    assert not missing, missing


def _package_imports() -> dict[tuple[str, str], list[str]]:
    """(importing package, imported package) -> where, for every import in grader/ (inside functions too)."""
    edges: dict[tuple[str, str], list[str]] = {}
    for f in GRADER.rglob("*.py"):
        rel = f.relative_to(GRADER)
        if rel.parts[0] == "suites" or rel == Path("__init__.py"):
            continue
        source = rel.parts[0].removesuffix(".py")
        module = ["grader", *rel.with_suffix("").parts]
        package = module if f.name == "__init__.py" else module[:-1]
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                target = ".".join([*base, node.module] if node.module else base)
                # `from grader import cli` imports the package `cli`
                targets = [f"grader.{a.name}" for a in node.names] if target == "grader" else [target]
            else:
                continue
            for target in targets:
                parts = target.split(".")
                if parts[0] == "grader" and len(parts) > 1 and parts[1] != source:
                    edges.setdefault((source, parts[1]), []).append(f"{rel}:{node.lineno}")
    return edges


def test_no_import_cycle_among_the_packages() -> None:
    """Counting imports inside functions: a cycle hidden in a function breaks a rarely run path at run
    time. import-linter's layers contract says the same; this reads the tree itself."""
    edges = _package_imports()
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(n == goal or (n not in seen and reaches(n, goal, seen | {n}))
                   for n in graph.get(start, ()))

    cycles = [(a, b, edges[(a, b)][:3]) for a, b in edges if reaches(b, a, {b})]
    assert not cycles, cycles


def test_the_import_contracts_hold() -> None:
    """The layers, the runtime's independence, the student copy's and the core's from any lesson, the
    lessons' use of the author API only, and no cycle among one package's modules, as pyproject.toml
    declares them."""
    # this interpreter's import-linter: the lesson packages the contracts name are installed where it is
    command = [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()",
               "--no-cache"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=pace.seconds(300))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "Contracts: 6 kept, 0 broken." in done.stdout


def test_the_author_api_contract_covers_every_lesson_and_the_whole_kit_but_the_api() -> None:
    """The ``author-api`` contract forbids each lesson package every module of the kit but ``grader.author``:
    a lesson added under lessons/ or a module added to grader/ is covered the day it lands. Its packages'
    direct ``import grader`` / ``from grader import`` (the top package, which no contract can forbid without
    forbidding the API beneath it) are read here."""
    import tomllib

    linter = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in linter["contracts"] if c["id"] == "author-api"]
    lessons = sorted(p.parent.name for p in (ROOT / "lessons").glob("*/lesson_*/__init__.py"))
    assert sorted(contract["source_modules"]) == lessons
    assert sorted(set(linter["root_packages"]) - {"grader"}) == lessons
    kit = {f"grader.{p.stem}" for p in GRADER.iterdir()
           if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()}
    assert sorted(contract["forbidden_modules"]) == sorted(kit - {"grader.author"})
    for package in (ROOT / "lessons").glob("*/lesson_*"):
        for f in package.rglob("*.py"):
            for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
                top = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
                assert "grader" not in top, f"{f.relative_to(ROOT)}:{node.lineno} imports the kit's top"


def _ci_steps() -> list[str]:
    """The commands .ci/run runs after the README's lines, continuation lines joined, the extra's install
    left out (tox installs it from ``extras``)."""
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace("\\\n", " ")
    after = text.split('bash -c "${quick_start[1]}"', 1)[1]
    steps = [" ".join(line.split()) for line in after.splitlines()]
    return [s for s in steps if s and not s.startswith("#") and not s.startswith("python -m pip install")]


def test_tox_runs_what_ci_runs() -> None:
    """tox.ini is .ci/run's steps for a prepared machine: the README's test line and each later step of
    .ci/run is one env's command, its variables (``NAME=value command``) that env's setenv."""
    import configparser

    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini", encoding="utf-8")
    commands = {" ".join(line.split()) for section in tox.sections() if tox.has_option(section, "commands")
                for line in tox.get(section, "commands").splitlines() if line.strip()}
    setenv = {" ".join(line.split()).replace(" = ", "=") for section in tox.sections()
              if tox.has_option(section, "setenv") for line in tox.get(section, "setenv").splitlines()}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    test_line = re.search(r"&& (python -m pytest[^\n`]*)", readme)
    assert test_line and f"{test_line.group(1)} {{posargs}}" in commands, test_line
    steps = _ci_steps()
    assert len(steps) >= 3, steps  # the docs build, lint-imports, the jobs of their own
    for step in steps:
        variables = re.findall(r"^((?:[A-Z_0-9]+=\S+ )*)", step)[0].split()
        command = step[sum(len(v) + 1 for v in variables):]
        assert command in commands, f"tox.ini lacks .ci/run's step {command!r}"
        assert set(variables) <= setenv, f"tox.ini lacks the variables of {command!r}: {variables}"
