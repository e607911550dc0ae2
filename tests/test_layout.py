"""The tree keeps the shape the README's architecture section describes."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GRADER = ROOT / "grader"
PACKAGES = ("engine", "sandbox", "runtime", "lesson", "notebook", "report", "instructor")


def test_few_modules_at_the_top_and_every_folder_says_its_job() -> None:
    top = sorted(p.name for p in GRADER.glob("*.py"))
    assert len(top) <= 12, top
    for name in PACKAGES:
        init = GRADER / name / "__init__.py"
        assert init.is_file(), name
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and len(doc.split()) >= 8, f"grader/{name}/__init__.py has no docstring naming its job"


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
