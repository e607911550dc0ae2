"""The log's other side: the student's practice code (leetcode.py, or the notebook).

Which practice functions it leaves unsolved and each one's parameters (coverage.py, read with ``ast``),
what each does when run at growing n and counted (costmeter.py, in the worker), and a log's complexity
claim held to those counts (claims.py). The log itself is read one level up."""
