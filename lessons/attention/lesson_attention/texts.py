"""The lesson's texts a student reads outside its notes: the release's README and the notebook's cells
(an intro, a step per graded name, a try-it cell that runs in Jupyter only). The kit builds the copy and
the notebook from them (grader.author.lesson_package)."""

from __future__ import annotations

README = """# 스케일드 닷프로덕트 어텐션 + 인과 마스크 — 실습 키트 / exercise kit

## 한국어

지난 시간의 임베딩 + 위치인코딩 다음 단계입니다. 어텐션과 인과 마스크를 직접 구현합니다.
개념은 `lesson_attention/NOTES.md`에 있습니다.

1. 설치: `pip install -e .` (Python 3.10 이상, PyTorch CPU 버전이면 충분합니다)
2. `exercises/causal_attention.py`의 `causal_mask`, `scaled_dot_product_attention`,
   `CausalSelfAttention`을 채우거나, 같은 내용의 노트북 `lesson.ipynb`에서 풀어도 됩니다.
   함수 이름과 인자는 바꾸지 마세요.
3. 채점: `grade` (이 저장소의 `pyproject.toml`에 `[tool.grade] lesson = "attention"`이 있어
   이 수업을 채점합니다; 다른 곳에서는 `grade --lesson attention`). 노트북은 `grade lesson.ipynb`.
   결과는 `reports/`에 저장됩니다(`results.json`, `feedback.html`). 특정 과제만: `grade -k causal_mask`.
4. 노트북 안에서: `from grader import check` 다음 `check()` 또는 `check("scaled_dot_product_attention")`.

**이 복사본에는 공개 테스트만 있습니다.** 숨은 테스트는 제출할 때 채점 서버에서 실행되므로, 여기서 모두
통과해도 최종 점수는 다를 수 있습니다. 틀린 가중치는 보고서에 정답 옆에 그림으로 나오고, 틀린 칸에
테두리가 있습니다.

제출: `causal_attention.py`가 든 폴더, 노트북 하나, 또는 그것들의 zip.

## English

The step after embeddings + positional encoding: build attention and the causal mask yourself.
`lesson_attention/NOTES.md` explains the ideas.

1. Install: `pip install -e .` (Python 3.10 or later; the CPU build of PyTorch is enough).
2. Fill in `causal_mask`, `scaled_dot_product_attention` and `CausalSelfAttention` in
   `exercises/causal_attention.py`, or work in the notebook `lesson.ipynb`, which holds the same
   exercises. Keep the names and arguments.
3. Grade: `grade` (this repository's `pyproject.toml` says `[tool.grade] lesson = "attention"`; elsewhere,
   `grade --lesson attention`). A notebook: `grade lesson.ipynb`. Results go to `reports/` (`results.json`,
   `feedback.html`). One task only: `grade -k causal_mask`.
4. Inside a notebook: `from grader import check`, then `check()` or `check("scaled_dot_product_attention")`.

**This copy holds the public tests only.** The hidden tests run on the grading server when you submit, so
passing everything here does not guarantee the final score. Wrong weights are drawn in the report beside
the right ones, the wrong cells outlined.

Submit a folder holding `causal_attention.py`, one notebook, or a zip of either.
"""


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
