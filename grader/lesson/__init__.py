"""This lesson's grading knowledge: reference solutions, value checks, the experiment, the LeetCode log."""
