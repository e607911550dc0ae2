"""`grade batch SUBMISSIONS_DIR --out DIR`: grade a whole class.

Each submission is graded by its own `grade` process (which runs the student's
code in its own sandboxed worker), at most ``-j`` at once, each under a wall
clock limit after which its whole process tree is killed.

Nothing is lost and nothing half-done is trusted:

* a child writes into a private folder ``DIR/.work/<name>.<nonce>/``; when it
  has finished, the batch writes ``batch.json`` (the done-marker: status,
  content hashes of the submission, of the suites and of the options) into
  that folder and renames the folder to ``DIR/<name>/`` in one step, so a
  ``DIR/<name>/`` with a ``batch.json`` is always complete;
* a rerun skips a submission whose marker matches the current hashes, and
  grades the rest; ``.work`` left by a killed run is thrown away;
* the children die with the batch (``PR_SET_PDEATHSIG``), so a SIGKILLed batch
  leaves no grader running that could write later.

The package by job: ``discovery`` (what to grade, what a rerun skips), ``roster`` (student ids, shards),
``options`` (the typed options children grade with), ``jobs`` (the job runner), ``progress``.
"""

from __future__ import annotations

import argparse
import csv
import io
import shutil
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from grader.core import seeds
from grader.engine.flags import add_grading_arguments
from grader.engine.options import UsageProblem
from grader.instructor.batch.discovery import (
    FINAL_STATUSES,
    MANIFEST,
    MARKER,
    RESERVED,
    Entry,
    discover,
    hash_tree,
    is_done,
    plan,
    read_marker,
    suites_hash,
)
from grader.instructor.batch.jobs import finish_job, hold_lock, publish, run_batch, start_job, write_json
from grader.instructor.batch.options import Config, config_from_args, default_jobs, sandbox_flags
from grader.instructor.batch.progress import Progress
from grader.instructor.batch.roster import ROSTER, Roster, RosterError, parse_shard, read_roster, shard_of
from grader.instructor.similarity import run_after_batch
from grader.instructor.term import model as term_model
from grader.instructor.term.errors import TermError
from grader.instructor.term.store import store_term_files
from grader.paths import write_atomic
from grader.report.classpages import gradebook_csv

if TYPE_CHECKING:
    from grader.instructor.batch.cluster.spec import ClusterSpec

