"""Everything made from results: feedback.html/md, gradescope.json, terminal and text summaries,
class pages (gradebook, summary.html) and the GitHub CI outputs."""

from grader.report.render import render_html, render_markdown, write_reports

__all__ = ["render_html", "render_markdown", "write_reports"]
