"""Hidden checks of weight tying (on the CPU: .to('meta') breaks tying) and count_params."""

import pytest
import torch

from grader.author import (
    Cause,
    Said,
    as_tensor,
    check,
    check_shape,
    expect_check,
    fail_check,
    fresh_rng,
    max_diff,
    particle,
)
from lesson_embedding_pe import structure
from lesson_embedding_pe.causes import counted_twice
from lesson_embedding_pe.tying import head_weight, tied_head

# The lesson's "tying" cause (causes.py): a count doubled by an untied head joins its card.
TYING = Cause("", "", "tying")
SAME_PARAMETER = Said("head.weight to be the same Parameter object as emb.weight",
                      "head.weight가 emb.weight와 같은 Parameter 객체여야 함")


def _sizes():
    rng = fresh_rng()
    return rng.randint(20, 300), rng.randint(4, 48)


@pytest.mark.task("weight_tying", points=2)
def test_tied_is_one_parameter(student):
    vocab, d_model = _sizes()
    lm = student.call("TinyLM", vocab, d_model, tie=True)
    if tied_head(student, lm):
        student.source_shows(structure.shares_one_parameter(student.sources), "TinyLM(tie=True)")
        return
    head = as_tensor(lm.attr("head.weight"), "head.weight")
    emb = as_tensor(lm.attr("emb.weight"), "emb.weight")
    if head.shape == emb.shape and max_diff(head, emb) == 0:
        fail_check(check("TinyLM(tie=True)", SAME_PARAMETER,
                         Said("two objects holding equal values: the values were copied (.data or clone()), "
                              "so they will drift apart after the first optimizer step",
                              "값만 같은 두 객체입니다"),
                         cause=TYING,
                         fix=Said("Assign the Parameter: self.head.weight = self.emb.weight.",
                                  ".data나 clone()으로 값을 복사하면 첫 optimizer step 후 서로 달라집니다. "
                                  "Parameter를 대입하세요: self.head.weight = self.emb.weight.")))
    fail_check(check("TinyLM(tie=True)", SAME_PARAMETER,
                     Said("two different parameters", "서로 다른 parameter입니다"), cause=TYING,
                     fix=Said("Assign the Parameter: self.head.weight = self.emb.weight.",
                              "Parameter를 대입하세요: self.head.weight = self.emb.weight.")))


@pytest.mark.task("weight_tying", points=1)
def test_untied_is_two_parameters(student):
    vocab, d_model = _sizes()
    lm = student.call("TinyLM", vocab, d_model, tie=False)
    expect_check(not student.probe("same_object", lm, "head.weight", "emb.weight"),
                 check("TinyLM(tie=False)", Said("separate head and embedding weights",
                                                 "head와 임베딩 가중치가 따로 있어야 함"),
                       Said("them shared", "공유되어 있습니다"),
                       fix=Said("Tie only when tie=True.", "tie=True일 때만 공유하세요.")))
    student.source_shows(structure.ties_only_when_asked(student.sources), "TinyLM(tie=False)")


@pytest.mark.task("weight_tying", points=1)
@pytest.mark.parametrize("tie", [True, False])
def test_forward_is_head_of_embedding(student, tie):
    vocab, d_model = _sizes()
    lm = student.call("TinyLM", vocab, d_model, tie=tie)
    ids = torch.randint(0, vocab, (2, 7))
    logits = as_tensor(lm.call("__call__", ids), f"TinyLM(tie={tie})(ids)")
    check_shape(logits, (2, 7, vocab), f"TinyLM(tie={tie}) logits", "Logits are (B, T, vocab_size).",
                                                                    "logits는 (B, T, vocab_size)입니다.")
    emb = as_tensor(lm.attr("emb.weight"), "emb.weight").double()
    head = as_tensor(head_weight(lm, tie), "head.weight").double()
    expected = emb[ids] @ head.T
    err = max_diff(logits, expected)
    expect_check(err < 1e-4,
                 check(f"TinyLM(tie={tie})", Said("logits = head(emb(ids)) with no bias or scaling",
                                                  "logits = head(emb(ids))(bias나 스케일 없이)여야 함"),
                       Said(f"values off by {err:.3g}", f"{err:.3g}만큼 다릅니다")))


@pytest.mark.task("weight_tying", points=1)
@pytest.mark.parametrize("tie", [True, False])
def test_count_params_counts_shared_once(student, tie):
    vocab, d_model = _sizes()
    lm = student.call("TinyLM", vocab, d_model, tie=tie)
    found = student.call("count_params", lm)
    expected = vocab * d_model * (1 if tie else 2)
    expect_check(found == expected and isinstance(found, int),
                 check(f"count_params(TinyLM({vocab}, {d_model}, tie={tie}))",
                       Said(f"{expected} (an int)", f"정수 {particle(str(expected), '이어야')} 함"),
                       Said(f"{found!r}", f"{found!r}입니다"),
                       fix=Said("Count each distinct Parameter once: model.parameters() already skips shared "
                                "ones; state_dict() or named_parameters(remove_duplicate=False) count them "
                                "twice.",
                                "서로 다른 Parameter를 한 번씩만 세세요: model.parameters()는 공유된 것을 "
                                "한 번만 주지만 state_dict()나 named_parameters(remove_duplicate=False)는 "
                                "두 번 셉니다."),
                       explained_by="tying" if tie and counted_twice(found, expected) else None))
