"""Public checks of weight tying and count_params."""

import pytest

from grader.author import Cause, Said, check, expect_check, particle
from lesson_embedding_pe import structure
from lesson_embedding_pe.causes import counted_twice
from lesson_embedding_pe.tying import tied_head


@pytest.mark.task("weight_tying", points=1)
def test_tied_head_is_the_embedding(student):
    lm = student.call("TinyLM", 50, 16, tie=True)
    # the lesson's "tying" cause (causes.py): a count doubled by an untied head joins its card
    expect_check(tied_head(student, lm),
                 check("TinyLM(tie=True)", Said("head.weight to be the same Parameter object as emb.weight",
                                                "head.weight가 emb.weight와 같은 Parameter 객체여야 함"),
                       Said("two objects", "서로 다른 객체입니다"), cause=Cause("", "", "tying"),
                       fix=Said("Assign the Parameter (self.head.weight = self.emb.weight), "
                                "don't copy .data.",
                                ".data를 복사하지 말고 Parameter를 대입하세요"
                                "(self.head.weight = self.emb.weight).")))
    student.source_shows(structure.shares_one_parameter(student.sources), "TinyLM(tie=True)")


@pytest.mark.task("weight_tying", points=1)
@pytest.mark.parametrize("tie,expected", [(True, 64000), (False, 128000)])
def test_count_params_lesson_numbers(student, tie, expected):
    lm = student.call("TinyLM", 1000, 64, tie=tie)
    found = student.call("count_params", lm)
    expect_check(found == expected,
                 check(f"count_params(TinyLM(1000, 64, tie={tie}))",
                       Said(f"{expected}", f"{particle(str(expected), '이어야')} 함"),
                       Said(f"{found}", f"{found}입니다"),
                       fix=Said("A shared Parameter counts once.", "공유된 Parameter는 한 번만 셉니다."),
                       explained_by="tying" if tie and counted_twice(found, expected) else None))
