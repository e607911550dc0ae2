"""Public checks of LEETCODE_LOG.md: each field there and well formed.

One test per (problem, rubric group); the groups, their points and the
messages live in lesson_embedding_pe/loggrade.py so the hidden suite shares them.
"""

import pytest

from lesson_embedding_pe.loggrade import LOGGED, PUBLIC_GROUPS, check_group, review_submission

CASES = [
    pytest.param(group, problem, id=f"problem{problem}-{group.name}",
                 marks=pytest.mark.task("leetcode_log", points=group.points))
    for problem in LOGGED for group in PUBLIC_GROUPS
]


@pytest.fixture(scope="module")
def review(submission, artifacts, student):
    return review_submission(submission, artifacts, student)


@pytest.mark.parametrize("group,problem", CASES)
def test_log(review, group, problem):
    check_group(review, group, problem)
