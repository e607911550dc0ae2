"""This lesson as a Jupyter notebook, generated with nbformat from the stubs (``Lesson.release``'s
``write_notebook``: the release's lesson.ipynb).

One Markdown cell per lesson step (the kit's own words, Korean and English),
then one code cell per function or class of the stub, docstring included,
exactly as in exercises/. The LeetCode log template closes the notebook as
Markdown. `grade lesson.ipynb` reads the notebook back: its code cells run in
order, one statement at a time, and its Markdown is the log (see grader/notebook/).

Nothing runs at import time: a try-it cell is guarded by
``if __name__ == "__main__":``, true in Jupyter and false in the grader.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from lesson_embedding_pe.tasks import LOG_NAME

MODULES = ("embedding", "reversal", "leetcode")

INTRO = """# Embedding + Positional Encoding — 실습 노트북 / lesson notebook

**[한국어]** 이 노트북은 `exercises/`의 실습 파일과 같은 내용입니다. 각 단계의 설명을 읽고, 코드 셀의
`raise NotImplementedError(...)`를 지우고 구현하세요. 함수 이름과 인자는 바꾸지 마세요: 채점기가 그 이름으로 \
부릅니다.
다 쓰면 노트북을 저장하고 `grade lesson.ipynb`로 공개 테스트를 돌려 보세요. 숨은 테스트는 제출할 때 \
실행됩니다.
맨 아래의 LeetCode 기록 칸도 채우세요(마크다운 셀을 직접 고치면 됩니다).

**[English]** This notebook holds the same exercises as `exercises/`. Read each step, then replace the
`raise NotImplementedError(...)` in the code cells with your code. Keep the names and arguments: the grader
calls them by name. When done, save the notebook and run `grade lesson.ipynb` for the public tests; the
hidden tests run when you submit. Fill in the LeetCode log at the bottom too (edit the Markdown cells).
"""

# Shown before the cell that defines the name: the lesson's steps, in the kit's words.
STEPS: dict[str, str] = {
    "sinusoidal_pe": """## 1단계 · Step 1 — 사인파 위치 인코딩 / the sinusoidal table

**[한국어]** self-attention은 토큰의 순서를 모릅니다. 입력 순서를 섞으면 출력도 똑같이 섞일 뿐입니다. 그래서 \
각 위치에
고유한 벡터를 더해 줍니다. 논문 "Attention Is All You Need"의 고정 표는 위치 `p`와 짝수 열 `2i`마다 하나의 \
주파수를
쓰고, 짝수 열에 sin, 홀수 열에 cos를 번갈아 넣습니다. 학습되는 값이 없으니 길이에 상관없이 같은 식으로 만들 \
수 있습니다.

**[English]** Self-attention cannot see order: shuffle the input and the output is only shuffled the same way.
So each position gets a vector of its own added to the token. The fixed table of "Attention Is All You Need"
uses one frequency per pair of columns, sin in the even column and cos in the odd one, interleaved. Nothing is
learned, so the same formula gives any length.""",
    "TokenAndPosEmbedding": """## 2단계 · Step 2 — 토큰 + 위치 임베딩 / token plus position

**[한국어]** 토큰 ID를 `nn.Embedding`으로 벡터로 바꾸고 `sqrt(d_model)`을 곱한 뒤, 위치 `0..T-1`의 행을 \
더합니다.
위치는 세 가지 방식을 비교합니다: `"sin"`(1단계의 고정 표, buffer로 등록), `"learned"`(GPT-2처럼 학습되는 \
위치 표),
`"none"`(위치 없음). 표를 buffer로 등록해야 `.to(device)`가 함께 옮기고, 위치 번호는 `ids.device`에서 만들어야
GPU에서도 돌아갑니다. `max_len`보다 긴 입력은 조용히 잘리지 않게 직접 `IndexError`로 막으세요.

**[English]** Turn token ids into vectors with `nn.Embedding`, scale by `sqrt(d_model)`, and add the rows of
positions `0..T-1`. Three ways to compare: `"sin"` (the fixed table of step 1, registered as a buffer),
`"learned"` (a trained position table, as in GPT-2) and `"none"`. A buffer follows `.to(device)`; positions
made on `ids.device` keep it working on a GPU. A sequence longer than `max_len` must raise `IndexError`
yourself: slicing would cut it silently.""",
    "TinyLM": """## 3단계 · Step 3 — 가중치 공유 / weight tying

