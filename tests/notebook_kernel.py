
"""check() in a real Jupyter kernel beside `grade` of the saved notebook: two views of one submission."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pace

# How the first cell tells the kernel its notebook, as each front end does: Jupyter Server's environment
# (ipykernel reads it), VS Code's user-namespace name; None: nothing (nbclient, or an old server's kernel).
NAMED_BY = {"jupyter": "os.environ['JPY_SESSION_NAME'] = {path!r}", "vscode": "__vsc_ipynb_file__ = {path!r}",
            None: "pass"}


def check_in_kernel_and_grade_saved(folder: Path, cells: list[Any], call: str, grade_args: list[str],
                                    named_by: str | None = "jupyter") -> tuple[dict, dict]:
    """Save ``cells`` as ``folder/lesson.ipynb`` (after a cell naming it as the kernel's notebook the way
    ``named_by`` does, before a cell printing ``call``'s results, a ``check(...)`` expression), run it in a
    python3 kernel, then grade the saved file with `grade lesson.ipynb --out folder/out -q *grade_args`.
    (check()'s results in the kernel, the grade's results)."""
    import nbclient
    import nbformat

    saved = folder / "lesson.ipynb"
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import json, os\n" + NAMED_BY[named_by].format(path=str(saved))),
        *cells,
        nbformat.v4.new_code_cell(f"from grader import check\nr = {call}\nprint(json.dumps(r.results))"),
    ])
    nbformat.write(nb, str(saved))
    nbclient.NotebookClient(nb, timeout=round(pace.seconds(600)), kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}}).execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    in_kernel = json.loads(text.strip().splitlines()[-1])
    subprocess.run([sys.executable, "-m", "grader.cli", str(saved), "--out", str(folder / "out"), "-q",
                    *grade_args], cwd=folder, check=False, capture_output=True)
    return in_kernel, json.loads((folder / "out" / "results.json").read_text(encoding="utf-8"))
