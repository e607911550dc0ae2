"""check() in a real Jupyter kernel beside `grade` of the saved notebook: two views of one submission."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pace

# How the first cell tells the kernel its notebook, as each front end does: Jupyter Server's environment
# (ipykernel reads it), VS Code's user-namespace name; None: nothing (nbclient, or an old server's kernel).
NAMED_BY = {"jupyter": "os.environ['JPY_SESSION_NAME'] = {path!r}", "vscode": "__vsc_ipynb_file__ = {path!r}",
            None: "pass"}

# Runs a notebook (nbformat) in a python3 kernel working in a folder; its cells get their outputs.
RunNotebook = Callable[..., None]


def run_in_fresh_kernel(nb: Any, folder: Path, allow_errors: bool = False) -> None:
    """``nb`` run top to bottom in a kernel of its own, started in ``folder`` and shut down after."""
    import nbclient

    nbclient.NotebookClient(nb, timeout=round(pace.seconds(600)), kernel_name="python3",
                            allow_errors=allow_errors,
                            resources={"metadata": {"path": str(folder)}}).execute()


# What a kernel holds from the notebook it ran that a fresh kernel lacks: its input history and user
# namespace (IPython's reset with a new history session: cell 1 of the next notebook is history entry 1),
# check()'s memory of its last calls (the "since the last run" note), a notebook named in the environment,
# modules imported from a test's folder and folders put on sys.path, and the working folder. Run without
# being stored in the history, so the next notebook's cells are numbered from 1 as in a fresh kernel.
_RESET = """\
import os as _os, sys as _sys
_check = _sys.modules.get('grader.jupyter.check')
if _check is not None:
    _check._LAST.clear()
_os.environ.pop('JPY_SESSION_NAME', None)
_sys.path[:] = {path!r}
_sys.path_importer_cache.clear()  # a relative entry ('exercises') is cached as the folder it was then
for _name, _module in list(_sys.modules.items()):
    if str(getattr(_module, '__file__', None) or '').startswith({temp!r}):
        del _sys.modules[_name]
_os.chdir({folder!r})
get_ipython().reset(new_session=True)
"""


class SharedKernel:
    """One python3 kernel that runs one notebook after another, each as a fresh kernel would (_RESET
    before it): a kernel's start and the kit's imports in it cost more than most notebooks of a test."""

    def __init__(self, temp: Path) -> None:
        import nbclient
        import nbformat

        self.temp = str(temp)  # modules imported from under here are forgotten between notebooks
        self.manager = nbclient.NotebookClient(nbformat.v4.new_notebook(), kernel_name="python3") \
            .create_kernel_manager()
        self.path: list[str] = []
        self._start()

    def _start(self) -> None:
        import nbformat
        from nbclient.util import run_sync

        run_sync(self.manager.start_kernel)(cwd=self.temp)
        probe = nbformat.v4.new_notebook(cells=[
            nbformat.v4.new_code_cell("import json, sys\nprint(json.dumps(sys.path))")])
        self._execute(probe, Path(self.temp), store_history=False)
        self.path = json.loads(probe.cells[0].outputs[0]["text"])  # the kernel's own sys.path, as started

    def _execute(self, nb: Any, folder: Path, allow_errors: bool = False, store_history: bool = True) -> None:
        import nbclient
        from nbclient.exceptions import CellTimeoutError, DeadKernelError

        client = nbclient.NotebookClient(nb, km=self.manager, timeout=round(pace.seconds(600)),
                                         kernel_name="python3", allow_errors=allow_errors,
                                         resources={"metadata": {"path": str(folder)}})
        try:
            if store_history:
                client.execute()
            else:
                with client.setup_kernel():
                    for index, cell in enumerate(nb.cells):
                        client.execute_cell(cell, index, store_history=False)
        except (CellTimeoutError, DeadKernelError):
            # a kernel still busy with a cell, or gone, would fail every later test: the next starts afresh
            self.close()
            raise
        finally:
            if client.kc is not None:
                client.kc.stop_channels()

    def run(self, nb: Any, folder: Path, allow_errors: bool = False) -> None:
        """``nb`` run top to bottom in ``folder``, as in a kernel started there for it."""
        import nbformat
        from nbclient.util import run_sync

        if not run_sync(self.manager.is_alive)():
            self._start()
        reset = _RESET.format(path=self.path, temp=self.temp, folder=str(folder))
        self._execute(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(reset)]), folder,
                      store_history=False)
        self._execute(nb, folder, allow_errors)

    def close(self) -> None:
        from nbclient.util import run_sync

        if run_sync(self.manager.is_alive)():
            run_sync(self.manager.shutdown_kernel)(now=True)


def check_in_kernel_and_grade_saved(folder: Path, cells: list[Any], call: str, grade_args: list[str],
                                    named_by: str | None = "jupyter",
                                    run: RunNotebook = run_in_fresh_kernel) -> tuple[dict, dict]:
    """Save ``cells`` as ``folder/lesson.ipynb`` (after a cell naming it as the kernel's notebook the way
    ``named_by`` does, before a cell printing ``call``'s results, a ``check(...)`` expression), run it in a
    python3 kernel (``run``: a fresh one, or a SharedKernel's run), then grade the saved file with
    `grade lesson.ipynb --out folder/out -q *grade_args`. (check()'s results in the kernel, the grade's
    results)."""
    import nbformat

    saved = folder / "lesson.ipynb"
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import json, os\n" + NAMED_BY[named_by].format(path=str(saved))),
        *cells,
        nbformat.v4.new_code_cell(f"from grader import check\nr = {call}\nprint(json.dumps(r.results))"),
    ])
    nbformat.write(nb, str(saved))
    run(nb, folder)
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    in_kernel = json.loads(text.strip().splitlines()[-1])
    subprocess.run([sys.executable, "-m", "grader.cli", str(saved), "--out", str(folder / "out"), "-q",
                    *grade_args], cwd=folder, check=False, capture_output=True)
    return in_kernel, json.loads((folder / "out" / "results.json").read_text(encoding="utf-8"))
