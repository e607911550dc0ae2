"""The attack corpus holds hostile student files (a conftest.py that flips reports, a
pytest.ini with addopts, a torch.py...): pytest must never collect or load them while
running the kit's own tests.  tests/test_attacks.py grades them through the grader."""

collect_ignore_glob = ["*"]
