"""Reports from results.json: feedback.html, feedback.md, gradescope.json, the terminal summary."""

from grader.report.render import render_html, render_markdown, write_reports

__all__ = ["render_html", "render_markdown", "write_reports"]
