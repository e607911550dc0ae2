"""Public checks of weight tying and count_params."""

import pytest

from grader.core.feedback import expect
from grader.lesson import structure


@pytest.mark.task("weight_tying", points=1)
def test_tied_head_is_the_embedding(student):
    lm = student.call("TinyLM", 50, 16, tie=True)
    expect(student.probe("same_object", lm, "head.weight", "emb.weight"),
           "TinyLM(tie=True): expected head.weight to be the same Parameter object as emb.weight; found two "
           "objects. Assign the Parameter (self.head.weight = self.emb.weight), don't copy .data.",
           "TinyLM(tie=True): head.weight가 emb.weight와 같은 Parameter 객체여야 하는데 서로 다른 "
           "객체입니다. .data를 복사하지 말고 Parameter를 대입하세요(self.head.weight = self.emb.weight).")
    student.source_shows(structure.shares_one_parameter(student.staging), "TinyLM(tie=True)")


@pytest.mark.task("weight_tying", points=1)
@pytest.mark.parametrize("tie,expected", [(True, 64000), (False, 128000)])
def test_count_params_lesson_numbers(student, tie, expected):
    lm = student.call("TinyLM", 1000, 64, tie=tie)
    found = student.call("count_params", lm)
    expect(found == expected,
           f"count_params(TinyLM(1000, 64, tie={tie})): expected "
           f"{expected}; found {found}. A shared Parameter counts once.",
           f"count_params(TinyLM(1000, 64, tie={tie})): {expected}이어야 "
           f"하는데 {found}입니다. 공유된 Parameter는 한 번만 셉니다.")
