"""Writes the notebooks of tests/notebooks/ (run it again after changing solutions/; the files are committed).

Each is shaped like what students hand in: a Colab export with outputs and its
metadata, Drive mounts, IPython imports, `%%time` and `!pip` cells, the lesson's
demos, the experiment and plots at top level, an early cell that fails. The code
of every definition is the reference (solutions/) unless a bug is swapped in.

    python3 tests/notebooks/make.py
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SOLUTIONS = ROOT / "solutions"


def definitions() -> dict[str, str]:
    """Name -> source of every top-level def/class/constant of the reference modules."""
    out: dict[str, str] = {}
    for module in ("embedding", "reversal", "leetcode"):
        text = (SOLUTIONS / f"{module}.py").read_text()
        lines = text.splitlines()
        for node in ast.parse(text).body:
            if isinstance(node, ast.Import | ast.ImportFrom | ast.If) or (
                    isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
                continue
            start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            name = getattr(node, "name", None) or ast.unparse(node.targets[0] if isinstance(node, ast.Assign)
                                                               else node)
            out[name] = "\n".join(lines[start - 1:node.end_lineno])
    return out


DEFS = definitions()
IMPORTS = "import math\nfrom collections.abc import Callable, Iterable\nfrom typing import Any\n\n" \
          "import torch\nimport torch.nn as nn"


def code(*names: str, extra: str = "", swap: dict[str, str] | None = None) -> str:
    parts = [(swap or {}).get(n, DEFS[n]) for n in names]
    return "\n\n\n".join(parts) + (f"\n\n{extra}" if extra else "")


def colab_cell(source: str, outputs: list | None = None, count: int | None = None) -> nbformat.NotebookNode:
    """A code cell as Colab saves it: an id, colab metadata, an outputId, outputs."""
    cell = new_code_cell(source, execution_count=count, outputs=outputs or [])
    cell.metadata = {"id": hashlib.sha1(source.encode()).hexdigest()[:12],
                     "colab": {"base_uri": "https://localhost:8080/"}, "outputId": "3f1c2b7e-0d4a-4a55-9d1e"}
    return cell


def stream(text: str) -> nbformat.NotebookNode:
    return new_output("stream", name="stdout", text=text)


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def log_cells() -> list:
    return [new_markdown_cell("# LeetCode log"),
            new_markdown_cell((SOLUTIONS / "LEETCODE_LOG.md").read_text())]


def colab(name: str, swap: dict[str, str] | None = None) -> nbformat.NotebookNode:
    """A full Colab export: setup cells, the lesson's demos, the experiment and plots at top level."""
    s = swap or {}
    cells = [
        new_markdown_cell("# Embedding + Positional Encoding\n\nColab에서 작성했습니다."),
        colab_cell("!pip install -q torch", [stream("")], 1),
        colab_cell("!git clone -q https://github.com/example-course/embedding-kit-student kit\n"
                   "%pip install -q -e kit\nimport sys; sys.path.insert(0, 'kit')", [stream("")], 1),
        colab_cell("from google.colab import drive\ndrive.mount('/content/drive')",
                   [stream("Mounted at /content/drive\n")], 2),
        colab_cell("%cd /content/drive/MyDrive/llm-course",
                   [stream("/content/drive/MyDrive/llm-course\n")], 3),
        colab_cell(IMPORTS + "\nfrom IPython.display import display, HTML\n\n"
                   "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\nprint(device)",
                   [stream("cuda\n")], 4),
        new_markdown_cell("## 단계 1. 임베딩 층 써보기"),
        colab_cell("vocab_size, d_model = 10, 8\nemb = nn.Embedding(vocab_size, d_model)\n\n"
                   "ids = torch.tensor([[1, 2, 3, 2]])\nx = emb(ids)\nprint(x.shape)\n"
                   "print(torch.equal(x[0, 1], x[0, 3]))", [stream("torch.Size([1, 4, 8])\nTrue\n")], 5),
        new_markdown_cell("## 단계 2. 사인 위치인코딩"),
        colab_cell(code("MODES", "sinusoidal_pe", swap=s) + "\n\npe = sinusoidal_pe(16, 8)\nprint(pe.shape)\n"
                   "print(pe[0])\npe[1] - pe[2]",
                   [stream("torch.Size([16, 8])\ntensor([0., 1., 0., 1., 0., 1., 0., 1.])\n"),
                    new_output("execute_result", {"text/plain": "tensor([...])"}, execution_count=6)], 6),
        colab_cell(code("TokenAndPosEmbedding", swap=s) + "\n\n"
                   "layer = TokenAndPosEmbedding(10, 8, 16, mode='sin')\n"
                   "out = layer(torch.tensor([[1, 2, 3, 2]]))\nprint(torch.equal(out[0, 1], out[0, 3]))",
                   [stream("False\n")], 7),
        new_markdown_cell("## 단계 4. self-attention은 순서를 모른다"),
        colab_cell("torch.manual_seed(0)\n"
                   "attn = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)\n"
                   "attn.eval()\n\nx = torch.randn(1, 5, 8)\nperm = torch.tensor([4, 3, 2, 1, 0])\n\n"
                   "y, _ = attn(x, x, x)\ny_perm, _ = attn(x[:, perm], x[:, perm], x[:, perm])\n"
                   "print(torch.allclose(y[:, perm], y_perm, atol=1e-6))", [stream("True\n")], 8),
        colab_cell("from grader import check\ncheck('sinusoidal_pe')",
                   [new_output("execute_result", {"text/html": "<div class=\"gk-check\">6 / 6</div>",
                                                  "text/plain": "check('sinusoidal_pe'): 6 / 6"},
                               execution_count=7)], 7),
        colab_cell(code("TinyLM", "count_params", "equivariance_error", swap=s)
                   + "\n\nprint(count_params(TinyLM(1000, 64, tie=False)))\n"
                   "print(count_params(TinyLM(1000, 64, tie=True)))", [stream("128000\n64000\n")], 9),
        new_markdown_cell("## 오늘의 실험"),
        colab_cell(code("MODEL_KEYS", "make_batch", "ReversalModel", "train_reversal", "evaluate",
                        "run_experiment", swap=s), [], 10),
        colab_cell("%%time\nresults = run_experiment(seeds=(0, 1, 2), steps=1500)\nfor row in results:\n"
                   "    print(row['mode'], row['seed'], row['acc_by_length'])",
                   [stream("none 0 {8: 0.317, 12: 0.21}\n"),
                    stream("CPU times: user 9min 12s\nWall time: 9min 40s\n")],
                   11),
        colab_cell("import matplotlib.pyplot as plt\n\nfig, ax = plt.subplots()\nfor row in results:\n"
                   "    ax.bar(f\"{row['mode']}-{row['seed']}\", row['acc_by_length'][8])\nplt.show()",
                   [new_output("display_data", {"image/png": PNG, "text/plain": "<Figure size 640x480>"})],
                   12),
        colab_cell("display(HTML('<b>done</b>'))",
                   [new_output("display_data", {"text/html": "<b>done</b>"})], 13),
        new_markdown_cell("## LeetCode"),
        colab_cell(code("my_pow", "count_primes", "is_happy", "_ROMAN", "int_to_roman", swap=s)
                   + "\n\nprint(my_pow(2.0, -2), count_primes(10), is_happy(19), int_to_roman(1994))",
                   [stream("0.25 4 True MCMXCIV\n")], 14),
        *log_cells(),
    ]
    nb = new_notebook(cells=cells)
    nb.metadata = {"colab": {"provenance": [], "gpuType": "T4", "name": name},
                   "kernelspec": {"name": "python3", "display_name": "Python 3"},
                   "language_info": {"name": "python"}, "accelerator": "GPU"}
    return nb