**[한국어]** 입력 임베딩(토큰 → 벡터)과 출력층(벡터 → 어휘 logit)은 같은 모양의 행렬을 씁니다. 둘을 하나의
`Parameter`로 공유하면 파라미터가 줄고 두 방향이 같은 표현을 배웁니다. 값을 복사(`.data`, `clone()`)하는 것은
공유가 아닙니다: 같은 객체여야 합니다. `count_params`는 공유된 파라미터를 한 번만 셉니다.

**[English]** The input embedding (token to vector) and the output layer (vector to vocabulary logits) have \
the
same shape. Sharing one `Parameter` between them saves parameters and makes both directions learn one
representation. Copying values (`.data`, `clone()`) is not tying: it must be the same object. `count_params`
counts a shared parameter once.""",
    "equivariance_error": """## 4단계 · Step 4 — 순서를 모르는 attention 확인 / attention alone is equivariant

**[한국어]** 함수 `fn`에 대해 "먼저 섞고 적용한 결과"와 "적용하고 섞은 결과"의 차이를 재 봅니다. 위치 정보 \
없는
attention이면 이 차이가 거의 0이고, 위치를 더하면 크게 벌어집니다. 2단계에서 위치를 더한 이유를 숫자로 \
확인하는 단계입니다.

**[English]** Measure how far "shuffle then apply" is from "apply then shuffle" for a function `fn`. Attention
without positions gives about 0; once positions are added the gap is large. This is step 2's reason, in \
numbers.""",
    "make_batch": """## 5단계 · Step 5 — 순서 뒤집기 실험 / the sequence-reversal experiment

**[한국어]** 무작위 토큰 열을 거꾸로 출력하는 작은 Transformer를 `none`, `sin`, `learned` 세 방식으로 학습해
비교합니다. 위치 정보가 없으면 모델은 자기 토큰과, 어떤 토큰이 몇 번 나왔는지(multiset)만 알기
때문에 "다른 토큰 중 가장 많이 나온 것"을 고르는 것이 최선입니다. 이것이 bag-of-tokens 상한입니다(길이 8,
어휘 10에서 정확도 약 0.317). 학습 길이(8)와 더 긴 길이(12)에서 정확도를 재 보고,
왜 두 위치 방식 모두 처음 보는 길이에서는 약한지 생각해 보세요. 힌트: 수업 코드의 기본 초기화 그대로면 `sin`이
한동안 이 상한에 머뭅니다. 토큰 임베딩을 `std=d_model**-0.5`로 초기화해 보세요.

**[English]** Train a small Transformer to output a random sequence reversed, with `none`, `sin` and \
`learned`,
and compare. Without positions the best a model can do is guess the most common of the other tokens (about
0.317 token accuracy at length 8, vocabulary 10). Measure at the training length (8) and a longer one (12),
and think about why neither position scheme handles the unseen length. Hint: with the lesson's default init,
`sin` sits on that bound for a long while; try initialising the token embedding with `std=d_model**-0.5`.""",
    "my_pow": """## 연습 · Practice — LeetCode (Medium 세 문제 중 두 문제 / two of the three Medium problems)

**[한국어]** `leetcode.py`의 Medium 문제 세 개(50. Pow(x, n), 204. Count Primes, 12. Integer to Roman) 중 아무
두 문제를 푸세요. 가장 잘 푼 두 문제가 같은 비중으로 점수에 들어갑니다. 202. Happy Number는 LeetCode에서
Easy라 몸풀기용입니다. 코드는 점수에 들어가지 않고, 기록에 쓰면 제출할 때 0.5점이 깎입니다(기록은 Medium
문제만 받습니다). 고르지 않은 함수는 `NotImplementedError`를 그대로 두면 "시도하지 않음"이며 틀린 것이
아닙니다. 고른 두 문제의 풀이 기록은 이 노트북 맨 아래의 LeetCode 기록 셀에 씁니다.

**[English]** Solve any two of the three Medium problems in `leetcode.py` (50. Pow(x, n), 204. Count Primes,
12. Integer to Roman); your best two count, each worth the same. 202. Happy Number is Easy on LeetCode: it is
there to warm up, its code never counts, and a log entry for it loses 0.5 at submission (the log takes Medium
problems only). Leave the others raising `NotImplementedError`: that is "not attempted", not wrong. The log
of your two goes in the LeetCode log cell at the bottom of this notebook.""",
}

