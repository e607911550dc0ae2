"""`grade similarity DIR`: which submissions of a batch share code (MOSS-style, with copydetect).

It reads the code `grade batch` keeps beside each result (``DIR/<name>/code/``, grader/instructor/
similarity/collect.py), fingerprints it without the stubs, the lesson's code and what most of the class
shares (fingerprint.py), scores every pair and writes ``DIR/similarity.csv`` and ``DIR/similarity.html``
(report.py). `grade batch` runs it at its end unless `--no-similarity`. docs/similarity.md has the
details.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from grader.instructor.similarity.collect import read_kept, submission_code
from grader.instructor.similarity.fingerprint import Settings, compare_all, fingerprint_all
from grader.instructor.similarity.report import Outcome, write_outputs

__all__ = ["Settings", "find_submissions", "main", "run", "run_after_batch"]

MARKER = "batch.json"  # the done-marker of a batch result (grader/instructor/batch.py)


@dataclass
class Found:
    id: str
    dir: str  # the result's folder, relative to DIR (for links)
    code: dict[str, str]


def find_submissions(out: Path) -> list[Found]:
    """Every finished result of a batch (or merged) folder with its code: the copy kept beside it, or,
    for a result graded before code was kept, the submission itself when it is still where it was."""
    found: list[Found] = []
    seen: set[str] = set()
    for d in sorted(p for p in out.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            marker = json.loads((d / MARKER).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(marker, dict):
            continue
        code = read_kept(d)
        if code is None and marker.get("path"):
            code = submission_code(Path(str(marker["path"])), _graded_modules(d))
        sid = str(marker.get("student_id") or marker.get("name") or d.name)
        if sid in seen:  # two submissions of one student id (a roster slip): keep both, by folder
            sid = f"{sid} ({d.name})"
        seen.add(sid)
        found.append(Found(sid, d.name, code or {}))
    return found


def _graded_modules(result: Path) -> tuple[str, ...]:
    """The modules of the lesson a result was graded against (its results.json's ``lesson.module``), for
    reading its submission as that grade read it; none where it records none or that lesson is not here."""
    from grader.engine.lessons import load_lesson

    try:
        recorded = json.loads((result / "results.json").read_text(encoding="utf-8")).get("lesson") or {}
        return tuple(load_lesson(str(recorded["module"])).layout.modules)
    except Exception:  # noqa: BLE001 - an old or foreign result: read the submission's root
        return ()


def run(out: Path, settings: Settings | None = None, show: int = 30) -> Outcome:
    """Compare every pair of the results in ``out``; write similarity.csv and similarity.html there."""
    settings = settings or Settings()
    started = time.monotonic()
    subs = find_submissions(out)
    codes = {s.id: s.code for s in subs}
    docs, common = fingerprint_all(codes, settings)
    pairs = compare_all(docs, settings)
    outcome = Outcome(out=out, settings=settings, submissions=subs, docs=docs, pairs=pairs, common=common,
                      seconds=0.0)
    outcome.seconds = round(time.monotonic() - started, 2)
    write_outputs(outcome, show=show)
    return outcome


MISSING = ("grade similarity needs copydetect (pip install copydetect, or pip install -e . in the kit) / "
           "grade similarity에는 copydetect가 필요합니다 (pip install copydetect)")


def run_after_batch(out: Path, quiet: bool = False) -> None:
    """The end of `grade batch`: never fails the batch (its grades are written already)."""
    try:
        outcome = run(out)
    except ModuleNotFoundError as exc:
        if exc.name not in ("copydetect", "pygments"):
            raise
        print(f"grade batch: no code similarity: {MISSING}", file=sys.stderr)
        return
    except Exception as exc:  # an extra: report it and keep the batch's exit status
        print(f"grade batch: code similarity failed ({type(exc).__name__}: {exc}); run `grade similarity "
              f"{out}` again / 코드 유사도 검사가 실패했습니다. `grade similarity {out}`로 다시 실행하세요",
              file=sys.stderr)
        return
    if not quiet:
        print(outcome.line())


def build_parser() -> argparse.ArgumentParser:
    d = Settings()
    p = argparse.ArgumentParser(prog="grade similarity", description=(
        "Compare every pair of submissions' code in a `grade batch` (or `grade merge`) folder and write "
        "similarity.csv and similarity.html there. Similarity is not proof of copying. / 채점 폴더의 모든 "
        "제출물 쌍의 코드를 비교해 similarity.csv와 similarity.html을 씁니다. 유사도는 표절의 증거가 "
        "아닙니다."))
    p.add_argument("dir", type=Path, help="output folder of `grade batch` or `grade merge`")
    p.add_argument("--threshold", type=float, default=d.threshold,
                   help=f"flag pairs from this similarity, 0..1 (default {d.threshold})")
    p.add_argument("--min-tokens", type=int, default=d.min_tokens,
                   help=f"... with at least this many matched tokens (default {d.min_tokens})")
    p.add_argument("--max-share", type=float, default=d.max_share,
                   help="ignore code found in more than this share of the submissions, 0..1 "
                        f"(default {d.max_share}: what most of the class writes)")
    p.add_argument("--noise", type=int, default=d.noise,
                   help=f"shortest match counted, in copydetect's tokens (default {d.noise})")
    p.add_argument("--guarantee", type=int, default=d.guarantee,
                   help=f"matches this long are always found (default {d.guarantee})")
    p.add_argument("--boilerplate", type=Path, action="append", default=[], metavar="FILE",
                   help="more text every student was given (a handout, a hint), ignored like the lesson's "
                        "code; repeatable")
    p.add_argument("--show", type=int, default=30,
                   help="pairs shown side by side besides the flagged ones (default 30)")
    p.add_argument("-q", "--quiet", action="store_true")
    return p


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if not args.dir.is_dir():
        print(f"grade similarity: {args.dir} is not a folder / 폴더가 아닙니다", file=sys.stderr)
        return 2
    if not 0 < args.threshold <= 1 or not 0 < args.max_share <= 1 or not 0 < args.noise <= args.guarantee:
        print("grade similarity: need 0 < --threshold <= 1, 0 < --max-share <= 1 and 0 < --noise <= "
              "--guarantee / 값의 범위가 잘못되었습니다", file=sys.stderr)
        return 2
    unreadable = [str(f) for f in args.boilerplate if not f.is_file()]
    if unreadable:
        print(f"grade similarity: --boilerplate: no such file {', '.join(unreadable)} / 파일이 없습니다",
              file=sys.stderr)
        return 2
    settings = Settings(noise=args.noise, guarantee=args.guarantee, max_share=args.max_share,
                        threshold=args.threshold, min_tokens=args.min_tokens,
                        extra_boilerplate=tuple(args.boilerplate))
    try:
        outcome = run(args.dir, settings, show=args.show)
    except ValueError as exc:  # the stored lesson hashes do not fit --noise
        print(f"grade similarity: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        if exc.name not in ("copydetect", "pygments"):
            raise
        print(MISSING, file=sys.stderr)
        return 2
    if (args.dir / "summary.html").is_file():  # a batch or merged folder: its summary now links the page
        from grader.instructor.term.model import render_or_explain

        if render_or_explain(args.dir, "grade similarity") is None:
            return 2
    if not args.quiet:
        print(outcome.line())
    return 0