def plain(cells: list, name: str) -> nbformat.NotebookNode:
    nb = new_notebook(cells=cells)
    nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                  "language": "python"},
                   "language_info": {"name": "python", "version": "3.11.7"}}
    return nb


def ipython_notebook(swap: dict[str, str] | None = None) -> nbformat.NotebookNode:
    """Jupyter habits: autoreload, IPython imports, get_ipython(), a bare value at the end of a cell."""
    s = swap or {}
    return plain([
        new_code_cell("%load_ext autoreload\n%autoreload 2\n%matplotlib inline"),
        new_code_cell("from IPython import get_ipython\nfrom IPython.display import display, clear_output\n"
                      "import IPython\n"
                      "get_ipython().run_line_magic('config', \"InlineBackend.figure_format = 'retina'\")"),
        new_code_cell("from __future__ import annotations\n" + IMPORTS),
        new_code_cell(code("MODES", "sinusoidal_pe", "TokenAndPosEmbedding", swap=s)
                      + "\n\ndisplay(sinusoidal_pe(4, 6))"),
        new_code_cell("sinusoidal_pe?"),
        new_code_cell(code("TinyLM", "count_params", "equivariance_error") + "\n\nTinyLM(10, 4)"),
        new_code_cell(code("MODEL_KEYS", "make_batch", "ReversalModel", "train_reversal", "evaluate",
                           "run_experiment")),
        new_code_cell("%time model, losses = train_reversal('sin', steps=1500)\nclear_output()"),
        new_code_cell(code("my_pow", "count_primes", "is_happy", "_ROMAN", "int_to_roman")),
        *log_cells(),
    ], "ipython")


