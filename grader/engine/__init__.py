"""One submission, graded in the trusted process: read it, run the suites against the worker, score it."""
