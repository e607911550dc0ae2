"""The lesson's build: pyproject.toml says everything but one step, which setuptools cannot declare there.

The course keeps this lesson's student stubs and reference at the repository's top level (``exercises/``,
``solutions/``); a built wheel carries copies of them inside the package, so an installed lesson has them
where it runs (paths.py reads the packaged copy when there is one). An editable install
reads the checkout's folders.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
COURSE = HERE.parent.parent  # the repository holding exercises/ and solutions/
DATA = ("exercises", "solutions")


class BuildWithCourseFolders(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in DATA:
            source = COURSE / name
            if not source.is_dir():
                raise SystemExit(f"{source} is missing: build this lesson from the course's checkout")
            shutil.copytree(source, Path(self.build_lib) / "lesson_embedding_pe" / name, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithCourseFolders})
