"""`grade merge DIR... --out DIR`: combine shard outputs into one gradebook and summary.

Only finished submissions (a folder with a done-marker and a readable
results.json) are taken; each is copied into a private folder first and
renamed into place, like a batch does, so a merge killed halfway can simply
be run again.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import uuid
from pathlib import Path

from grader.engine.classmodel import load_manifest
from grader.instructor.batch import MANIFEST, publish, read_marker, write_json
from grader.instructor.term.errors import TermError
from grader.instructor.term.merging import conflicting_decisions, merge_term, merged_policy
from grader.instructor.term.model import render_class


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="grade merge", description=(
        "Combine the output folders of `grade batch --shard K/N` runs into one gradebook.csv and "
        "summary.html. / 샤드별 채점 결과 폴더를 하나의 성적표와 요약으로 합칩니다."))
    p.add_argument("dirs", nargs="+", type=Path, help="output folders of the shards")
    p.add_argument("--out", type=Path, required=True, help="merged output folder")
    p.add_argument("--policy", type=Path, default=None,
                   help="the late policy of the merged folder, when the shards' policies differ")
    p.add_argument("--prefer", type=Path, default=None, metavar="DIR",
                   help="which folder's review decision wins where folders (e.g. two runs of one shard) "
                        "decided differently for one student (default: refuse to merge)")
    p.add_argument("-q", "--quiet", action="store_true")
    return p


def merge(dirs: list[Path], out: Path, policy: Path | None = None,
          prefer: Path | None = None) -> tuple[int, list[str]]:
    """Copy every finished submission of ``dirs`` into ``out``; (count, warnings).  TermError, before
    anything is copied, when the shards' policies differ and ``policy`` does not choose one, or when the
    folders' review decisions for one student differ and ``prefer`` does not say which wins."""
    merged_policy(dirs, out, policy)
    refuse_conflicts([d for d in dirs if d.resolve() != out.resolve()], prefer)
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / ".work", ignore_errors=True)
    warnings: list[str] = []
    seen: dict[str, tuple[Path, str]] = {}
    roster: dict[str, str] = {}
    missing: set[str] = set()
    class_ids: set[str] = set()
    shards: list[str] = []
    for src in dirs:
        manifest = load_manifest(src)
        roster.update(manifest.get("roster") or {})
        missing.update(manifest.get("roster_missing") or [])
        class_ids.update(manifest.get("class_ids") or [])
        shards.append(str(manifest.get("shard", "?")))
        for d in sorted(p for p in src.iterdir() if p.is_dir() and not p.name.startswith(".")):
            marker = read_marker(d)
            if marker is None:
                continue
            name = str(marker.get("name", d.name))
            if name in seen:
                if seen[name][1] != marker.get("submission_hash"):
                    warnings.append(f"{name}: graded in both {seen[name][0]} and {src} from different files; "
                                    f"kept the first / 두 폴더에 서로 다른 제출물로 채점되어 첫 번째를 "
                                    f"사용합니다")
                continue
            seen[name] = (src, str(marker.get("submission_hash")))
            if d.resolve() == (out / d.name).resolve():
                continue  # merging into one of the shard folders: already in place
            work = out / ".work" / f"{d.name}.{uuid.uuid4().hex[:8]}"
            shutil.copytree(d, work)
            publish(work, out / d.name, out)
    shutil.rmtree(out / ".work", ignore_errors=True)
    manifest = {"merged_from": [str(d) for d in dirs], "shards": shards, "roster": roster,
                "roster_missing": sorted(missing - set(seen)), "names": sorted(seen),
                "class_ids": sorted(class_ids)}
    warnings += shard_coverage(shards)
    write_json(out / MANIFEST, manifest)
    # The instructor's decisions of every shard (and of the merged folder itself) survive the merge.
    warnings += merge_term(dirs, out, policy, prefer)
    return len(seen), warnings


def refuse_conflicts(dirs: list[Path], prefer: Path | None) -> None:
    """Two folders that decided one student's review, or one of a TA's checks, differently: the instructor
    says which wins."""
    if prefer is not None and not any(prefer.resolve() == d.resolve() for d in dirs):
        raise TermError(f"--prefer {prefer} is not one of the folders merged; nothing was merged",
                        f"--prefer {prefer}은(는) 합치는 폴더가 아닙니다. 아무것도 합치지 않았습니다")
    conflicts = conflicting_decisions(dirs)
    if not conflicts or prefer is not None:
        return
    lines = "; ".join(f"{who}: " + " and ".join(f"{x.decision} of {x.when} ({x.reason}) in {d}"
                                                for d, x in found)
                      for who, found in conflicts)
    raise TermError(f"the folders decided {len(conflicts)} review(s) or TA check(s) differently ({lines}); "
                    "say which folder wins with --prefer DIR; nothing was merged",
                    f"폴더마다 검토 결정(조교 확인 포함)이 다른 항목이 {len(conflicts)}개 있습니다({lines}). "
                    "--prefer DIR로 어느 폴더의 결정을 따를지 정하세요. 아무것도 합치지 않았습니다")


def shard_coverage(shards: list[str]) -> list[str]:
    """Warn when the shards given are not exactly 1/N .. N/N."""
    try:
        parts = [tuple(int(x) for x in s.split("/")) for s in shards]
    except ValueError:
        return []
    totals = {n for _, n in parts}
    if len(totals) != 1 or totals == {1}:
        return [] if totals == {1} else [f"shards of different splits: {', '.join(shards)} / 분할 수가 다른 "
                                         "샤드입니다"]
    n = totals.pop()
    have = sorted(k for k, _ in parts)
    lacking = sorted(set(range(1, n + 1)) - set(have))
    out = []
    if lacking:
        out.append(f"shards {', '.join(f'{k}/{n}' for k in lacking)} are missing from the merge / "
                   f"병합에 빠진 샤드가 있습니다")
    if len(have) != len(set(have)):
        out.append(f"the same shard appears twice: {', '.join(shards)} / 같은 샤드가 두 번 있습니다")
    return out


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    for d in args.dirs:
        if not d.is_dir():
            print(f"grade merge: {d} is not a folder / 폴더가 아닙니다", file=sys.stderr)
            return 2
    try:
        count, warnings = merge(args.dirs, args.out, args.policy, args.prefer)
        for w in warnings:
            print(f"grade merge: {w}", file=sys.stderr)
        report = render_class(args.out)
    except TermError as exc:
        print(f"grade merge: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:  # text, like every other command (class.json is the file for tools)
        print(f"merged {count} submissions from {len(args.dirs)} folders; gradebook: {report.gradebook} ; "
              f"summary: {report.summary} / 제출물 {count}개를 합쳤습니다")
    return 0
