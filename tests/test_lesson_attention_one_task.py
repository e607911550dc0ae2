"""One mistake, one task charged: a wrong causal_mask or scaled_dot_product_attention costs its
own task only, never CausalSelfAttention, whose checks run the layer with the reference parts in its
module (lesson_attention/probes.py); a layer that leaks although it applies the mask is told where the
leak is (the heads' split/merge, the forward check's own cause: one card), not to apply the mask.
Real submissions: the reference with one mistake planted, graded by the real grader with both suites."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from grader.engine.lessons import load_lesson
from grader.engine.runner import GradeOptions, grade_path

ROOT = Path(__file__).resolve().parent.parent
LESSON_DIR = ROOT / "lessons" / "attention"
SOLUTION = LESSON_DIR / "lesson_attention" / "solutions" / "causal_attention.py"

MISTAKES = {  # name -> ((text replaced, its replacement), ...), the one task that loses points
    "softmax_over_queries": ((("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-2)"),),
                             "scaled_dot_product_attention"),
    # the layer keeps causal_mask in __init__ and calls it from there: the reference reaches it there too
    "diagonal_blocked": ((("diagonal=1)", "diagonal=0)"),
                          ("self.q_proj = nn.Linear(d_model, d_model)",
                           "self.make_mask = causal_mask\n        self.q_proj = nn.Linear(d_model, d_model)"),
                          ("causal_mask(T, device=x.device))", "self.make_mask(T, device=x.device))")),
                         "causal_mask"),
    # k q^T: with T_q != T_k it raises in weights @ v, a check that joins the card naming k q^T
    "scores_transposed": ((("q @ k.transpose(-2, -1) / math.sqrt(d_k)",
                            "k @ q.transpose(-2, -1) / math.sqrt(d_k)"),), "scaled_dot_product_attention"),
    # inverted: at T = 1 it is the blocked diagonal's one cell, told as the inversion seen at T = 4
    "mask_inverted": ((("diagonal=1)", "diagonal=1).logical_not()"),), "causal_mask"),
    # a projection without its bias: read in four checks, one card
    "projection_without_bias": ((("self.q_proj = nn.Linear(d_model, d_model)",
                                  "self.q_proj = nn.Linear(d_model, d_model, bias=False)"),),
                                "CausalSelfAttention"),
    "merge_without_transpose": ((("out.transpose(1, 2).reshape(B, T, self.d_model)",
                                  "out.reshape(B, T, self.d_model)"),), "CausalSelfAttention"),
    # a float 0/1 mask (the student's attention cannot masked_fill with it) and one made on the CPU whatever
    # device is asked: the layer's float64 and simulated-GPU checks run it with the reference parts too
    "float_mask": ((("torch.ones(T, T, dtype=torch.bool, device=device)",
                     "torch.ones(T, T, device=device)"),), "causal_mask"),
    # no check of T at all: causal_mask(0) returns, -3 and 2.5 raise torch's own errors; one card
    "mask_no_valueerror": ((("    if not isinstance(T, int) or T <= 0:\n"
                             "        raise ValueError(f\"causal_mask: T must be a positive int, "
                             "got {T!r}\")\n",
                             ""),), "causal_mask"),
    "mask_on_cpu": ((("dtype=torch.bool, device=device)", "dtype=torch.bool)"),), "causal_mask"),
    # the mask made, then forgotten: forward computes the attention itself
    "mask_made_not_applied": ((("out, _ = scaled_dot_product_attention(q, k, v, "
                                "causal_mask(T, device=x.device))",
                                "mask = causal_mask(T, device=x.device)\n        out = torch.softmax(q @ "
                                "k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1) @ v"),),
                              "CausalSelfAttention"),
}


@pytest.fixture(scope="module")
def grade(tmp_path_factory):
    sys.path.insert(0, str(LESSON_DIR))
    try:
        from lesson_attention import paths

        def run(name: str) -> dict:
            text = SOLUTION.read_text(encoding="utf-8")
            for old, new in MISTAKES[name][0]:
                assert old in text
                text = text.replace(old, new)
            folder = tmp_path_factory.mktemp(name)
            (folder / "causal_attention.py").write_text(text, encoding="utf-8")
            options = GradeOptions(lesson="lesson_attention", suites_dir=paths.SUITES,
                                   solutions_dir=paths.SOLUTIONS, hidden=True, lang="en")
            return grade_path(folder, options)

        yield run
    finally:
        sys.path.remove(str(LESSON_DIR))
        load_lesson.cache_clear()
        for name in [m for m in sys.modules if m == "lesson_attention" or m.startswith("lesson_attention.")]:
            sys.modules.pop(name)


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_one_mistake_is_charged_in_its_own_task_only(grade, mistake):
    results = grade(mistake)
    charged = {name for name, t in results["tasks"].items() if t["score"] < t["max_score"]}
    assert charged == {MISTAKES[mistake][1]}, results["tasks"]
    failed = [t for t in results["tests"] if t["status"] != "passed"]
    from grader.report.cards import build_cards, tally
    from grader.report.view import failure_rows

    for lang in ("en", "ko"):  # one mistake, one card: never "2 causes" for one bug
        cards, idle = build_cards(failure_rows(results, lang, "sub"), lang)
        assert len(cards) == 1 and cards[0]["count"] == len(failed) and not idle, cards
        assert tally(cards, idle, lang)["causes"] == 1
    if mistake == "mask_made_not_applied":  # what the layer was seen to do, not "never calls causal_mask"
        words = " ".join(str(t.get("message") or "") for t in failed)
        assert "forward applies no causal mask" in words and "never calls causal_mask" not in words
    if mistake == "merge_without_transpose":  # the layer applies the mask: never "apply causal_mask"
        words = " ".join(str(t.get("message") or "") + str(t.get("messages") or "") for t in failed)
        assert "apply causal_mask" not in words and "forward never calls causal_mask" not in words
        assert "the heads are merged without transposing back" in words
