"""A notebook's JSON read as nbformat's version-4 node, quietly: nbformat's schema notes (a cell without an
id, as older Jupyter and Colab write them) are warnings no student should see in their grade."""

from __future__ import annotations

import warnings
from typing import Any


def read_notebook(text: str) -> Any:
    """``text`` (an .ipynb's JSON) as an ``nbformat.NotebookNode``; bad input raises what nbformat raises."""
    import nbformat  # imported here: only a notebook's grade needs it

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return nbformat.reads(text, as_version=4)
