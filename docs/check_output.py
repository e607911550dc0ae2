"""Regenerate docs/check-output.png: `check()` as a notebook shows it, from a real grade.

The stubs first, then the concatenated sin|cos table (tests/corpus/bug_concat_sincos): the second call
says what changed, groups the six checks under their one cause and draws the table. Needs Chromium:

    python docs/check_output.py            # writes docs/check-output.png
"""

from __future__ import annotations

import html
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.engine.options import GradeOptions
from grader.engine.runner import grade_path
from grader.jupyter.check import CheckResult, remember, render_html

ROOT = Path(__file__).resolve().parent.parent
CELL = 'from grader import check\ncheck("sinusoidal_pe")'


def main() -> int:
    key = ("sinusoidal_pe", "")
    options = GradeOptions(hidden=False, keyword="sinusoidal_pe", lang="en")
    with tempfile.TemporaryDirectory() as tmp:  # one submission: the stubs, then a first try
        work = Path(tmp) / "exercises"
        shutil.copytree(ROOT / "exercises", work)
        remember(grade_path(work, options), key)
        shutil.copy(ROOT / "tests" / "corpus" / "bug_concat_sincos" / "embedding.py", work / "embedding.py")
        results = grade_path(work, options)
    remember(results, key)
    shown = render_html(CheckResult(results, "en", "sinusoidal_pe"))
    page = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body {{ margin: 0; padding: 16px; background: #fff; font-family: system-ui, sans-serif; }}
.cell {{ border: 1px solid #ddd; border-radius: 6px; padding: 10px 14px; }}
.prompt {{ color: #303f9f; font: 13px monospace; }}
pre {{ background: #f7f7f7; border: 1px solid #e0e0e0; padding: 8px; margin: 4px 0 10px; font-size: 13px; }}
</style></head><body><div class="cell"><div class="prompt">[7]:</div><pre>{html.escape(CELL)}</pre>
{shown}</div></body></html>"""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "check.html"
        source.write_text(page, encoding="utf-8")
        shot = ROOT / "docs" / "check-output.png"
        subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--screenshot={shot}", "--window-size=980,760", source.as_uri()],
                       check=True, capture_output=True, timeout=120)
    print(f"wrote {shot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
