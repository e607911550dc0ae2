"""The engine's pieces on their own: the wire format, the worker client, the reader, the rubric."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import nbformat
import pytest
import torch

from grader.core.errors import NotAttempted, StudentRaised, WorkerCrashed, WorkerTimeout
from grader.core.testkit import mentions
from grader.engine.runner import GradeOptions, UsageProblem, suite_paths
from grader.engine.submission import SubmissionError, read_submission
from grader.runtime import protocol
from grader.sandbox.client import WorkerClient
from lesson_embedding_pe.paths import SUITES as EMBEDDING_SUITES

ROOT = Path(__file__).resolve().parent.parent


def roundtrip(value):
    blobs: list[bytes] = []
    tree = protocol.encode(value, blobs)
    stream = io.BytesIO()
    protocol.write_message(stream, {"value": tree}, blobs)
    stream.seek(0)
    header, got = protocol.read_message(stream)
    return protocol.decode(header["value"], got)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int64, torch.bool])
def test_tensors_cross_as_plain_tensors(dtype):
    t = (torch.arange(12).reshape(3, 4) % 3).to(dtype)
    back = roundtrip({"t": t, "rows": (t[0], [t[1]])})
    assert type(back["t"]) is torch.Tensor and back["t"].dtype == dtype and torch.equal(back["t"], t)
    assert torch.equal(back["rows"][1][0], t[1])


def test_subclass_and_parameter_arrive_as_plain_tensors():
    class Liar(torch.Tensor):
        def __eq__(self, other):  # noqa: D105 - claims equality with anything
            return True

    back = roundtrip([torch.nn.Parameter(torch.ones(2)), torch.zeros(3).as_subclass(Liar)])
    assert [type(b) for b in back] == [torch.Tensor, torch.Tensor]
    assert torch.equal(back[1], torch.zeros(3))


def test_scalars_and_specials_survive():
    assert (roundtrip([1.5, float("nan") != float("nan"), 2**70, None, "한국어"])
            == [1.5, True, 2**70, None, "한국어"])
    assert str(roundtrip(float("inf"))) == "inf"


@pytest.mark.parametrize("bad", [
    {"__tensor__": {"dtype": "float32", "shape": [4], "blob": 0}},       # 4 floats need 16 bytes, 3 sent
    {"__tensor__": {"dtype": "object", "shape": [1], "blob": 0}},        # not a tensor dtype
    {"__tensor__": {"dtype": "float32", "shape": [-1], "blob": 0}},      # negative size
    {"__weird__": 1},
])
def test_malformed_values_are_refused(bad):
    with pytest.raises(protocol.ProtocolError):
        protocol.decode(bad, [b"\0" * 12])


def test_oversized_header_is_refused():
    stream = io.BytesIO((protocol.MAX_HEADER + 1).to_bytes(4, "big"))
    with pytest.raises(protocol.ProtocolError):
        protocol.read_message(stream)


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    sub = tmp_path_factory.mktemp("sub")
    (sub / "embedding.py").write_text(
        "import os, torch\n"
        "def sinusoidal_pe(max_len, d_model):\n"
        "    if d_model % 2:\n"
        "        raise ValueError(f'd_model={d_model} must be even')\n"
        "    return torch.ones(max_len, d_model)\n"
        "def count_params(model):\n"
        "    raise NotImplementedError('weight_tying')\n"
        "def spin():\n"
        "    while True:\n"
        "        pass\n"
        "def die():\n"
        "    os._exit(3)\n"
    )
    with WorkerClient(sub) as c:
        c.ensure_module("embedding")
        yield c


def call(client, target, *args, timeout=None):
    return client.request({"op": "call", "target": target}, args, {}, timeout)


def test_values_exceptions_and_not_attempted_come_back_as_data(client):
    assert torch.equal(call(client, "embedding.sinusoidal_pe", 2, 4), torch.ones(2, 4))
    with pytest.raises(StudentRaised) as raised:
        call(client, "embedding.sinusoidal_pe", 2, 5)
    assert raised.value.type_name == "ValueError" and "d_model=5" in raised.value.message
    assert raised.value.where["file"] == "embedding.py" and raised.value.where["line"] == 4
    with pytest.raises(NotAttempted):
        call(client, "embedding.count_params", None)


def test_hang_and_exit_fail_one_call_and_the_worker_restarts(client):
    restarts = client.restarts
    with pytest.raises(WorkerTimeout):
        call(client, "embedding.spin", timeout=1)
    with pytest.raises(WorkerCrashed) as crashed:
        call(client, "embedding.die")
    assert "3" in str(crashed.value)
    client.ensure_module("embedding")  # a fresh worker re-imports the module
    assert torch.equal(call(client, "embedding.sinusoidal_pe", 1, 2), torch.ones(1, 2))
    assert client.restarts == restarts + 2


def test_notebook_magics_are_dropped_and_listed(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%matplotlib inline\nimport torch"),
        nbformat.v4.new_code_cell("%%bash\nrm -rf /"),
        nbformat.v4.new_code_cell("!pip install x\ndef my_pow(x, n):\n    return x ** n"),
        nbformat.v4.new_code_cell("%%writefile helper_mod.py\nVALUE = 1"),
    ]
    path = tmp_path / "work.ipynb"
    nbformat.write(nb, path)
    sub = read_submission(path, tmp_path / "staging")
    code = sub.sources["notebook"]
    assert "rm -rf" not in code and "pip install" not in code and "def my_pow" in code
    assert "rm -rf" not in (sub.staging / "notebook.py").read_text()
    assert (sub.staging / "helper_mod.py").read_text() == "VALUE = 1"
    assert (sub.staging / "leetcode.py").exists()  # shim: `from leetcode import ...` finds the notebook
    assert [(n["cell"], n["reason"]) for n in sub.notebook_notes] == [
        (1, "magic"), (2, "cell_magic"), (3, "magic")]


def test_zip_traversal_and_forbidden_files_never_reach_staging(tmp_path):
    path = tmp_path / "sub.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("exercises/embedding.py", "X = 1\n")
        z.writestr("exercises/conftest.py", "raise SystemExit\n")
        z.writestr("exercises/torch.py", "\n")
        z.writestr("../escape.py", "\n")
    sub = read_submission(path, tmp_path / "staging")
    assert sorted(p.name for p in sub.staging.iterdir()) == ["embedding.py"]
    assert any("escape.py" in d for d in sub.dropped) and any("torch" in d for d in sub.dropped)


@pytest.mark.parametrize("content", [b"not a zip", b"{not json"])
def test_unreadable_submissions_are_one_line_errors(tmp_path, content):
    path = tmp_path / ("x.zip" if content.startswith(b"not") else "x.ipynb")
    path.write_bytes(content)
    with pytest.raises(SubmissionError) as err:
        read_submission(path, tmp_path / "staging")
    assert "\n" not in str(err.value)


def test_hidden_without_a_hidden_suite_is_a_usage_error(tmp_path):
    (tmp_path / "public").mkdir()
    with pytest.raises(UsageProblem, match="no hidden suite"):
        suite_paths(GradeOptions(hidden=True, suites_dir=tmp_path))


def test_every_suite_test_is_priced(tmp_path):
    """The rubric: a test without @pytest.mark.task stops the run instead of scoring silently."""
    suites = tmp_path / "suites"
    (suites / "public").mkdir(parents=True)
    (suites / "pytest.ini").write_text((EMBEDDING_SUITES / "pytest.ini").read_text())
    (suites / "public" / "test_x.py").write_text("def test_unpriced():\n    pass\n")
    from tests.conftest import grade_path

    with pytest.raises(RuntimeError, match="task"):
        grade_path(ROOT / "solutions", GradeOptions(suites_dir=suites))


@pytest.mark.parametrize("message,numbers,ok", [
    ("sequence length 20 exceeds max_len 16", (20, 16), True),
    ("시퀀스 길이 20가 max_len 16보다 깁니다", (20, 16), True),
    ("d_model must be positive, got -4", (-4,), True),
    ("index out of range in self", (9, 6), False),
    ("length 120 > 16", (20, 16), False),
])
def test_error_messages_must_name_the_numbers(message, numbers, ok):
    assert mentions(message, *numbers) is ok


def test_results_follow_the_contract(reference_results):
    r = reference_results
    assert {"schema", "submission", "score", "max_score", "suites", "isolation", "tests"} <= set(r)
    assert r["schema"] == 1 and r["suites"] == ["public", "hidden"] and r["score"] == r["max_score"] > 0
    for t in r["tests"]:
        assert set(t) >= {"id", "task", "status", "score", "max_score", "visibility", "message", "duration"}
        assert t["id"].split("/")[0] in ("public", "hidden") and "::" in t["id"]
    json.dumps(r)  # plain JSON all the way down


def test_k_selects_a_task_by_name_and_rejects_a_miss():
    from tests.conftest import grade

    results = grade(ROOT / "solutions", hidden=False, keyword="weight_tying")
    assert set(results["tasks"]) == {"weight_tying"} and results["score"] == results["max_score"] > 0
    with pytest.raises(UsageProblem, match="matches no test") as miss:
        grade(ROOT / "solutions", hidden=False, keyword="no_such_test_anywhere")
    assert "테스트" not in str(miss.value)  # a notice in the reader's language only
    with pytest.raises(UsageProblem, match="에 맞는 테스트가 없습니다") as miss:
        grade(ROOT / "solutions", hidden=False, keyword="no_such_test_anywhere", lang="ko")
    assert "matches no test" not in str(miss.value)
