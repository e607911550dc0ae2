"""Which notebook a kernel runs (grader/jupyter/where.py): each front end's way of saying it."""

from __future__ import annotations

import json
import sys
import threading
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import nbformat
import pytest

from grader.jupyter.where import colab_notebook, kernel_notebook, server_notebook


def _save(path, text: str = "## Problem 1") -> dict:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"),
                                         nbformat.v4.new_markdown_cell(text)])
    nbformat.write(nb, str(path))
    return json.loads(path.read_text())


@pytest.fixture(autouse=True)
def _no_jupyter_env(monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)


def test_jupyter_and_vscode_name_the_file_in_the_kernel(tmp_path):
    _save(tmp_path / "lesson.ipynb")
    for ns, how in (({"__session__": str(tmp_path / "lesson.ipynb")}, "jupyter"),
                    ({"__vsc_ipynb_file__": str(tmp_path / "lesson.ipynb")}, "vscode")):
        found = kernel_notebook(ns)
        assert found is not None and found.how == how and found.where == str(tmp_path / "lesson.ipynb")
        assert [c["cell_type"] for c in found.cells] == ["code", "markdown"]
    # a name that is not a saved notebook (a console, an untitled buffer) names nothing
    assert kernel_notebook({"__vsc_ipynb_file__": str(tmp_path / "Untitled-1.ipynb")}) is None
    assert kernel_notebook({}) is None


def test_colab_answers_with_its_open_notebook(tmp_path, monkeypatch):
    nb = _save(tmp_path / "x.ipynb", "## Problem 1 (unsaved edit)")
    asked = []

    def blocking_request(kind, request="", timeout_sec=None):
        asked.append((kind, timeout_sec))
        return {"ipynb": nb}

    colab = types.ModuleType("google.colab")
    colab._message = types.SimpleNamespace(blocking_request=blocking_request)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    found = kernel_notebook({})
    assert found is not None and found.how == "colab" and found.where == "Colab"
    assert found.cells[1]["source"] == "## Problem 1 (unsaved edit)" and asked[0][0] == "get_ipynb"
    assert asked[0][1] is not None  # time-boxed: a front end that never answers does not hang check()
    assert colab_notebook(None) is None and colab_notebook({"ipynb": "nope"}) is None


def test_an_older_jupyter_server_names_it_by_the_kernel_id(tmp_path):
    """Notebook 6 / Server 1 tell the kernel nothing; their /api/sessions maps kernel ids to paths."""
    (tmp_path / "week1").mkdir()
    _save(tmp_path / "week1" / "lesson.ipynb")
    sessions = [{"path": "other.ipynb", "kernel": {"id": "k-other"}},
                {"notebook": {"path": "week1/lesson.ipynb"}, "kernel": {"id": "k-mine"}}]

    class Sessions(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            ok = self.path == "/api/sessions" and self.headers.get("Authorization") == "token secret"
            body = json.dumps(sessions if ok else {"message": "Forbidden"}).encode()
            self.send_response(200 if ok else 403)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Sessions)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        gone = {"url": "http://127.0.0.1:9/", "token": "", "root_dir": str(tmp_path)}  # a stale runtime file
        record = {"url": url, "token": "secret", "notebook_dir": str(tmp_path)}
        found = server_notebook("k-mine", [gone, record])
        assert found is not None and found.how == "server"
        assert found.where == str(tmp_path / "week1" / "lesson.ipynb")
        assert server_notebook("k-unknown", [record]) is None
        assert server_notebook("k-mine", [{**record, "token": "wrong"}]) is None
    finally:
        server.shutdown()
        server.server_close()


def test_a_session_name_relative_to_the_servers_root_is_found_in_the_kernels_folder(tmp_path, monkeypatch):
    (tmp_path / "week1").mkdir()
    _save(tmp_path / "week1" / "lesson.ipynb")
    monkeypatch.chdir(tmp_path / "week1")  # a kernel runs in its notebook's folder
    found = kernel_notebook({"__session__": "week1/lesson.ipynb"})  # relative to the server's root
    assert found is not None and found.where == str(tmp_path / "week1" / "lesson.ipynb")
