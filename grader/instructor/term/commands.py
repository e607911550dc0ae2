"""`grade adjust`, `grade review` and `grade term`: the instructor's decisions, recorded, then the class
re-rendered from the model (no regrade).  Every refusal is one line in both languages and exit 2."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grader.engine.classmodel import ClassModel, Row, load_graded
from grader.instructor.term.decide import (
    add_adjustment,
    confirm_adjustments,
    decide_check,
    decide_flag,
    decide_pair,
    flagged_pairs,
    one_line,
    pair_rows,
    reason_of,
    the_pair,
    withdraw_adjustment,
    withdraw_decision,
)
from grader.instructor.term.errors import TermError
from grader.instructor.term.model import check_decision, load_class, render_class
from grader.instructor.term.records import (
    PAIR_REVIEWS,
    REVIEWS,
    Adjustment,
    Decision,
    latest_checks,
    latest_decisions,
    now,
    read_pair_reviews,
    read_reviews,
)
from grader.instructor.term.steps import drift
from grader.instructor.term.store import require_batch_folder, store_term_files, unless_batch_running


def _fail(prog: str, exc: TermError) -> int:
    print(f"{prog}: {exc}", file=sys.stderr)
    return 2


def _row(model: ClassModel, key: str, missing_ok: bool = False) -> Row:
    """The student ``key``; a roster student with nothing submitted only where ``missing_ok`` (a score
    set or an excusal: nothing else applies to no submission)."""
    row = model.row(key)
    if row is None or (row.status == "missing" and not missing_ok):
        raise TermError(f"no submission with id or name {key!r} in {model.out}",
                        f"{model.out}에 id나 이름이 {key!r}인 제출물이 없습니다")
    return row


def _reason(text: str | None) -> str:
    return reason_of(text)


def _rerender(out: Path, prog: str, quiet: bool) -> None:
    with unless_batch_running(out) as free:
        if not free:
            print(f"{prog}: a batch is writing {out}; it renders the gradebook with this when it ends / "
                  f"채점이 진행 중이라 끝날 때 이 내용으로 성적표를 씁니다", file=sys.stderr)
            return
        report = render_class(out)
    if not quiet:
        print(f"gradebook: {report.gradebook} ; summary: {report.summary}")


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise TermError(f"{what} must be a number, found {text!r}",
                        f"{what}는 수여야 합니다: {text!r}") from None
    if value != value or abs(value) > 1e6:
        raise TermError(f"{what} {text!r} is not a usable number",
                        f"{what} {text!r}은(는) 쓸 수 없는 수입니다")
    return value


def _adjustment(args: argparse.Namespace, row: Row) -> Adjustment:
    """The row adjustments.csv gains: points (or a bonus above the maximum), a set score, an excusal."""
    reason = _reason(args.reason)
    if args.excuse:
        kind, points = "excused", 0.0
    elif args.set is not None:
        kind, points = "set", _number(args.set, "--set VALUE")
        if points < 0:
            raise TermError("--set VALUE must be 0 or more", "--set VALUE는 0 이상이어야 합니다")
    elif args.points is not None:
        kind, points = ("bonus" if args.above_max else "points"), _number(args.points, "POINTS")
        if kind == "bonus" and points <= 0:
            raise TermError("--above-max takes a positive bonus", "--above-max에는 양수 가산점을 주세요")
    else:
        raise TermError("give POINTS, --set VALUE, --excuse or --confirm",
                        "POINTS, --set VALUE, --excuse, --confirm 중 하나를 주세요")
    return Adjustment(row.id, args.task, points, reason, now(precise=True), kind, one_line(args.note),
                      row.hash, one_line(args.ta))


def adjust_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="grade adjust", description=(
        "Record an instructor adjustment in DIR/adjustments.csv and re-render the gradebook (no regrade). / "
        "강사 점수 조정을 기록하고 성적표를 다시 씁니다(재채점 없음)."))
    p.add_argument("dir", type=Path, help="the folder `grade batch` or `grade merge` wrote")
    p.add_argument("id", help="the student's id or submission name")
    p.add_argument("points", nargs="?", help="points to add (negative to take away), e.g. 1.5 or -2")
    p.add_argument("--reason", help="why (shown to the student), e.g. 'regrade request'")
    p.add_argument("--task", default="", help="the task it concerns (optional)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--above-max", action="store_true",
                       help="a bonus: POINTS may take the total above the maximum")
    which.add_argument("--set", metavar="VALUE", help="set the total to VALUE (overrides the close date too)")
    which.add_argument("--excuse", action="store_true",
                       help="excuse the student: the total counts as excused")
    which.add_argument("--confirm", action="store_true",
                       help="confirm the student's adjustments made on an earlier version of the submission")
    which.add_argument("--withdraw", nargs="?", const="last", metavar="WHEN",
                       help="undo the student's adjustment made at WHEN (its time in the gradebook's note or "
                            "adjustments.csv; default: the latest that counts); recorded for the instructor, "
                            "never shown to the student as a correction")
    p.add_argument("--note", default="",
                   help="a private note for the instructor (never shown to the student)")
    p.add_argument("--ta", default="", metavar="NAME",
                   help="who decides (recorded beside the decision, for the instructor; never shown to the "
                        "student)")
    p.add_argument("-q", "--quiet", action="store_true")
    args = p.parse_args(argv)
    try:
        require_batch_folder(args.dir)
        model = load_class(args.dir)
        row = _row(model, args.id, missing_ok=bool(args.excuse or args.set is not None or args.withdraw))
        if args.withdraw is not None:
            if args.points is not None:
                raise TermError("--withdraw takes no POINTS", "--withdraw에는 POINTS를 주지 않습니다")
            return _withdraw_adjustment(args, row)
        if args.confirm:
            moved = confirm_adjustments(args.dir, row)
            _rerender(args.dir, "grade adjust", args.quiet)
            if not args.quiet:
                print(f"{row.id}: {moved} adjustment(s) confirmed on the current submission / "
                      f"조정 {moved}건을 현재 제출물에 대해 확인")
            return 0
        if args.points is not None and (args.set is not None or args.excuse):
            raise TermError("give POINTS or --set/--excuse, not both",
                            "POINTS와 --set/--excuse 중 하나만 주세요")
        if args.task and args.task not in row.task_max:
            known = ", ".join(row.task_max) or "-"
            raise TermError(f"{row.id} has no task {args.task!r} (its tasks: {known})",
                            f"{row.id}에는 {args.task!r} 과제가 없습니다")
        adj = _adjustment(args, row)
        before = row.total
        add_adjustment(args.dir, adj, row)
        after = _row(load_class(args.dir), row.id, missing_ok=True)
        _rerender(args.dir, "grade adjust", args.quiet)
    except TermError as exc:
        return _fail("grade adjust", exc)
    what = {"excused": "excusal", "set": f"score set to {adj.points:g}",
            "bonus": f"bonus {adj.points:+g}"}.get(adj.kind, f"adjustment {adj.points:+g}")
    if not args.quiet:
        shown = "excused" if after.excused else f"{after.total:g}"
        print(f"{row.id}: {what} recorded; total {before:g} -> {shown} of {after.max:g} / 기록됨: 총점 "
              f"{before:g} -> {shown}")
    clamps = [s for s in after.steps if s.kind == "clamp"]
    if clamps and adj.kind in ("points", "bonus"):  # never silent: say what held the total, and the way out
        print(f"grade adjust: {row.id}: {clamps[-1].en}; to go past it use --above-max (a bonus), --set "
              f"VALUE or --excuse / {clamps[-1].ko}. --above-max, --set, --excuse로 넘을 수 있습니다",
              file=sys.stderr)
    return 0


def _withdraw_adjustment(args: argparse.Namespace, row: Row) -> int:
    """Undo one of the student's adjustments: a ``withdrawn`` row naming it (by its time) is appended, so
    the file keeps both; the total is as if it had never been made."""
    target = withdraw_adjustment(args.dir, row, args.withdraw, args.reason, args.note, args.ta)
    before = "excused" if row.excused else f"{row.total:g}"
    after = _row(load_class(args.dir), row.id, missing_ok=True)
    _rerender(args.dir, "grade adjust", args.quiet)
    if not args.quiet:
        shown = "excused" if after.excused else f"{after.total:g}"
        print(f"{row.id}: withdrew the {target.kind} {target.points:g} of {target.when} ({target.reason}); "
              f"total {before} -> {shown} of {after.max:g} / 조정을 철회했습니다: 총점 {before} -> "
              f"{shown}")
    return 0


def review_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="grade review", description=(
        "One queue for the instructor: the submissions the tamper scan flagged, and the checks a lesson "
        "passed only provisionally because its reader was not sure (a TA reads them). Without an ID, list "
        "both; with one, record a decision: --accept restores the points withheld from the verdicts "
        "already recorded, --reject keeps them withheld; --check KEY --confirm keeps a provisional check's "
        "points, --take takes them. A decision holds for the content it judged: a regrade of other code "
        "(or a changed part, for a check) makes it pending again. / 검토 대상(표시된 제출물, 조교가 읽을 "
        "확인 항목)을 보이거나 하나에 대한 결정을 기록합니다."))
    p.add_argument("dir", type=Path)
    p.add_argument("id", nargs="?", help="the student's id or submission name (omit to list)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--accept", action="store_true",
                       help="restore the withheld points the recorded verdicts earned (no regrade)")
    which.add_argument("--reject", action="store_true", help="keep them withheld")
    which.add_argument("--confirm", action="store_true",
                       help="with --check: the provisional check stands, its points stay")
    which.add_argument("--take", action="store_true",
                       help="with --check: take the points the provisional check's tests earned")
    which.add_argument("--clear", action="store_true",
                       help="with --pair: the similar pair needs nothing more (the instructor's record only)")
    which.add_argument("--refer", action="store_true",
                       help="with --pair: the similar pair is taken further (the instructor's record only)")
    which.add_argument("--withdraw", action="store_true",
                       help="undo the decision that counts (the flag's, or with --check one check's): "
                            "pending again, as if never decided; recorded for the instructor, not shown as a "
                            "correction")
    p.add_argument("--check", metavar="KEY",
                   help="the provisional check decided (its key, as the list shows; may be left out when the "
                        "student has only one)")
    p.add_argument("--pair", metavar="OTHER",
                   help="the other student of a pair `grade similarity` flagged (with --clear or --refer)")
    p.add_argument("--reason", help="why (shown to the student)")
    p.add_argument("--note", default="",
                   help="a private note for the instructor (never shown to the student)")
    p.add_argument("--ta", default="", metavar="NAME",
                   help="who decides (recorded beside the decision, for the instructor; never shown to the "
                        "student)")
    p.add_argument("-q", "--quiet", action="store_true")
    args = p.parse_args(argv)
    try:
        require_batch_folder(args.dir)
        model = load_class(args.dir)
        decided = (args.accept or args.reject or args.confirm or args.take or args.clear or args.refer
                   or args.withdraw)
        if args.id is None:
            if decided or args.check or args.pair:
                raise TermError("a decision needs an ID", "결정에는 ID가 필요합니다")
            return list_reviews(model)
        if not decided:
            raise TermError("give --accept or --reject (a flagged submission), or --confirm or --take (a "
                            "provisional check), and --reason",
                            "--accept나 --reject(표시된 제출물), --confirm이나 --take(확인 항목)와 "
                            "--reason을 주세요")
        if args.pair or args.clear or args.refer:
            if not (args.pair and (args.clear or args.refer)):
                raise TermError("--pair OTHER goes with --clear or --refer",
                                "--pair는 --clear나 --refer와 씁니다")
            pair = the_pair(args.dir, args.id, args.pair)
            decide_pair(args.dir, pair, "clear" if args.clear else "refer", args.reason, args.note, args.ta)
            if not args.quiet:
                print(f"{pair['a']} / {pair['b']}: {'cleared' if args.clear else 'referred'} / 기록됨")
            return 0
        row = _row(model, args.id)
        if args.withdraw:
            return _withdraw_decision(args, row)
        if args.confirm or args.take:
            return _decide_check(args, row)
        if args.check:
            raise TermError("--check goes with --confirm or --take",
                            "--check는 --confirm이나 --take와 씁니다")
        decision = "accept" if args.accept else "reject"
        earlier = decide_flag(args.dir, row, decision, args.reason, args.note, args.ta)
        _rerender(args.dir, "grade review", args.quiet)
    except TermError as exc:
        return _fail("grade review", exc)
    if earlier is not None and earlier.decision != decision:  # accept then reject (or back): said
        print(f"grade review: {row.id}: this {decision} overrides the {earlier.decision} of {earlier.when} "
              f"({earlier.reason}) / 이 결정이 {earlier.when}의 이전 결정({earlier.decision})을 대신합니다",
              file=sys.stderr)
    if not args.quiet:
        restored, held = row.review.withheld_points, row.review.held_points
        if args.accept:
            print(f"{row.id}: accepted; {restored:g} of {held:g} withheld points restored from the recorded "
                  f"verdicts / 승인: 보류 {held:g}점 중 기록된 판정으로 {restored:g}점 복원")
        else:
            print(f"{row.id}: rejected; {held:g} withheld points stay withheld / 거부: 보류 {held:g}점 유지")
    return 0


def _withdraw_decision(args: argparse.Namespace, row: Row) -> int:
    """Undo the review decision that counts (or a TA's on one check): a ``withdraw`` row is appended."""
    key, earlier = withdraw_decision(args.dir, row, args.check, args.reason, args.note, args.ta)
    _rerender(args.dir, "grade review", args.quiet)
    if not args.quiet:
        after = _row(load_class(args.dir), row.id)
        what = f"{key} " if key else ""
        print(f"{row.id}: {what}withdrew the {earlier.decision} of {earlier.when} ({earlier.reason}); "
              f"pending again; total {row.total:g} -> {after.total:g} / 결정을 철회했습니다. 다시 결정 대기")
    return 0


def _decide_check(args: argparse.Namespace, row: Row) -> int:
    """Record a TA's decision on one provisional check, bound to the content it judged (its hash)."""
    decision = "take" if args.take else "confirm"
    check, earlier = decide_check(args.dir, row, args.check, decision, args.reason, args.note, args.ta)
    _rerender(args.dir, "grade review", args.quiet)
    if earlier is not None and earlier.decision != decision:
        print(f"grade review: {row.id} {check['key']}: this {decision} overrides the {earlier.decision} of "
              f"{earlier.when} ({earlier.reason}) / 이 결정이 이전 결정({earlier.decision})을 대신합니다",
              file=sys.stderr)
    if not args.quiet:
        after = _row(load_class(args.dir), row.id)
        done = "confirmed" if decision == "confirm" else "points taken"
        print(f"{row.id} {check['key']}: {done}; total {row.total:g} -> {after.total:g} of "
              f"{after.max:g} / {'확인' if decision == 'confirm' else '감점'}: 총점 {row.total:g} -> "
              f"{after.total:g}")
    return 0


def _decision_for(decisions: dict[str, Decision], row: Row) -> Decision | None:
    return decisions.get(row.id.casefold()) or decisions.get(row.name.casefold())


def list_reviews(model: ClassModel) -> int:
    """The one queue: flagged submissions, then every provisional check with what its reader saw."""
    flagged = [r for r in model.rows if r.review.flagged]
    checked = [r for r in model.rows if r.checks]
    reviews = read_reviews(model.out / REVIEWS)
    decisions, checks = latest_decisions(reviews), latest_checks(reviews)
    pairs = flagged_pairs(model.out)
    if not flagged and not checked and not pairs:
        print("No submission is flagged for review and no check waits for a TA / 검토 대상 제출물도, "
              "조교가 읽을 확인 항목도 없습니다")
        return 0
    for r in flagged:
        d = _decision_for(decisions, r)
        changed = drift(r, d) if d is not None else None
        if d is None:
            state = "pending / 결정 대기"
        elif changed:
            state = (f"pending again: {d.decision}ed on {d.when} ({d.reason}), but {changed.words()} / "
                     "다른 버전에 대한 결정이라 다시 결정 대기")
        else:
            by = f" (by {d.ta})" if d.ta else ""
            state = f"{d.decision}ed{by}: {d.reason} / {'승인' if d.decision == 'accept' else '거부'}"
        tests = len(r.review.withheld_tests)
        held, restorable = r.review.held_points, r.review.withheld_points
        print(f"{_who(r)}: {held:g} points withheld in {tests} test{'s' if tests != 1 else ''}; "
              f"the recorded verdicts would restore {restorable:g} of {held:g} / "
              f"보류 {held:g}점(테스트 {tests}개), 기록된 판정으로 복원될 점수 {held:g}점 중 "
              f"{restorable:g}점 — {state}")
        for x in r.review.reasons:
            print(f"    {x.get('en', '')}")
            print(f"    {x.get('ko', '')}")
    for r in checked:
        for c in r.checks:
            d = check_decision(checks, r, str(c["key"]))
            if d is None:
                state = "pending / 결정 대기"
            elif d.hash and d.hash != c.get("hash"):
                state = (f"pending again: {d.decision} on {d.when} ({d.reason}) judged an earlier version of "
                         "this part / 이전 버전에 대한 결정이라 다시 결정 대기")
            else:
                word = ("confirmed", "확인") if d.decision == "confirm" else ("taken", "감점")
                by = f" (by {d.ta})" if d.ta else ""
                state = f"{word[0]}{by}: {d.reason} / {word[1]}"
            where = f" ({c['document']}, line {c['line']})" if c.get("document") and c.get("line") else ""
            pts = float(c.get("points") or 0)
            print(f"{_who(r)}: check {c['key']} of {c.get('task', '?')}{where}: {pts:g} points passed "
                  f"provisionally, a TA reads it / 조교 확인 항목, 잠정 {pts:g}점 — {state}")
            print(f"    {c.get('en', '')}")
            print(f"    {c.get('ko', '')}")
            for line in str(c.get("saw") or "").splitlines():
                print(f"    | {line}")
            print(f"    decide: grade review {model.out} {r.id} --check {c['key']} --confirm|--take "
                  "--reason TEXT")
    outcomes = read_pair_reviews(model.out / PAIR_REVIEWS)
    for p in pairs:
        done = pair_rows(outcomes, p["a"], p["b"])
        if not done:
            state = "pending / 결정 대기"
        else:
            last = done[-1]
            by = f" (by {last.ta})" if last.ta else ""
            again = " — pending again, the similarity changed" if last.similarity != p["similarity"] else ""
            state = f"{last.decision}{by}: {last.reason}{again}"
        print(f"{p['a']} / {p['b']}: similar code (similarity {p['similarity']}, {p['matched_tokens']} "
              f"matched tokens) / 유사한 코드 — {state}")
    return 0


def _who(r: Row) -> str:
    return f"{r.id} ({r.name})" if r.name != r.id else r.id


def class_ids(model: ClassModel) -> set[str]:
    """Whom a times file or an extension may name: every id and submission name of the class, those
    of the other shards too (the manifest's ``class_ids``) and the roster's."""
    roster = model.manifest.get("roster") or {}
    return ({k for r in model.rows for k in (r.id, r.name)} | set(model.manifest.get("class_ids") or [])
            | set(roster) | set(roster.values()))


def class_aliases(model: ClassModel) -> dict[str, str]:
    """Each student's names, folded, to their one id: the submission name and the roster's."""
    roster = model.manifest.get("roster") or {}
    aliases = {str(name).casefold(): str(sid) for name, sid in roster.items()}
    aliases.update({k.casefold(): r.id for r in model.rows for k in (r.id, r.name)})
    return aliases


def term_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="grade term", description=(
        "Set or change a graded folder's late policy and submission times, then re-render the gradebook, "
        "summary and each student's final total (no regrade). / 채점된 폴더의 지각 규정과 제출 시각을 "
        "바꾸고 성적표를 다시 씁니다(재채점 없음)."))
    p.add_argument("dir", type=Path)
    p.add_argument("--policy", type=Path, help="policy.toml (due, close, [late], [extensions])")
    p.add_argument("--submitted-at", type=Path, help="times.csv: id,submitted_at (ISO 8601 with an offset)")
    p.add_argument("--gradescope-export", type=Path, default=None,
                   help="a Gradescope export folder holding submission_metadata.yml (for the times)")
    p.add_argument("--replace-times", action="store_true",
                   help="replace every stored submission time (default: merge, the ids named are updated)")
    p.add_argument("--allow-unknown-ids", action="store_true",
                   help="store times or extensions naming ids that are not in the class (default: refuse)")
    p.add_argument("-q", "--quiet", action="store_true")
    args = p.parse_args(argv)
    try:
        require_batch_folder(args.dir)
        with unless_batch_running(args.dir) as free:
            if not free:
                raise TermError(f"a batch is writing {args.dir}; run this when it ends",
                                "채점이 진행 중입니다. 끝난 뒤에 실행하세요")
            model = load_graded(args.dir)
            known = None if args.allow_unknown_ids else class_ids(model)
            for line in store_term_files(args.dir, args.policy, args.submitted_at, args.gradescope_export,
                                         known=known, aliases=class_aliases(model),
                                         replace_times=args.replace_times):
                if not args.quiet:
                    print(line)
            report = render_class(args.dir)
    except TermError as exc:
        return _fail("grade term", exc)
    if not args.quiet:
        print(f"gradebook: {report.gradebook} ; summary: {report.summary}")
    return 0
