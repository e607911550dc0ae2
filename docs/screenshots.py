"""Regenerate the docs' screenshots from real grades, and shoot every page for a look at phone width.

    python docs/screenshots.py                    # docs/report-buggy.png and docs/check-output.png
    python docs/screenshots.py --review /tmp/shots  # also each page at 390 px and 1280 px, to look at

report-buggy.png is the top of examples/buggy's feedback.html (public tests, English) at 1100 px, the
README's picture; check-output.png is check() in a notebook (docs/check_output.py). ``--review`` adds
feedback.html in both languages, the examples' class summary and the built site (run `mkdocs build`
first), each at 390 px (a phone) and 1280 px: the pages this kit writes, looked at as their readers see
them. Needs Debian's `chromium`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "docs"))
from cdp_browser import Chromium, find_chromium  # noqa: E402 - the tests' own headless driver

GRADE = [sys.executable, "-m", "grader.cli"]
ENV = {**os.environ, "GK_NO_DAEMON": "1"}


def grade(*args: str) -> None:
    subprocess.run([*GRADE, *args, "-q"], cwd=ROOT, env=ENV, check=False, stdout=subprocess.DEVNULL)


def shoot(browser: Chromium, page: Path, png: Path, width: int | None = None,
          max_height: int = 16000) -> None:
    visit = browser.visit(page, width=width, max_height=max_height)
    png.parent.mkdir(parents=True, exist_ok=True)
    png.write_bytes(visit.screenshot)
    problems = [*visit.console_errors, *visit.network_requests]
    print(f"{png}{'  ' + '; '.join(problems) if problems else ''}")


def review_pages(tmp: Path) -> list[tuple[str, Path]]:
    pages = []
    for lang in ("en", "ko"):
        out = tmp / f"buggy-{lang}"
        grade("examples/buggy", "--out", str(out), "--lang", lang)
        pages.append((f"feedback-buggy-{lang}", out / "feedback.html"))
    batch = tmp / "batch"
    grade("batch", "examples", "--out", str(batch))
    pages.append(("summary-examples", batch / "summary.html"))
    site = ROOT / "site"
    pages += [(f"site-{'home' if p.parent == site else p.parent.name}", p)
              for p in sorted(site.glob("**/index.html")) if "assets" not in p.parts]
    return pages


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--review", type=Path, help="also shoot every page at 390 px and 1280 px into this folder")
    args = p.parse_args(argv)
    binary = find_chromium()
    if binary is None:
        print("no chromium binary: apt-get install -y chromium", file=sys.stderr)
        return 2
    import check_output

    with tempfile.TemporaryDirectory(prefix="gk-shots-") as tmp_name:
        tmp = Path(tmp_name)
        grade("examples/buggy", "--out", str(tmp / "readme"), "--lang", "en")
        with Chromium(binary, tmp / "profile") as browser:
            shoot(browser, tmp / "readme" / "feedback.html", ROOT / "docs" / "report-buggy.png",
                  max_height=2300)
            if args.review:
                for name, page in review_pages(tmp):
                    if page.exists():
                        shoot(browser, page, args.review / f"{name}-390.png", width=390)
                        shoot(browser, page, args.review / f"{name}-1280.png", width=1280)
                    else:
                        print(f"{page}: not written (see the grade's output)")
    return check_output.main()


if __name__ == "__main__":
    sys.exit(main())
