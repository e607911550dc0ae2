"""`python -m grader.instructor.check_solutions`: the reference must get full marks (tox -e solutions)."""

from __future__ import annotations

import sys

from grader.engine.runner import GradeOptions, grade_path
from grader.report.text import text_summary


def main() -> int:
    options = GradeOptions(hidden=True)  # the lesson chosen here (engine/lessons.py), its reference
    if options.solutions_dir is None:
        print(f"FAIL: lesson {options.lesson} declares no reference solutions", file=sys.stderr)
        return 1
    results = grade_path(options.solutions_dir, options)
    print(text_summary(results), end="")
    if results["score"] != results["max_score"] or not results["tests"]:
        print(f"FAIL: the reference scored {results['score']} / {results['max_score']}", file=sys.stderr)
        return 1
    print(f"OK: the reference gets full marks ({results['score']:g} / {results['max_score']:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