TRAIN_ALL = '''def train_all(steps=3000):
    """Hand-rolled sweep: the experiment, called at top level below."""
    out = {}
    for mode in MODES:
        model = ReversalModel(mode=mode)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        for _ in range(steps):
            ids, targets = make_batch(64, 8)
            loss = nn.functional.cross_entropy(model(ids).flatten(0, 1), targets.flatten())
            opt.zero_grad()
            loss.backward()
            opt.step()
        out[mode] = evaluate(model, 8)
    return out'''


def early_failure_notebook() -> nbformat.NotebookNode:
    """The first cells fail (a package the grader lacks, a half-written cell, a NameError); the rest is right."""  # noqa: E501
    return plain([
        new_code_cell("import wandb\nwandb.init(project='pe-lesson')"),
        new_code_cell("def scratch(:\n    pass"),
        new_code_cell(IMPORTS + "\nSEQ_LEN = BASE_LEN * 2  # BASE_LEN was defined in a cell deleted since"),
        new_code_cell(code("MODES", "sinusoidal_pe", "TokenAndPosEmbedding", "TinyLM", "count_params",
                           "equivariance_error")),
        new_code_cell(code("MODEL_KEYS", "make_batch", "ReversalModel", "train_reversal", "evaluate",
                           "run_experiment")),
        new_code_cell(TRAIN_ALL + "\n\n\ntrain_all()"),
        new_code_cell("for mode in MODES:\n    model, losses = train_reversal(mode, steps=2000)\n"
                      "    print(mode, evaluate(model, 8), evaluate(model, 12))"),
        new_code_cell(code("my_pow", "count_primes", "is_happy", "_ROMAN", "int_to_roman")),
        *log_cells(),
    ], "early failure")


SIN_ONLY = DEFS["sinusoidal_pe"].replace("pe[:, 1::2] = torch.cos(angle)", "pe[:, 1::2] = torch.sin(angle)")
NO_SCALE = DEFS["TokenAndPosEmbedding"].replace(" * math.sqrt(self.d_model)", "")
TIE_CLONE = DEFS["TinyLM"].replace("self.head.weight = self.emb.weight",
                                   "self.head.weight = nn.Parameter(self.emb.weight.clone())")

CASES = {
    "ok_colab_export": (colab("ok_colab_export.ipynb"), {"full_marks": True}),
    "ok_ipython": (ipython_notebook(), {"full_marks": True}),
    "ok_early_failure": (early_failure_notebook(), {"full_marks": True}),
    "bug_colab_sin_only": (colab("bug.ipynb", {"sinusoidal_pe": SIN_ONLY}),
                           {"failing_tasks": ["sinusoidal_pe"]}),
    "bug_colab_tie_clone": (colab("bug.ipynb", {"TinyLM": TIE_CLONE}), {"failing_tasks": ["weight_tying"]}),
    "bug_ipython_no_scale": (ipython_notebook({"TokenAndPosEmbedding": NO_SCALE}),
                             {"failing_tasks": ["TokenAndPosEmbedding"]}),
}


def main() -> None:
    for bug, name in ((SIN_ONLY, "sinusoidal_pe"), (TIE_CLONE, "TinyLM"), (NO_SCALE, "TokenAndPosEmbedding")):
        assert bug != DEFS[name], f"the {name} bug no longer applies to solutions/"
    expect = {}
    for name, (nb, exp) in CASES.items():
        nbformat.validate(nb)
        nbformat.write(nb, str(HERE / f"{name}.ipynb"))
        expect[name] = exp
    (HERE / "expect.json").write_text(json.dumps(expect, indent=2) + "\n")


if __name__ == "__main__":
    main()
