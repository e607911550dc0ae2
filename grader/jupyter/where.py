"""Which notebook this kernel runs: its cells as saved (or, in Colab, as open), and where they came from.

A kernel is not told its notebook's file in general; each front end says it its own way:

- Jupyter Server / JupyterLab (2.0 on) start the kernel with ``JPY_SESSION_NAME`` (ipykernel copies it to
  ``__session__`` in the user namespace);
- VS Code puts ``__vsc_ipynb_file__`` in the user namespace;
- Colab answers ``get_ipynb`` over its front-end channel (``google.colab._message``) with the open notebook;
- an older Jupyter server (Notebook 6, Server 1) says nothing to the kernel, but its ``/api/sessions`` maps
  each kernel id to a notebook path: the kernel's id is in its connection file's name.

None of these: the caller says it could not find the notebook (check() then never grades a log it did not
see). Every lookup is local and time-boxed; a failure of one only moves on to the next.
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.notebook.read import read_notebook

MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024
ASK_TIMEOUT = 2.0  # seconds for Colab's front end or one local Jupyter server to answer


@dataclass(frozen=True)
class FoundNotebook:
    """The notebook's cells (nbformat v4 cell dicts) and where they were read, as the student knows it."""

    cells: list[Any]
    where: str  # a path, or "Colab"
    how: str  # "jupyter", "vscode", "colab" or "server"


def kernel_notebook(user_ns: Mapping[str, Any] | None) -> FoundNotebook | None:
    """The notebook this kernel runs, from the first front end that says which; None where none does."""
    finders: tuple[Callable[[Mapping[str, Any]], FoundNotebook | None], ...] = (
        _named_by_jupyter, _named_by_vscode, _from_colab, _from_server_sessions)
    ns = user_ns or {}
    for finder in finders:
        try:
            found = finder(ns)
        except Exception:  # a front end's channel failing costs that lookup only
            found = None
        if found is not None:
            return found
    return None


def _named_by_jupyter(ns: Mapping[str, Any]) -> FoundNotebook | None:
    where = str(ns.get("__session__") or os.environ.get("JPY_SESSION_NAME") or "")
    return _read_file(where, "jupyter")


def _named_by_vscode(ns: Mapping[str, Any]) -> FoundNotebook | None:
    return _read_file(str(ns.get("__vsc_ipynb_file__") or ""), "vscode")


def _read_file(where: str, how: str) -> FoundNotebook | None:
    """The cells of the .ipynb at ``where`` (absolute, or relative to the kernel's folder)."""
    if not where:
        return None
    path = Path(where).expanduser()
    if not path.is_absolute() and not path.is_file():
        # a path relative to the server's root (some Jupyter versions), while the kernel runs in the
        # notebook's own folder: the file is there by its name
        path = Path.cwd() / path.name
    if path.suffix != ".ipynb" or not path.is_file() or path.stat().st_size > MAX_NOTEBOOK_BYTES:
        return None
    saved = read_notebook(path.read_text(encoding="utf-8-sig"))
    return FoundNotebook(list(saved.cells), str(path), how)


def _from_colab(ns: Mapping[str, Any]) -> FoundNotebook | None:
    """Colab's open notebook, asked of its front end (only in a kernel that already loaded google.colab)."""
    if "google.colab" not in sys.modules:
        return None
    from google.colab import _message

    reply = _message.blocking_request("get_ipynb", request="", timeout_sec=ASK_TIMEOUT)
    return colab_notebook(reply)


def colab_notebook(reply: Any) -> FoundNotebook | None:
    """Colab's ``get_ipynb`` reply ({"ipynb": notebook}) as cells; None for anything else."""
    nb = reply.get("ipynb") if isinstance(reply, Mapping) else None
    if not isinstance(nb, Mapping) or not isinstance(nb.get("cells"), list):
        return None
    # read as a saved file is (sources given as lists of lines joined; the version upgraded)
    return FoundNotebook(list(read_notebook(json.dumps(nb)).cells), "Colab", "colab")


def _from_server_sessions(ns: Mapping[str, Any]) -> FoundNotebook | None:
    kernel = _kernel_id()
    return server_notebook(kernel, _running_servers()) if kernel else None


def _kernel_id() -> str | None:
    """This kernel's id, from its connection file's name (``kernel-<id>.json``)."""
    if "ipykernel" not in sys.modules:
        return None
    from ipykernel import get_connection_file

    match = re.fullmatch(r"kernel-(.+)\.json", Path(get_connection_file()).name)
    return match.group(1) if match else None


def _running_servers() -> list[Mapping[str, Any]]:
    """The local Jupyter servers this user runs (their runtime files), new and classic."""
    servers: list[Mapping[str, Any]] = []
    for module in ("jupyter_server.serverapp", "notebook.notebookapp"):
        try:
            listed = __import__(module, fromlist=["list_running_servers"]).list_running_servers()
            servers += list(listed)
        except Exception:  # not installed, or an unreadable runtime folder
            continue
    return servers


def server_notebook(kernel_id: str, servers: Iterable[Mapping[str, Any]]) -> FoundNotebook | None:
    """The notebook of the session running ``kernel_id`` on one of ``servers`` (each a server's runtime
    record: ``url``, ``token``, ``root_dir`` or ``notebook_dir``)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # local: never through a proxy
    for server in servers:
        url = str(server.get("url") or "")
        if not url.startswith(("http://", "https://")):
            continue
        request = urllib.request.Request(url.rstrip("/") + "/api/sessions")
        if server.get("token"):
            request.add_header("Authorization", f"token {server['token']}")
        try:
            with opener.open(request, timeout=ASK_TIMEOUT) as reply:
                sessions = json.loads(reply.read(4 * 1024 * 1024))
        except Exception:  # a server gone, or one asking for a password: the next one
            continue
        for session in sessions if isinstance(sessions, list) else ():
            if (session.get("kernel") or {}).get("id") != kernel_id:
                continue
            relative = session.get("path") or (session.get("notebook") or {}).get("path") or ""
            root = server.get("root_dir") or server.get("notebook_dir") or ""
            found = _read_file(str(Path(str(root)).expanduser() / str(relative)), "server")
            if found is not None:
                return found
    return None