__all__ = [
    "FINAL_STATUSES", "MANIFEST", "MARKER", "RESERVED", "Config", "Entry", "Progress", "build_parser",
    "config_from_args", "default_jobs", "discover", "finish_job", "hash_tree", "is_done", "main",
    "ROSTER", "parse_shard", "plan", "publish", "read_marker", "read_roster", "run_batch", "sandbox_flags",
    "shard_of", "start_job", "suites_hash", "write_json",
]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="grade batch", description=(
        "Grade every submission in a folder (one entry = one student) in parallel, in sandboxed workers. "
        "Rerunning skips what is done. / 폴더 안의 모든 제출물을 병렬로 채점합니다. 다시 실행하면 끝난 것은 "
        "건너뜁니다."))
    p.add_argument("submissions", type=Path, help="folder holding one folder/notebook/zip per student")
    p.add_argument("--out", type=Path, required=True,
                   help="output folder (per-student reports, gradebook.csv)")
    p.add_argument("-j", "--jobs", type=int, default=None,
                   help="submissions at once (default: cores, memory allowing)")
    p.add_argument("--force", action="store_true", help="regrade everything, even what is done")
    p.add_argument("--retry", action="store_true", help="also regrade rows that timed out or were unreadable")
    p.add_argument("--roster", type=Path,
                   help="CSV mapping submission names to student ids (kept in --out: a rerun without "
                        "--roster uses the kept one)")
    p.add_argument("--roster-column", metavar="HEADER", default=None,
                   help="the roster's column holding the submission names (default: found by header, else "
                        "by the values that match the submissions)")
    p.add_argument("--roster-partial", action="store_true",
                   help="go on when under half the roster has a submission (default: stop and say so)")
    p.add_argument("--shard", type=parse_shard, default=(1, 1), metavar="K/N",
                   help="grade only the K-th of N deterministic slices (merge them with `grade merge`)")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per submission (default 900)")
    p.add_argument("--public-only", dest="hidden", action="store_false",
                   help="run only the public suite (no --hidden)")
    add_grading_arguments(p)  # grade's own: -k, --lang, --isolation, --memory-mb, the sandbox limits
    p.add_argument("--grade-args", default="",
                   help="extra arguments for each `grade` call, e.g. '--hidden-from F'")
    p.add_argument("--spawn", action="store_true",
                   help="start each child as a fresh `python -m grader.cli` instead of forking a preloaded "
                        "one")
    p.add_argument("--policy", type=Path, default=None,
                   help="late policy (policy.toml: due, close, [late], [extensions]), applied after grading")
    p.add_argument("--submitted-at", type=Path, default=None, metavar="TIMES_CSV",
                   help="submission times: id,submitted_at (ISO 8601 with an offset); default: a Gradescope "
                        "export's submission_metadata.yml in SUBMISSIONS")
    p.add_argument("--replace-times", action="store_true",
                   help="replace every stored submission time (default: merge, the ids named are updated)")
    p.add_argument("--allow-unknown-ids", action="store_true",
                   help="store times or extensions naming ids that are not in the class (default: refuse)")
    p.add_argument("--no-similarity", action="store_true",
                   help="skip the code similarity check at the end (grade similarity DIR runs it later)")
    p.add_argument("--cluster", default=None, metavar="ADDRESS|FILE",
                   help="grade each submission on a Dask cluster: a scheduler address (tcp://host:8786) or a "
                        "cluster.toml naming one, or a Slurm/Kubernetes cluster (docs/cluster.md; needs "
                        "pip install 'pe-grader[cluster]'); each worker thread grades one submission at a "
                        "time, and -j is not used")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return p


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    src, out = args.submissions, args.out
    if not src.is_dir():
        print(f"grade batch: {src} is not a folder of submissions / 제출물 폴더가 아닙니다", file=sys.stderr)
        return 2
    try:
        config = config_from_args(args)
    except UsageProblem as exc:  # an unknown --lesson or [tool.grade] lesson
        print(f"grade batch: {exc}", file=sys.stderr)
        return 2
    cluster: ClusterSpec | None = None
    if args.cluster:  # the spec and Dask checked before anything is written
        from grader.instructor.batch.cluster import ClusterProblem, load_spec
        from grader.instructor.batch.cluster.spec import require_distributed

        try:
            require_distributed()
            cluster = load_spec(args.cluster)
        except ClusterProblem as exc:
            print(f"grade batch: {exc}", file=sys.stderr)
            return 2
    hidden_suite = any((config.options.suites_dir / "hidden").glob("test_*.py"))
    if config.options.hidden and config.archive is None and not hidden_suite:
        print("grade batch: this copy of the kit has no hidden suite; use --public-only, or run from the "
              "instructor copy / 이 키트에는 비공개 테스트가 없습니다. --public-only를 쓰거나 강사용 "
              "키트에서 실행하세요", file=sys.stderr)
        return 2
    everyone = [e for e in discover(src) if e.path.resolve() != out.resolve()]
    try:
        kept = read_roster(out / ROSTER) if (out / ROSTER).is_file() else None
        given = (read_roster(args.roster, {e.name for e in everyone}, args.roster_column)
                 if args.roster else None)
    except (OSError, RosterError) as exc:
        print(f"grade batch: --roster: {exc}", file=sys.stderr)
        return 2
    chosen = given or kept or Roster()
    if not _roster_ok(chosen, kept if given else None, {e.name for e in everyone}, args):
        return 2
    roster = chosen.ids
    for e in everyone:
        e.student_id = roster.get(e.name, e.name)
    k, n = args.shard
    entries = shard_of(everyone, k, n)
    out.mkdir(parents=True, exist_ok=True)
    seeds.use_batch_secret(out)  # no course secret given: a random one kept beside the batch (replayable)
    if not hold_lock(out):
        print(f"grade batch: another batch is writing to {out} / 다른 채점이 이미 이 폴더에 쓰고 있습니다",
              file=sys.stderr)
        return 2
    # Whatever a killed run left half-done is discarded, never read.
    for leftover in (".work", ".trash"):
        shutil.rmtree(out / leftover, ignore_errors=True)
    try:  # the term's inputs, checked whole before anything is graded (grader/instructor/term)
        known = None if args.allow_unknown_ids else (
            {k for e in everyone for k in (e.name, e.student_id)} | set(roster) | set(roster.values()))
        aliases = {str(name).casefold(): str(sid) for name, sid in roster.items()}
        aliases.update({k.casefold(): e.student_id for e in everyone for k in (e.name, e.student_id)})
        for line in store_term_files(out, args.policy, args.submitted_at, src, known=known, aliases=aliases,
                                     replace_times=args.replace_times):
            if not args.quiet:
                print(line)
    except TermError as exc:
        print(f"grade batch: {exc}", file=sys.stderr)
        return 2
    if given is not None:  # kept beside the policy, read back unambiguously as submission,id
        write_roster(out / ROSTER, roster)
    submitted = {e.name for e in everyone}
    manifest = {"source": str(src.resolve()), "shard": f"{k}/{n}", "names": sorted(e.name for e in entries),
                # the whole class, every shard's: what a times file or an extension may name
                "class_ids": sorted(known or {x for e in everyone for x in (e.name, e.student_id)}),
                "roster_missing": sorted(set(roster) - submitted), "roster": roster,
                "hidden": config.options.hidden}
    write_json(out / MANIFEST, manifest)
    todo, done = plan(entries, out, config, force=args.force, retry=args.retry)
    jobs = max(1, args.jobs or default_jobs())
    where = f"on {cluster.describe()}" if cluster is not None else f"with -j {jobs}"
    if not args.quiet:
        print(f"{len(entries)} submissions: {len(done)} already graded, {len(todo)} to grade {where} "
              f"/ 제출물 {len(entries)}개: {len(done)}개는 이미 채점됨, {len(todo)}개 채점 ({where})")
    if cluster is not None:
        markers = _on_cluster(cluster, todo, out, config, args.quiet) if todo else []
        if markers is None:
            return 2
    else:
        try:
            options = config.grade_options() if todo and not args.spawn else None
        except ValueError as exc:  # --grade-args '--hidden-from ARCHIVE' that cannot be opened
            print(f"grade batch: --hidden-from: {exc}", file=sys.stderr)
            return 2
        markers = run_batch(todo, out, config, jobs, args.quiet, fork=not args.spawn, options=options,
                            on_done=GrowingGradebook(out))
    if not args.no_similarity:  # before the summary, which links to similarity.html
        run_after_batch(out, quiet=args.quiet)
    book = term_model.render_or_explain(out, "grade batch")  # the class pages, final totals: one call
    if book is None:
        return 2
    if not args.quiet:
        failed = sum(m["status"] != "graded" for m in markers)
        print(f"graded {len(markers)} now ({failed} not graded normally); gradebook: {book.gradebook} ; "
              f"summary: {book.summary} / 이번에 {len(markers)}개 채점 (정상 채점 아님 {failed}개)")
    return 0


