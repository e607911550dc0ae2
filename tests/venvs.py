
"""Interpreters for the tests that need one of their own (a wheel installed as a student has it, a
Gradescope image, a new lesson), built from what the suite's own interpreter holds.

Not ``venv --system-site-packages``: that reaches the *base* interpreter, which holds nothing in a
newcomer's venv (the README's commands in a fresh ``python -m venv``) and anything at all elsewhere. A
new venv instead gets one path entry, a folder of links to the suite's own site-packages less the
kit's and the lessons' installs (their editable finders are not processed from a plain path entry, so
their metadata would name lessons that cannot be imported): torch and the dependencies come from the
suite's interpreter, the kit and the lessons only from what the test installs.
"""

from __future__ import annotations

import functools
import os
import re
import site
import subprocess
import sys
import tempfile
from pathlib import Path

import pace

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

# The kit's and the lessons' own entries in a site-packages: distributions, editable finders, packages.
OURS = re.compile(r"^(pe_grader|grade_lesson_|__editable__|grader$|lesson_)", re.IGNORECASE)


@functools.cache
def dependency_folder() -> Path:
    """A world-readable folder of links to every entry of this interpreter's site-packages but the kit's
    and the lessons' (made once per test process)."""
    folder = Path(tempfile.mkdtemp(prefix="gk-deps-"))
    folder.chmod(0o755)
    sources = [*site.getsitepackages(), *([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])]
    sources += chained(sources)
    for source in sources:
        if not os.path.isdir(source):
            continue
        for entry in sorted(os.listdir(source)):
            if OURS.match(entry) or entry.endswith(".pth") or entry == "__pycache__":
                continue
            link = folder / entry
            if not link.exists() and not link.is_symlink():  # the first site-packages wins, as on sys.path
                link.symlink_to(Path(source) / entry)
    return folder


def chained(sources: list[str]) -> list[str]:
    """The folders a site-packages' .pth files add as plain paths (a venv chained to another's packages):
    they are on this interpreter's path as much as its own site-packages are."""
    found = []
    for source in sources:
        for pth in sorted(Path(source).glob("*.pth")) if os.path.isdir(source) else []:
            for line in pth.read_text(encoding="utf-8", errors="replace").splitlines():
                line = line.strip()
                plain = line and not line.startswith(("#", "import "))
                if plain and os.path.isdir(line) and line not in sources:
                    found.append(line)
    return found


def made_dependency_folders() -> list[str]:
    """The dependency folder where this process has made one (a simulated container brings it along)."""
    return [str(dependency_folder())] if dependency_folder.cache_info().currsize else []


def make_venv(venv: Path, *, pip: bool = True) -> Path:
    """A fresh venv that imports the suite's dependencies (torch among them) but none of the kit or its
    lessons; its site-packages folder is returned."""
    command = [sys.executable, "-m", "venv", str(venv)]
    if not pip:
        command.insert(3, "--without-pip")
    subprocess.run(command, check=True, capture_output=True, timeout=pace.seconds(300))
    inner = next((venv / "lib").glob("python3*/site-packages"))
    (inner / "zz_suite_dependencies.pth").write_text(f"{dependency_folder()}\n", encoding="utf-8")
    return inner


def register_source_lesson(site_packages: Path, lesson: Path) -> None:
    """What ``pip install -e LESSON`` leaves for the kit to find: the lesson's folder on the path and its
    distribution's metadata with its ``grader.lessons`` entry point (pip itself would need a build
    backend from an index)."""
    project = tomllib.loads((lesson / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    name, version = project["name"], project["version"]
    info = site_packages / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
                                   encoding="utf-8")
    points = project.get("entry-points", {}).get("grader.lessons", {})
    (info / "entry_points.txt").write_text(
        "[grader.lessons]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()), encoding="utf-8")
    add_source(site_packages, lesson)


def add_source(site_packages: Path, folder: Path) -> None:
    """``folder``'s packages importable in the venv as a checkout's are (the kit from its source tree)."""
    with open(site_packages / "gk_sources.pth", "a", encoding="utf-8") as pth:
        pth.write(f"{folder}\n")
