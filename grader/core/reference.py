"""A lesson's reference solution, loaded by path for its hidden suite's expectations.

Its own module, without torch: a lesson declares its reference when its package is imported
(``lesson_package``), and the kit imports a lesson to answer questions that need no grade at all (a wrong
path, ``grade lessons``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


class Reference:
    """A lesson's reference solution, loaded in the grader process for its hidden suite's expectations.

    Loaded by path under a private module name (``_gk_reference_<module>``), so it never collides with the
    student's module of the same name. The lesson's ``GradeHooks.use_solutions`` hands over the folder in
    use once per grade (``use``): the package's own ``solutions/`` by default, a sealed archive's copy when
    grading from one. In the lesson: ``REFERENCE = Reference(SOLUTIONS, "attention")``, then
    ``REFERENCE.load().causal_mask(T)`` in a hidden test."""

    def __init__(self, folder: Path, module: str) -> None:
        self.folder = Path(folder)
        self.module = module
        self._loaded: ModuleType | None = None

    def use(self, folder: Path) -> None:
        """Use the reference in ``folder`` from now on (loaded again at the next ``load``)."""
        if Path(folder) != self.folder:
            self.folder, self._loaded = Path(folder), None

    def load(self) -> ModuleType:
        """The reference module (loaded once per folder); FileNotFoundError naming the file it lacks."""
        if self._loaded is None:
            path = self.folder / f"{self.module}.py"
            if not path.is_file():
                raise FileNotFoundError(f"reference solution not found: {path}")
            spec = importlib.util.spec_from_file_location(f"_gk_reference_{self.module}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            self._loaded = module
        return self._loaded