def _roster_ok(roster: Roster, kept: Roster | None, names: set[str], args: argparse.Namespace) -> bool:
    """Say how many submissions the roster matched (every run), what a new roster changes against the
    kept one (before anything is graded or rendered); False (said why) when under half the roster
    matched and --roster-partial was not given."""
    if not roster.ids:
        return True
    if not args.quiet:
        print(roster.said(names) + (f" (the roster kept in {args.out / ROSTER})" if not args.roster else ""))
    if kept is not None and kept.ids != roster.ids:
        changed = sorted(n for n in set(kept.ids) | set(roster.ids) if kept.ids.get(n) != roster.ids.get(n))
        shown = ", ".join(f"{n}: {kept.ids.get(n, '-')} -> {roster.ids.get(n, '-')}" for n in changed[:10])
        print(f"grade batch: the new --roster changes {len(changed)} student(s) of the kept one ({shown}"
              f"{' …' if len(changed) > 10 else ''}); a decision or time recorded under an old id no "
              "longer finds its student (the summary lists it) / 새 명단이 기존 명단의 "
              f"{len(changed)}명을 바꿉니다. 이전 id로 기록된 결정과 시각은 학생을 찾지 못합니다",
              file=sys.stderr)
    matched = roster.matched(names)
    if 2 * matched < len(roster.ids) and args.roster_partial:  # going on knowingly, never quietly
        print(f"grade batch: only {matched} of the roster's {len(roster.ids)} students matched a submission "
              f"(--roster-partial: going on) / 명단 {len(roster.ids)}명 중 {matched}명만 제출물과 맞습니다",
              file=sys.stderr)
    elif 2 * matched < len(roster.ids):
        print(f"grade batch: only {matched} of the roster's {len(roster.ids)} students matched a submission "
              f"(submission column {roster.submission_column!r}): a wrong column? name it with "
              "--roster-column HEADER, or go on with --roster-partial; nothing was graded / 명단 "
              f"{len(roster.ids)}명 중 {matched}명만 제출물과 맞습니다. --roster-column으로 열을 "
              "알려 주거나 --roster-partial로 계속하세요. 아무것도 채점하지 않았습니다", file=sys.stderr)
        return False
    return True


def write_roster(path: Path, ids: dict[str, str]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["submission", "id"])
    w.writerows(sorted(ids.items()))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, buf.getvalue())


class GrowingGradebook:
    """Rewrites ``gradebook.csv`` as submissions finish, at most every ``every`` seconds, so an instructor
    can read it while a long batch runs (the pages and summary are written once, when it ends)."""

    def __init__(self, out: Path, every: float = 20.0) -> None:
        self.out, self.every, self.last = out, every, time.monotonic()

    def __call__(self) -> None:
        if time.monotonic() - self.last < self.every:
            return
        self.last = time.monotonic()
        try:
            book = gradebook_csv(term_model.load_class(self.out))
            write_atomic(self.out / "gradebook.csv", book, encoding="utf-8-sig")
        except Exception as exc:  # noqa: BLE001 -- a partial gradebook must never stop the batch
            print(f"grade batch: the gradebook so far could not be written ({type(exc).__name__}: {exc})",
                  file=sys.stderr)


def _on_cluster(cluster: ClusterSpec, todo: list[tuple[Entry, str]], out: Path, config: Config,
                quiet: bool) -> list[dict] | None:
    """The markers of a cluster batch (grader/instructor/batch/cluster), or None after its one line."""
    from grader.instructor.batch.cluster import ClusterProblem
    from grader.instructor.batch.cluster.run import grade_on_cluster

    try:
        return grade_on_cluster(cluster, todo, out, config, quiet)
    except ClusterProblem as exc:
        print(f"grade batch: {exc}", file=sys.stderr)
        return None
