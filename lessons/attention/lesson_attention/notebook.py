"""The lesson as a Jupyter notebook, and its rules for graded notebooks.

``build_notebook`` turns the stubs (exercises/, or solutions/ in tests) into the lesson notebook: a
bilingual Markdown cell per step, then the step's code cell exactly as in the stub, docstring included.
A try-it cell closes it, guarded by ``if __name__ == "__main__":`` (true in Jupyter, false while
grading). ``grade lesson.ipynb`` reads it back with the kit's notebook reader.

The rules the kit's notebook plan needs from this lesson: ``TOP_LEVEL_CALLS``, the calls that train
at top level and that grading skips (none here: nothing in this lesson trains), and ``CONTRACT``
(tasks.py), the graded names a notebook must define.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from lesson_attention.tasks import CONTRACT, MODULE, TOP_LEVEL_CALLS

__all__ = ["CONTRACT", "TOP_LEVEL_CALLS", "build_notebook", "write_notebook"]

INTRO = """# 스케일드 닷프로덕트 어텐션 + 인과 마스크 — 실습 노트북 / lesson notebook

**[한국어]** 이 노트북은 `exercises/causal_attention.py`와 같은 내용입니다. 각 단계의 설명을 읽고, 코드 셀의
`raise NotImplementedError(...)`를 지우고 구현하세요. 함수 이름과 인자는 바꾸지 마세요: 채점기가 그 이름으로
부릅니다. 다 쓰면 저장하고 `grade lesson.ipynb`로 공개 테스트를 돌려 보세요. 숨은 테스트는 제출할 때
실행됩니다. 마스크 규칙: bool 마스크에서 True는 "막힘"입니다.

**[English]** This notebook holds the same exercises as `exercises/causal_attention.py`. Read each step, then
replace the `raise NotImplementedError(...)` in the code cells with your code. Keep the names and
arguments: the grader calls them by name. When done, save and run `grade lesson.ipynb` for the public
tests; the hidden tests run when you submit. The mask rule: in a bool mask, True means blocked."""

STEPS: dict[str, str] = {
    "causal_mask": """## 1단계 · Step 1 — 인과 마스크 / the causal mask

**[한국어]** 언어 모델은 다음 토큰을 맞히므로 위치 i는 0..i만 볼 수 있습니다. `mask[i, j]`는 `j > i`일 때
True(막힘)입니다. 대각선은 막지 않습니다: 자기 자신은 볼 수 있어야 합니다.

**[English]** A language model predicts the next token, so position i may look at 0..i only:
`mask[i, j]` is True (blocked) when `j > i`. The diagonal stays open: a position sees itself.""",
    "scaled_dot_product_attention": """## 2단계 · Step 2 — 닷프로덕트 어텐션 / scaled dot-product attention

**[한국어]** `softmax(q kᵀ / √d_k) v`. √d_k로 나누지 않으면 d_k가 클 때 softmax가 한 key에 몰립니다. 막힌 칸은
softmax 전에 -inf로 채우고(0이 아니라), 모든 key가 막힌 행은 가중치와 출력이 0입니다(NaN이 아니라).

**[English]** `softmax(q kᵀ / √d_k) v`. Without the √d_k, large d_k pushes the softmax onto one key.
Blocked cells become -inf before the softmax (not 0), and a row with every key blocked has weights and
output 0 (not NaN).""",
    "CausalSelfAttention": """## 3단계 · Step 3 — 인과 멀티헤드 셀프 어텐션 / causal multi-head self-attention

**[한국어]** q, k, v를 projection하고, 헤드로 나누고(`view(B, T, h, d_head).transpose(1, 2)`), 인과 마스크로
어텐션한 뒤, 헤드를 합쳐 `out_proj`를 적용합니다. 위치 t의 출력은 입력 0..t에만 의존해야 합니다.

**[English]** Project q, k and v, split the heads (`view(B, T, h, d_head).transpose(1, 2)`), attend with the
causal mask, merge the heads and apply `out_proj`. The output at position t depends on inputs 0..t only.""",
}

TRY_IT = '''# 직접 확인해 보기 / try it (runs in Jupyter only, never while grading)
if __name__ == "__main__":
    try:
        print(causal_mask(4))
        q = k = v = torch.randn(1, 4, 8)
        out, weights = scaled_dot_product_attention(q, k, v, causal_mask(4))
        print(weights)  # each row sums to 1; zeros above the diagonal
        print(CausalSelfAttention(16, 4)(torch.randn(2, 5, 16)).shape)  # expected torch.Size([2, 5, 16])
    except NotImplementedError as exc:
        print("not implemented yet / 아직 구현하지 않음:", exc)
'''


def _parts(source: str) -> tuple[str, list[tuple[str | None, str]]]:
    """The module's imports (one cell), then each top-level statement's source with its name (None for
    anything but a def or a class). The module docstring stays out: the intro cell says it."""
    tree = ast.parse(source)
    lines = source.splitlines()
    imports: list[str] = []
    parts: list[tuple[str | None, str]] = []
    for node in tree.body:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        text = "\n".join(lines[start - 1:node.end_lineno])
        if isinstance(node, ast.Import | ast.ImportFrom):
            if not (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
                imports.append(text)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            parts.append((node.name, text))
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):  # the docstring
            parts.append((None, text))
    return "\n".join(imports), parts


def build_notebook(source_dir: Path) -> nbformat.NotebookNode:
    """The lesson notebook from ``source_dir``/causal_attention.py."""
    imports, parts = _parts((Path(source_dir) / f"{MODULE}.py").read_text(encoding="utf-8"))
    cells = [new_markdown_cell(INTRO), new_code_cell(f"from __future__ import annotations\n\n{imports}")]
    pending: list[str] = []  # constants and helpers travel with the next definition
    for name, text in parts:
        if name is None or name not in CONTRACT:
            pending.append(text)
            continue
        cells.append(new_markdown_cell(STEPS[name]))
        cells.append(new_code_cell("\n\n\n".join([*pending, text])))
        pending = []
    if pending:
        cells.append(new_code_cell("\n\n\n".join(pending)))
    cells.append(new_code_cell(TRY_IT.rstrip("\n")))
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def write_notebook(source_dir: Path, out: Path) -> Path:
    nb = build_notebook(source_dir)
    nbformat.validate(nb)
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(out))
    return out
