"""The trusted side of integrity, without the worker: the source evidence and the tamper scan.

Both read syntax trees only.  A correct variant must never lose a structural
point to them and a correct source must never be flagged; a bug and a forge
must be refused.  (tests/test_attacks.py grades the forging attacks for real.)
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from grader.core import tamper
from grader.engine.submission import read_submission
from lesson_embedding_pe import structure
from tests.conftest import CORPUS, ROOT

LESSON = Path("/work/shared/lesson/lesson-ko.txt")
HEAD = "import math\nimport torch\nimport torch.nn as nn\nfrom torch.nn import functional as F\n\n"


def _staged(tmp_path: Path, source: str, name: str = "embedding.py") -> Path:
    folder = tmp_path / "sub"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(HEAD + textwrap.dedent(source))
    return folder


def lesson_code() -> str:
    """The code blocks of the lesson students read (each follows a line `python`), joined."""
    blocks, current, inside = [], [], False
    for line in LESSON.read_text(encoding="utf-8").splitlines():
        if line.strip() == "python":
            inside, current = True, []
            continue
        prose = re.search("[\uac00-\ud7a3]", line.split("#")[0]) and not line.startswith(" ")
        if inside and line.strip() and prose:
            blocks.append("\n".join(current))
            inside = False
            continue
        if inside:
            current.append(line)
    return "\n\n".join(blocks)


# -- the tamper scan ----------------------------------------------------------------------
CORRECT = sorted(p for p in CORPUS.iterdir() if p.is_dir() and list(p.glob("*.py"))) + [
    ROOT / "solutions", ROOT / "examples" / "reference", ROOT / "examples" / "buggy",
    ROOT / "examples" / "notebook.ipynb", ROOT / "exercises"]


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_honest_source_is_flagged(path: Path, tmp_path: Path) -> None:
    """Correct variants, honest bugs, examples, stubs: read as the grader reads them (a notebook staged)."""
    staging = tmp_path / "staging"
    read_submission(path, staging)
    assert tamper.scan(staging) == []


@pytest.mark.skipif(not LESSON.exists(), reason="the lesson text is not on this machine")
def test_the_lessons_own_code_is_not_flagged_and_shows_its_structure(tmp_path: Path) -> None:
    code = lesson_code()
    assert "register_buffer" in code and "self.head.weight = self.emb.weight" in code
    staged = _staged(tmp_path, code)
    assert tamper.scan(staged) == []
    for evidence in (structure.registers_buffer(staged), structure.positions_on_device(staged, "sin"),
                     structure.positions_on_device(staged, "learned"), structure.shares_one_parameter(staged),
                     structure.ties_only_when_asked(staged)):
        assert evidence.ok, evidence.en


HONEST = {
    "main guard and model.eval()": 'def f(m):\n    m.eval()\n    return m\nif '
                                   '__name__ == "__main__":\n    f(1)\n',
    "re.compile and torch.compile": 'import re\nP = re.compile("a+")\ndef '
                                    'g(m):\n    return torch.compile(m)\n',
    "settings and seeds": "torch.backends.cudnn.deterministic = True\ntorch.manual_seed(0)\n",
    "getattr with an f-string": 'def init(kind):\n    return getattr(nn.init, f"{kind}_")\n',
    "sys for paths and stderr": "import sys\nprint('x', file=sys.stderr)\nsys.path.append('.')\n",
    "a literal eval": 'X = eval("1 + 2")\n',
    "importlib on a literal": 'import importlib\nnp = importlib.import_module("math")\n',
    "string building in messages": ('def m(T, L):\n    s = "sequence "\n    s += f"{T} > {L}"\n'
                                    '    return s[::-1]\n'),
    "bytes data": 'B = b"\\x00\\x01" * 4\n',
    "gc.collect() in training code": "import gc\ngc.collect()\n",
    "pickle.dump of results": "import pickle\ndef save(r, f):\n    pickle.dump(r, f)\n",
    "json.loads": "import json\nx = json.loads('{}')\n",
    "os for processes": "import os\npid = os.getpid()\nos.kill(pid, 0)\n",
}

HOSTILE = {
    "gk_ import": "import gk_probes\n",
    "gk_ from import": "from gk_worker import Worker\n",
    "__main__": "import __main__\n",
    "gc": "import gc\nobjs = gc.get_objects()\n",
    "gc under another name": "import gc as g\nobjs = g.get_referrers(print)\n",
    "from gc import": "from gc import get_objects\n",
    "sys under another name": "import sys as s\nm = s.modules\n",
    "inspect": "import inspect\n",
    "frames": "import sys\nf = sys._getframe(0)\n",
    "f_back": "def h(tb):\n    return tb.tb_frame.f_back\n",
    "sys.modules": "import sys\nm = sys.modules\n",
    "from sys import modules": "from sys import modules\n",
    "globals of a passed function": "def e(fn):\n    return fn.__globals__\n",
    "closure": "def e(fn):\n    return fn.__closure__[0].cell_contents\n",
    "subclasses": "x = ().__class__.__base__.__subclasses__()\n",
    "code object": "def e(fn):\n    return fn.__code__\n",
    "getattr of a folded dunder": 'def e(fn):\n    return getattr(fn, "__glo" + "bals__")\n',
    "getattr of a computed name": "def e(fn):\n    return getattr(fn, ''.join(map(chr, [95, 95])))\n",
    "exec of built source": "import base64\nexec(base64.b64decode('aW1wb3J0IGdj').decode())\n",
    "exec of a literal that walks gc": 'exec("import gc; gc.get_objects()")\n',
    "eval of a variable": "def e(s):\n    return eval(s)\n",
    "compile": "def e(s):\n    return compile(s, 'x', 'exec')\n",
    "__import__ of a built name": "m = __import__(''.join(reversed('tcepsni')))\n",
    "__import__ of a literal runtime": "m = __import__('gk_probes')\n",
    "import_module of a variable": "import importlib\ndef e(n):\n    return importlib.import_module(n)\n",
    "ctypes": "import ctypes\n",
    "pickle": "import pickle\nx = pickle.loads(b'N.')\n",
    "marshal": "import marshal\n",
    "dill": "import dill\n",
    "signal": "import signal\n",
    "/proc": "open('/proc/self/mem', 'rb')\n",
    "a handle on another process": "import os\nfd = os.pidfd_open(os.getppid())\n",
    "the worker's socket by syscall name": 'ROUTE = "pidfd_getfd"\n',
    "ptrace spelled": 'CALL = "ptrace"\n',
    "a string naming the runtime": 'NAME = "gk_" + "probes"\n',
    "patching torch": "torch.allclose = lambda *a, **k: True\n",
    "patching nn.Module": "nn.Module.named_buffers = lambda self: iter(())\n",
    "setattr on torch": "setattr(torch.Tensor, 'equal', lambda a, b: True)\n",
    "__builtins__": "b = __builtins__\n",
    "changing __class__": "def e(o, C):\n    o.__class__ = C\n",
    "settrace": "import threading\nthreading.settrace(print)\n",
    "a name grown with +=": 'def e(fn):\n    n = "__glo"\n    n += "bals__"\n    return getattr(fn, n)\n',
    "join of fragments": 'N = "".join(["__clo", "sure__"])\n',
    "chr arithmetic": "N = chr(95) * 2 + 'code' + chr(95) * 2\n",
    "a reversed string": 'N = "__slabolg__"[::-1]\n',
    "an f-string of literals": "N = f\"{'gk'}_probes\"\n",
    "bytes naming the runtime": 'B = b"cbuiltins\\n__import__\\n(Vgk_probes\\ntR."\n',
    "import_module of a folded name": "import importlib\nm = importlib.import_module('gk_' + 'worker')\n",
}


@pytest.mark.parametrize("case", list(HONEST))
def test_honest_idioms_are_not_flagged(case: str, tmp_path: Path) -> None:
    assert tamper.scan(_staged(tmp_path, HONEST[case])) == []


@pytest.mark.parametrize("case", list(HOSTILE))
def test_each_route_is_flagged_with_a_bilingual_line(case: str, tmp_path: Path) -> None:
    review = tamper.review(_staged(tmp_path, HOSTILE[case]))
    assert review["flagged"], case
    reason = review["reasons"][0]
    assert reason["file"] == "embedding.py" and reason["line"] >= 5  # after the 4 lines of HEAD
    assert reason["en"].startswith(f"embedding.py:{reason['line']}: ")
    assert re.search("[\uac00-\ud7a3]", reason["ko"])
    assert "\n" not in reason["en"] and len(reason["en"]) < 200


def test_notebook_shims_are_not_scanned_as_student_code(tmp_path: Path) -> None:
    staging = tmp_path / "staging"
    read_submission(ROOT / "examples" / "notebook.ipynb", staging)
    assert (staging / "embedding.py").exists()
    assert tamper.scan(staging) == []
    (staging / "notebook.py").write_text("import gc\nx = gc.get_objects()\n")
    assert [f.file for f in tamper.scan(staging)] == ["notebook.py"]


# -- source evidence ------------------------------------------------------------------------
EMB = """
def sinusoidal_pe(max_len, d_model):
    return torch.zeros(max_len, d_model)

class TokenAndPosEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model, max_len, mode="sin"):
        super().__init__()
        self.mode, self.d_model = mode, d_model
        self.tok = nn.Embedding(vocab_size, d_model)
        {init}

    def forward(self, ids):
        T = ids.size(1)
        x = self.tok(ids) * math.sqrt(self.d_model)
        if self.mode == "sin":
            return x + {sin}
        if self.mode == "learned":
            return x + {learned}
        return x
"""
LM = """
class TinyLM(nn.Module):
    def __init__(self, vocab_size, d_model, tie=True):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        {tie}

    def forward(self, ids):
        return self.head(self.emb(ids))
"""
GOOD_INIT = ('if mode == "sin":\n            self.register_buffer("pe", sinusoidal_pe(64, d_model))\n'
             '        elif mode == "learned":\n            self.pos = nn.Embedding(64, d_model)')
GOOD_SIN, GOOD_LEARNED = "self.pe[:T]", "self.pos(torch.arange(T, device=ids.device))"


def _emb(init: str = GOOD_INIT, sin: str = GOOD_SIN, learned: str = GOOD_LEARNED, extra: str = "") -> str:
    return EMB.replace("{init}", init).replace("{sin}", sin).replace("{learned}", learned) + extra


BUFFER_VARIANTS = {
    "(1, L, d) buffer": _emb(init='self.register_buffer("pe", sinusoidal_pe(64, d_model).unsqueeze(0))',
                             sin="self.pe[:, :T]"),
    "non-persistent": _emb(init='self.register_buffer("pe", sinusoidal_pe(64, d_model), persistent=False)'),
    "keyword arguments": _emb(init='self.register_buffer(name="pe", tensor=sinusoidal_pe(64, d_model))'),
    "a helper function": _emb(init="_register(self, 'pe', sinusoidal_pe(64, d_model))",
                              extra="\ndef _register(m, name, t):\n    m.register_buffer(name, t)\n"),
    "a loop over names": _emb(init="for name, t in [('pe', sinusoidal_pe(64, d_model))]:\n"
                                   "            self.register_buffer(name, t)"),
    "nn.Module.register_buffer(self, ...)": _emb(init='nn.Module.register_buffer(self, '
                                                      '"pe", sinusoidal_pe(8, 2))'),
    "None then setattr": _emb(init='self.register_buffer("pe", None)\n        '
                                   'setattr(self, "pe", sinusoidal_pe(8, 2))'),
    "_buffers": _emb(init='self._buffers["pe"] = sinusoidal_pe(64, d_model)'),
}

DEVICE_VARIANTS = {
    "arange(device=ids.device)": GOOD_LEARNED,
    "arange().to(ids.device)": "self.pos(torch.arange(T).to(ids.device))",
    "position_ids buffer": "self.pos(self.position_ids[:, :T])",
    "the weight's rows": "self.pos.weight[:T]",
    "device of the weight": "self.pos(torch.arange(T, device=self.pos.weight.device))",
    "cumsum of ones_like": "self.pos(torch.ones_like(ids).cumsum(1) - 1)",
    "a helper method": "self._positions(ids)",
}

TIE_VARIANTS = {
    "head = emb": "if tie:\n            self.head.weight = self.emb.weight",
    "emb = head": "if tie:\n            self.emb.weight = self.head.weight",
    "setattr": "if tie:\n            setattr(self.head, 'weight', self.emb.weight)",
    "register_parameter": "if tie:\n            self.head.register_parameter('weight', self.emb.weight)",
    "a conditional expression": "self.head.weight = self.emb.weight if tie else self.head.weight",
    "a helper": "if tie:\n            tie_weights(self.head, self.emb)",
}


@pytest.mark.parametrize("case", list(BUFFER_VARIANTS))
def test_every_buffer_variant_shows_a_buffer(case: str, tmp_path: Path) -> None:
    staged = _staged(tmp_path, BUFFER_VARIANTS[case])
    assert structure.registers_buffer(staged).ok
    assert structure.positions_on_device(staged, "sin").ok
    assert tamper.scan(staged) == []


@pytest.mark.parametrize("case", list(DEVICE_VARIANTS))
def test_every_device_variant_shows_positions_on_the_device(case: str, tmp_path: Path) -> None:
    extra = ("\n    def _positions(self, ids):\n        return "
             "self.pos(torch.arange(ids.shape[1], device=ids.device))\n")
    source = _emb(learned=DEVICE_VARIANTS[case])
    if case == "a helper method":
        source = source.rstrip("\n") + "\n" + extra
    assert structure.positions_on_device(_staged(tmp_path, source), "learned").ok


@pytest.mark.parametrize("case", list(TIE_VARIANTS))
def test_every_tying_variant_shows_one_parameter(case: str, tmp_path: Path) -> None:
    helper = "\ndef tie_weights(a, b):\n    a.weight = b.weight\n"
    staged = _staged(tmp_path, _emb() + LM.replace("{tie}", TIE_VARIANTS[case]) + helper)
    assert structure.shares_one_parameter(staged).ok
    assert structure.ties_only_when_asked(staged).ok
    assert tamper.scan(staged) == []


def test_the_class_in_a_notebook_is_found(tmp_path: Path) -> None:
    staging = tmp_path / "staging"
    read_submission(ROOT / "examples" / "notebook.ipynb", staging)
    assert structure.registers_buffer(staging).ok and structure.shares_one_parameter(staging).ok


BUGS = {
    "plain attribute": (_emb(init="self.pe = "
                                  "sinusoidal_pe(64, d_model)"), "registers_buffer", "never registers"),
    "a Parameter": (_emb(init="self.pe = nn.Parameter(sinusoidal_pe(64, d_model), requires_grad=False)"),
                    "registers_buffer", "never registers"),
    "another buffer's name": (_emb(init='self.register_buffer("table", sinusoidal_pe(8, 2))'),
                              "registers_buffer", "never registers"),
    "arange on the CPU": (_emb(learned="self.pos(torch.arange(T))"), "learned", "torch.arange(T) without"),
    ".data copied": (LM.replace("{tie}", "if tie:\n            "
                                         "self.head.weight.data.copy_(self.emb.weight.data)"),
                     "shares_one_parameter", "never makes head and embedding share"),
    "a clone": (LM.replace("{tie}", "if tie:\n            self.head.weight = "
                                    "nn.Parameter(self.emb.weight.clone())"),
                "shares_one_parameter", "never makes head and embedding share"),
    "always tied": (LM.replace("{tie}", "self.head.weight = "
                                        "self.emb.weight"), "ties_only_when_asked", "if tie:"),
}


@pytest.mark.parametrize("case", list(BUGS))
def test_bugs_and_forges_find_no_evidence(case: str, tmp_path: Path) -> None:
    source, check, words = BUGS[case]
    staged = _staged(tmp_path, source)
    evidence = structure.positions_on_device(staged, "learned") if check == "learned" else getattr(
        structure, check)(staged)
    assert not evidence.ok and words in evidence.en and re.search("[\uac00-\ud7a3]", evidence.ko)


def test_no_class_statement_is_no_evidence(tmp_path: Path) -> None:
    staged = _staged(tmp_path, "TokenAndPosEmbedding = type('TokenAndPosEmbedding', (nn.Module,), {})\n")
    evidence = structure.registers_buffer(staged)
    assert not evidence.ok and "class TokenAndPosEmbedding" in evidence.en


# -- import dependencies (a hang is waited out once) ----------------------------------------
def test_student_imports_are_read_from_the_source(tmp_path: Path) -> None:
    from grader.core.source import student_imports

    (tmp_path / "embedding.py").write_text("import torch\nfrom helpers import f\n")
    (tmp_path / "helpers.py").write_text("import math\n")
    (tmp_path / "reversal.py").write_text(
        "from embedding import TokenAndPosEmbedding\ndef later():\n    import leetcode\n")
    (tmp_path / "leetcode.py").write_text("try:\n    import reversal\nexcept ImportError:\n    pass\n")
    assert student_imports(tmp_path, "reversal") == ["helpers", "embedding"]  # dependencies first
    assert student_imports(tmp_path, "leetcode") == ["helpers", "embedding", "reversal"]
    assert student_imports(tmp_path, "helpers") == []
    staging = tmp_path / "nb"
    read_submission(ROOT / "examples" / "notebook.ipynb", staging)
    assert student_imports(staging, "reversal") == ["notebook"]  # the grader's shim imports the notebook
    (tmp_path / "cycle_a.py").write_text("import cycle_b\n")
    (tmp_path / "cycle_b.py").write_text("import cycle_a\nimport helpers\n")
    assert student_imports(tmp_path, "cycle_a") == []  # importing cycle_b first could change the cycle


def test_korean_findings_put_the_particle_after_what_is_read_last() -> None:
    """"`signal`(…을 받음)을 import합니다": the particle follows the parenthesis, not the module's name."""
    from grader.core.tamper import scan_text

    found = scan_text("import signal\nimport inspect\nfrom sys import modules\n", "embedding.py")
    ko = [f.ko for f in found]
    assert "`signal`(핸들러가 실행 중인 프레임을 받음)을 import합니다" in ko
    assert "`inspect`(프레임, 소스, 전역 변수)를 import합니다" in ko
    assert "sys.modules를 import합니다" in ko
