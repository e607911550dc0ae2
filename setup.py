"""The kit's build: pyproject.toml says everything but one step, which setuptools cannot declare there.

The top-level ``templates/`` (the reports) stays where the course's layout puts it; a built wheel carries a
copy of it inside the package,
as ``grader/kitdata/``, so an installed kit (wheel, pipx, Docker image) has them where it runs.
grader/paths.py reads the packaged copy when there is one, else the checkout's folder. (The lesson's
``exercises/`` and ``solutions/`` ship in its own wheel: lessons/embedding-pe/setup.py.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
KIT_DATA = ("templates",)  # top-level folders copied to grader/kitdata/ in a build
# and the files `grade release` builds the student's copy from (its pyproject, this build step)
KIT_FILES = ("pyproject.toml", "setup.py")


class BuildWithKitData(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's folders
        target = Path(self.build_lib) / "grader" / "kitdata"
        for name in KIT_DATA:
            shutil.copytree(
                ROOT / name,
                target / name,
                dirs_exist_ok=True,
                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
            )
        for name in KIT_FILES:
            shutil.copy2(ROOT / name, target / name)


setup(cmdclass={"build_py": BuildWithKitData})
