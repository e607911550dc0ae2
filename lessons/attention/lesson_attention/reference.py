"""The reference solution, loaded in the grader process to compute expectations for the hidden suite.

The kit's loader (``grader.core.testkit.Reference``): by path under a private module name, so it never
collides with the student's ``causal_attention``; the lesson's ``GradeHooks.use_solutions`` hands over the
folder in use once per grade (``use``): the package's own ``solutions/`` by default, a sealed archive's
copy when grading from one. A hidden test reads ``reference.load().causal_mask(T)``.
"""

from __future__ import annotations

from grader.core.testkit import Reference
from lesson_attention.paths import SOLUTIONS
from lesson_attention.tasks import MODULE

REFERENCE = Reference(SOLUTIONS, MODULE)
load = REFERENCE.load