TRY_IT = '''# 직접 확인해 보기 / try it (runs in Jupyter only, never while grading)
if __name__ == "__main__":
    try:
        print(sinusoidal_pe(4, 6))
        emb = TokenAndPosEmbedding(vocab_size=10, d_model=8, max_len=16, mode="sin")
        print(emb(torch.randint(0, 10, (2, 5))).shape)  # expected torch.Size([2, 5, 8])
    except NotImplementedError as exc:
        print("not implemented yet / 아직 구현하지 않음:", exc)
'''

LOG_INTRO = """## LeetCode 기록 / LeetCode log

**[한국어]** 바로 아래 마크다운 셀이 LeetCode 기록입니다. 더블클릭해 `<...>` 칸을 채우세요.
채점기는 셀의 위치가 아니라 내용(문제, 난이도, 시간복잡도 같은 항목 이름)으로 기록 셀을 찾으니,
셀을 옮기거나 다른 노트북에 붙여 넣어도 됩니다. `check()`는 저장된 노트북에서 기록을 읽으므로
먼저 저장하세요.

**[English]** The Markdown cell right below is your LeetCode log: double-click it and fill in the `<...>`
fields. The grader finds the log cell by its content (its field labels: Problem, Difficulty, Time
complexity, ...), not by its place, so it may move or be pasted into another notebook. `check()` reads
it from the saved notebook: save first."""


def _segments(source: str) -> tuple[list[str], list[tuple[str | None, str]]]:
    """(import lines, [(defined name or None, source of the statement)]) of one stub."""
    tree = ast.parse(source)
    lines = source.splitlines()
    imports: list[str] = []
    parts: list[tuple[str | None, str]] = []
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]  # the module docstring: the notebook's intro replaces it
    for node in body:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        text = "\n".join(lines[start - 1:node.end_lineno])
        if isinstance(node, ast.Import | ast.ImportFrom):
            module = getattr(node, "module", None) or ""
            if module == "__future__" or module.split(".")[0] in MODULES:
                continue  # one namespace in a notebook: no imports between the student's own files
            imports.append(text)
        elif isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            continue  # a script's entry point, not part of the exercise
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            parts.append((node.name, text))
        else:
            parts.append((None, text))
    return imports, parts


def build_notebook(source_dir: Path, log_file: Path | None = None) -> nbformat.NotebookNode:
    """The lesson notebook from the modules in ``source_dir`` (exercises/ or, in tests, solutions/)."""
    cells = [new_markdown_cell(INTRO)]
    imports: list[str] = []
    code: list[tuple[str | None, str]] = []
    for module in MODULES:
        path = source_dir / f"{module}.py"
        if not path.exists():
            continue
        mod_imports, parts = _segments(path.read_text(encoding="utf-8"))
        imports += [i for i in mod_imports if i not in imports]
        code += parts
    cells.append(new_code_cell("from __future__ import annotations\n\n" + "\n".join(imports)))
    pending: list[str] = []  # constants and helpers travel with the next definition
    for name, text in code:
        if name is None:
            pending.append(text)
            continue
        if name in STEPS:
            cells.append(new_markdown_cell(STEPS[name]))
        cells.append(new_code_cell("\n\n".join([*pending, text])))
        pending = []
        if name == "TokenAndPosEmbedding":
            cells.append(new_code_cell(TRY_IT))
    if pending:
        cells.append(new_code_cell("\n\n".join(pending)))
    log = log_file if log_file is not None else source_dir / LOG_NAME
    cells.append(new_markdown_cell(LOG_INTRO))
    if log.exists():
        cells.append(new_markdown_cell(log.read_text(encoding="utf-8")))
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def write_notebook(source_dir: Path, out: Path, log_file: Path | None = None) -> Path:
    nb = build_notebook(source_dir, log_file)
    nbformat.validate(nb)
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(out))
    return out
