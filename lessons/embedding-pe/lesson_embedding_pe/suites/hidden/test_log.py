"""Hidden checks of LEETCODE_LOG.md: complexities against the catalog, Medium math problems.

One test per (problem, rubric group); the groups, their points and the
messages live in lesson_embedding_pe/loggrade.py shared with the public suite.
"""

import pytest

from lesson_embedding_pe.loggrade import HIDDEN_GROUPS, LOGGED, check_group, review_submission

CASES = [
    pytest.param(group, problem, id=f"problem{problem}-{group.name}",
                 marks=pytest.mark.task("leetcode_log", points=group.points))
    for problem in LOGGED for group in HIDDEN_GROUPS
]


@pytest.fixture(scope="module")
def review(submission, artifacts, student):
    return review_submission(submission, artifacts, student)


@pytest.mark.parametrize("group,problem", CASES)
def test_log(review, group, problem):
    check_group(review, group, problem)
