"""Grading of LEETCODE_LOG.md: a Big-O parser, a problem catalog, a tolerant
log parser and a reviewer that writes TA-style findings and points."""

from .bigo import Complexity, ParseError, compare, find_bigo, parse
from .catalog import CATALOG, Problem, find_problem
from .parser import Field, LogParse, ProblemEntry, parse_log
from .review import BreakdownItem, Finding, LinkedFailure, LogReview, ProblemReview, review_file, review_log
from .template import render_template

__all__ = [
    "CATALOG",
    "BreakdownItem",
    "Complexity",
    "Field",
    "Finding",
    "LinkedFailure",
    "LogParse",
    "LogReview",
    "ParseError",
    "Problem",
    "ProblemEntry",
    "ProblemReview",
    "compare",
    "find_bigo",
    "find_problem",
    "parse",
    "parse_log",
    "render_template",
    "review_file",
    "review_log",
]
