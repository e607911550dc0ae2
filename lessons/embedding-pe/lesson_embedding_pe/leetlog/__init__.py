"""Grading of LEETCODE_LOG.md: a Big-O parser, a problem catalog, a tolerant
log parser and a reviewer that writes TA-style findings and points."""

from .bigo import Complexity, ParseError, parse
from .parser import LogParse, parse_log
from .review import Finding, LogReview, review_file, review_log
from .vocab import render_template

__all__ = ["Complexity", "Finding", "LogParse", "LogReview", "ParseError", "parse", "parse_log",
           "render_template", "review_file", "review_log"]
