"""`grade export canvas|moodle BATCH_DIR ...`: a batch's totals as a file the LMS imports as is.

Canvas (its gradebook importer, ``GradebookImporter#header?``): the first header
must contain "Student", the second "ID", and the student columns end with
"Section" (SIS User ID, SIS Login ID, Integration ID and Root Account may sit
between them). Every later column is an assignment, except Canvas's computed
totals; a row whose first cell contains "Points Possible" holds the points.
So the export starts from the gradebook the instructor downloaded from Canvas,
keeps its student columns and rows, and adds exactly one assignment column.

Moodle (grade/import/csv): one header row, one row per student, an identifier
column that it maps to a user field (email address, username or ID number) and
one column per grade item, numbers with a point. We write ``email``/``username``/
``idnumber`` columns from Canvas-like fields or the batch roster and one grade
column named after the grade item.

Matching a Canvas or Moodle student to a graded submission tries, in order,
SIS Login ID, SIS User ID, Canvas ID (Moodle: username, email, idnumber) against
the batch's roster id and submission name, case-insensitively. Students without
a submission and submissions without a student are listed on stderr and in
``FILE.unmatched.csv``; neither is ever dropped silently.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from grader.engine.classmodel import ClassModel
from grader.instructor.term.errors import TermError
from grader.instructor.term.model import load_class
from grader.paths import write_atomic

CANVAS_KEYS = ("SIS Login ID", "SIS User ID", "ID")
ANYWAY = ("send even while a submission could not be graded (sent as 0), a review or a TA's log part is "
          "pending, a submission time is unknown under the late policy, the points possible differ, or a "
          "total is above Moodle's maximum (each listed)")
MOODLE_KEYS = ("username", "email", "idnumber")


@dataclass
class Matched:
    rows: list[dict] = field(default_factory=list)  # LMS row + "score" ("" when the student sent nothing)
    students_without_submission: list[str] = field(default_factory=list)
    submissions_without_student: list[str] = field(default_factory=list)


def _norm(value: object) -> str:
    return str(value or "").strip().lstrip("'").casefold()


def _fmt(score: float) -> str:
    return f"{round(float(score), 2):g}"


def _shown(score: dict) -> str:
    """The total as sent: ``EX`` for an excused student (Canvas's import takes it), else the number."""
    return "EX" if score.get("excused") else _fmt(score["score"])


def batch_scores(model: ClassModel) -> list[dict]:
    """name, id, status, final total, max and the steps to it of each submission of the class model."""
    return [{"name": r.name, "id": r.id, "status": r.status, "score": r.total, "max": r.max,
             "auto": r.auto, "excused": r.excused, "steps_en": "; ".join(s.en for s in r.steps),
             "steps_ko": "; ".join(s.ko for s in r.steps),
             # a roster student who sent nothing has a total only when the instructor gave one (set, excused)
             "decided": any(s.kind in ("set", "excused") for s in r.steps),
             "pending": any(s.kind == "pending" for s in r.steps),
             "pending_checks": [str(c["key"]) for c in r.checks if str(c["key"]) not in r.decided
                                or r.decided[str(c["key"])].get("decision") == "void"],
             "unknown_time": any(s.kind == "unknown_time" for s in r.steps)} for r in model.rows]


# What each status the kit could not grade means, in both languages: none of them is a score.
UNGRADED_WORDS = {
    "timeout": ("the grade ran out of time", "채점 시간이 초과되었습니다"),
    "unreadable": ("the submission could not be read", "제출물을 읽을 수 없었습니다"),
    "error": ("the grader itself failed", "채점기 자체가 실패했습니다"),
}


def unsendable(scores: list[dict], batch: Path | None = None) -> list[str]:
    """Why each total is not final yet, one bilingual line per student: a submission the kit could not
    grade (a timeout, an unreadable submission, a crashed grade: 0 would not be a score), a review still
    pending (its points withheld) or a submission time unknown under the late policy (no penalty applied)."""
    out = []
    retry = f"grade batch SUBMISSIONS --out {batch} --retry" if batch else "grade batch ... --retry"
    where = str(batch) if batch else "DIR"
    for s in scores:
        who = f"{s['id']} ({s['name']})" if s["id"] != s["name"] else s["id"]
        if s["status"] not in ("graded", "missing"):
            en, ko = UNGRADED_WORDS.get(s["status"], ("it was not graded", "채점되지 않았습니다"))
            out.append(f"{who}: status {s['status']}: {en}, so it has no total (exported as 0 only with "
                       f"--send-anyway); grade it again with `{retry}` / 상태 {s['status']}: {ko}. 총점이 "
                       f"없습니다(--send-anyway일 때만 0으로 내보냄). `{retry}`로 다시 채점하세요")
        if s["pending"]:
            out.append(f"{who}: review pending, its withheld points are not in the total; decide with `grade "
                       f"review {where} {s['id']} --accept|--reject --reason TEXT` / 검토 결정 대기: 보류된 "
                       "점수가 총점에 없습니다")
        for key in s.get("pending_checks") or []:
            out.append(f"{who}: a TA has not decided the log part {key} (its points are provisional); "
                       f"decide with `grade review {where} {s['id']} --check {key} --confirm|--take --reason "
                       f"TEXT` / 조교가 아직 {key} 부분을 결정하지 않았습니다(점수가 잠정적입니다)")
        if s["unknown_time"]:
            out.append(f"{who}: submission time unknown, the late policy was not applied; give it with "
                       f"`grade term {where} --submitted-at TIMES.csv` / 제출 시각을 몰라 지각 규정을 "
                       "적용하지 못했습니다")
    return out


def above_maximum(scores: list[dict]) -> list[str]:
    """Totals above the maximum (a bonus, a set score): Moodle's CSV import does not take a grade above the
    grade item's maximum, so each is a blocker until the item allows it."""
    return [f"{s['id']}: total {_fmt(s['score'])} is above the maximum {_fmt(s['max'])} (a bonus or a set "
            "score); raise the grade item's maximum in Moodle (Grades > Setup), then rerun with "
            f"--send-anyway / 총점 {_fmt(s['score'])}점이 만점 {_fmt(s['max'])}점을 넘습니다. Moodle에서 "
            "성적 항목의 최고 점수를 올린 뒤 --send-anyway로 다시 실행하세요"
            for s in scores if not s["excused"] and s["max"] and s["score"] > s["max"] + 1e-9]


def steps_csv(scores: list[dict]) -> str | None:
    """Beside a Canvas import (whose CSV takes scores only): each total's steps, both languages."""
    stepped = [s for s in scores if s["steps_en"]]
    if not stepped:
        return None
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["id", "submission", "auto", "total", "steps", "steps_ko"])
    for s in stepped:
        w.writerow([s["id"], s["name"], _fmt(s["auto"]), _shown(s), s["steps_en"], s["steps_ko"]])
    return buf.getvalue()


def match(lms_rows: list[dict], keys: tuple[str, ...], scores: list[dict], label: str) -> Matched:
    """Pair each LMS student with at most one submission and each submission with at most one student."""
    index: dict[str, int] = {}
    for i, s in enumerate(scores):
        for k in (s["id"], s["name"]):
            if _norm(k):
                index.setdefault(_norm(k), i)
    used: set[int] = set()
    result = Matched()
    for row in lms_rows:
        hit = next((index[_norm(row.get(k))] for k in keys if _norm(row.get(k)) in index
                    and index[_norm(row.get(k))] not in used), None)
        if hit is None:
            result.rows.append(dict(row, score=""))
            result.students_without_submission.append(label_of(row, label))
            continue
        used.add(hit)
        s = scores[hit]
        # a graded submission gets its total; a submission that could not be graded gets 0 (and is listed)
        result.rows.append(dict(row, score=_shown(s), feedback=_feedback(s)))
        if s["status"] not in ("graded", "missing"):
            result.submissions_without_student.append(f"{s['name']} ({s['id']}): status {s['status']}, "
                                                      "not graded, exported as 0 (--send-anyway)")
        if s["status"] == "missing" and not s["decided"]:
            result.rows[-1]["score"] = ""
            result.students_without_submission.append(label_of(row, label))
    for i, s in enumerate(scores):
        if i not in used and s["status"] != "missing":
            result.submissions_without_student.append(f"{s['name']} ({s['id']}): {_fmt(s['score'])}")
    return result


def _feedback(score: dict) -> str:
    return f"{score['steps_en']} / {score['steps_ko']}" if score.get("steps_en") else ""


def label_of(row: dict, first: str) -> str:
    return " / ".join(str(row.get(k) or "") for k in (first, *CANVAS_KEYS, *MOODLE_KEYS) if row.get(k))


# -- Canvas --------------------------------------------------------------------------------


def read_canvas(path: Path) -> tuple[list[str], list[str], list[dict], list[str] | None]:
    """(student header columns, all headers, student rows, the Points Possible row) of a Canvas export."""
    text = path.read_text(encoding="utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise ValueError(f"{path}: empty file")
    header = [h.strip() for h in rows[0]]
    if not (len(header) > 3 and "Student" in header[0] and "ID" in header[1]):
        raise ValueError(f"{path}: not a Canvas gradebook export (its first columns must be Student, ID, "
                         f"..., Section; found {', '.join(header[:5])})")
    if "Section" not in header:
        raise ValueError(f"{path}: no Section column: Canvas's importer ends the student columns there")
    student_cols = header[: header.index("Section") + 1]
    points = None
    students = []
    for raw in rows[1:]:
        if not raw or all(not c.strip() for c in raw):
            continue
        if "Points Possible" in raw[0]:
            points = raw
            continue
        if all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", c, re.I) for c in raw):
            continue
        students.append({h: (raw[i] if i < len(raw) else "") for i, h in enumerate(header)})
    return student_cols, header, students, points


def find_canvas_column(header: list[str], title: str) -> str | None:
    """The export's column for assignment ``title``: "Title" or "Title (12345)"."""
    for h in header:
        if h == title or re.fullmatch(re.escape(title) + r"\s*\(\d+\)", h):
            return h
    return None


class PointsDiffer(ValueError):
    """Canvas's points possible are not the kit's and --scale was not given: nothing is written."""


def canvas_csv(gradebook: Path, title: str, scores: list[dict], *, scale: bool = False,
               anyway: bool = False) -> tuple[str, Matched, list[str]]:
    """The importable CSV, the matching, and notes for the instructor (bilingual).

    The "Points Possible" row keeps Canvas's own value for an existing assignment (the
    importer would otherwise change the assignment's points); a new one gets the kit's.
    Raises PointsDiffer when they differ, unless ``scale`` (convert) or ``anyway`` (send as is).
    """
    student_cols, header, students, points = read_canvas(gradebook)
    column = find_canvas_column(header, title)
    notes = []
    full = max((s["max"] for s in scores), default=0.0)
    possible = full
    if column is None:
        column = title
        notes.append(f"'{title}' is not a column of {gradebook.name}: Canvas will create a new assignment of "
                     "that name. Use the assignment's column header from the export to update an existing "
                     f"one. / '{title}'은(는) {gradebook.name}의 열이 아니라 Canvas가 새 과제를 만듭니다. "
                     "기존 과제를 고치려면 내보낸 파일의 열 머리글을 그대로 쓰세요.")
    elif points is not None:
        try:
            possible = float(points[header.index(column)].strip() or full)
        except ValueError:
            possible = full
    if full and abs(possible - full) > 1e-9:
        differ = (f"Canvas's '{column}' is worth {possible:g} points; the kit's totals are out of {full:g}. "
                  "Pass --scale to convert them, or change the assignment's points in Canvas. / Canvas의 "
                  f"'{column}'은(는) {possible:g}점 만점이고 키트의 총점은 {full:g}점 만점입니다. --scale로 "
                  "환산하거나 Canvas에서 배점을 바꾸세요.")
        if scale:
            scores = [dict(s, score=s["score"] * possible / full) for s in scores]
            notes.append(f"totals scaled from {full:g} to Canvas's {possible:g} points / 총점을 {full:g}점 "
                         f"만점에서 Canvas의 {possible:g}점 만점으로 환산했습니다")
        elif anyway:
            notes.append(differ)
        else:
            raise PointsDiffer(differ)
    matched = match(students, CANVAS_KEYS, scores, "Student")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow([*student_cols, column])
    w.writerow(["Points Possible", *([""] * (len(student_cols) - 1)), f"{possible:g}"])
    for row in matched.rows:
        w.writerow([*(row.get(c, "") for c in student_cols), row["score"]])
    return buf.getvalue(), matched, notes


# -- Moodle --------------------------------------------------------------------------------


def read_people(path: Path) -> list[dict]:
    """Students from a Moodle user export / participants CSV (username, email, idnumber...) or a Canvas export."""  # noqa: E501
    text = path.read_text(encoding="utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text)))
    out = []
    for r in rows:
        low = {str(k or "").strip().casefold(): (v or "").strip() for k, v in r.items()}
        if "points possible" in low.get("student", "").casefold():
            continue
        out.append({
            "username": low.get("username") or low.get("sis login id", ""),
            "email": low.get("email") or low.get("email address", ""),
            "idnumber": low.get("idnumber") or low.get("id number") or low.get("sis user id", ""),
            "name": (low.get("student")
                     or " ".join(x for x in (low.get("firstname"), low.get("lastname")) if x)),
        })
    return out


def moodle_csv(scores: list[dict], item: str, people: Path | None) -> tuple[str, Matched]:
    """Moodle's CSV grade import: identifier columns and one grade column named after the grade item."""
    if people is not None:
        matched = match(read_people(people), MOODLE_KEYS, scores, "name")
    else:  # the roster's ids are the identifiers (map them to username or ID number on import)
        matched = Matched(rows=[{"username": s["id"], "email": "", "idnumber": s["id"], "name": s["name"],
                                 "score": _shown(s) if s["status"] != "missing" or s["decided"] else "",
                                 "feedback": _feedback(s)} for s in scores])
        matched.students_without_submission = [f"{s['name']} ({s['id']})" for s in scores
                                               if s["status"] == "missing" and not s["decided"]]
    # The steps to each total (late penalty, adjustments...) as a feedback column, which Moodle's import
    # maps to "Feedback for <item>"; only when there are some, so a plain export keeps one grade column.
    for row in matched.rows:  # Moodle's CSV import takes numbers only: an excused student is left blank
        if row.get("score") == "EX":
            row["score"] = ""
    feedback = any(row.get("feedback") for row in matched.rows)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["username", "email", "idnumber", item, *([f"{item} feedback"] if feedback else [])])
    for row in matched.rows:
        w.writerow([row.get("username", ""), row.get("email", ""), row.get("idnumber", ""), row["score"],
                    *([row.get("feedback", "")] if feedback else [])])
    return buf.getvalue(), matched


# -- command line ----------------------------------------------------------------------------


def report(matched: Matched, out: Path) -> None:
    """Unmatched on both sides: on stderr and in OUT.unmatched.csv."""
    lines = [("student without a submission", s) for s in matched.students_without_submission]
    lines += [("submission without a student", s) for s in matched.submissions_without_student]
    side = out.with_name(out.name + ".unmatched.csv")
    if not lines:
        side.unlink(missing_ok=True)
        return
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["kind", "who"])
    w.writerows(lines)
    write_atomic(side, buf.getvalue())
    print(f"grade export: {len(matched.students_without_submission)} students without a submission (left "
          f"blank), {len(matched.submissions_without_student)} submissions not matched or not graded; see "
          f"{side} / 짝을 찾지 못한 학생과 제출물 목록: {side}", file=sys.stderr)
    korean = {"student without a submission": "제출물이 없는 학생",
              "submission without a student": "학생과 짝이 없거나 채점되지 않은 제출물"}
    for kind, who in lines:
        print(f"  {kind} / {korean[kind]}: {who}", file=sys.stderr)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="grade export", description=(
        "Write a batch's totals as a file Canvas or Moodle imports as is. / "
        "일괄 채점 결과를 Canvas나 Moodle이 그대로 가져올 수 있는 파일로 씁니다."))
    sub = p.add_subparsers(dest="lms", required=True)
    c = sub.add_parser("canvas", help="Canvas gradebook import CSV")
    c.add_argument("batch", type=Path, help="the folder `grade batch` or `grade merge` wrote")
    c.add_argument("--gradebook", type=Path, required=True, help="the gradebook CSV exported from Canvas")
    c.add_argument("--assignment", required=True, help="the assignment's title (or its column header)")
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--scale", action="store_true",
                   help="scale totals to the assignment's Points Possible in Canvas")
    c.add_argument("--send-anyway", action="store_true", help=ANYWAY)
    m = sub.add_parser("moodle", help="Moodle CSV grade import")
    m.add_argument("batch", type=Path)
    m.add_argument("--item", required=True, help="the grade item's name in Moodle")
    m.add_argument("--people", type=Path, help="participants CSV with username/email/idnumber (optional)")
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--send-anyway", action="store_true", help=ANYWAY)
    args = p.parse_args(argv)
    if not args.batch.is_dir():
        print(f"grade export: {args.batch} is not a folder / 폴더가 아닙니다", file=sys.stderr)
        return 2
    try:
        scores = batch_scores(load_class(args.batch))
    except TermError as exc:
        print(f"grade export: {exc}", file=sys.stderr)
        return 2
    if not scores:
        print(f"grade export: {args.batch} holds no graded submissions / 채점된 제출물이 없습니다",
              file=sys.stderr)
        return 2
    blocked = unsendable(scores, args.batch)  # every blocker of this export, listed in one run
    try:
        if args.lms == "canvas":
            try:
                text, matched, notes = canvas_csv(args.gradebook, args.assignment, scores, scale=args.scale,
                                                  anyway=args.send_anyway)
            except PointsDiffer as exc:
                blocked.append(str(exc))
        else:
            blocked += above_maximum(scores)
            text, matched = moodle_csv(scores, args.item, args.people)
            notes = ["In Moodle: Grades > Import > CSV file; map 'username' (or 'idnumber') to the user "
                     f"field and '{args.item}' to the grade item. / Moodle: 성적 > 가져오기 > CSV 파일에서 "
                     f"'username'(또는 'idnumber')을 사용자 필드에, '{args.item}'을 성적 항목에 연결하세요."]
            notes += [f"{s['id']}: excused, left blank (Moodle's CSV import takes numbers only) / 면제되어 "
                      "빈칸으로 두었습니다" for s in scores if s["excused"]]
    except (OSError, ValueError) as exc:
        print(f"grade export: {exc}", file=sys.stderr)
        return 2
    if blocked and not args.send_anyway:  # nothing wrong leaves silently: the instructor decides first
        print(f"grade export: {len(blocked)} total(s) are not final yet; nothing was written (decide them, "
              "or pass --send-anyway) / 아직 확정되지 않은 총점이 있어 아무것도 쓰지 않았습니다",
              file=sys.stderr)
        for line in blocked:
            print(f"  {line}", file=sys.stderr)
        return 2
    write_atomic(args.out, text)
    report(matched, args.out)
    side = args.out.with_name(args.out.name + ".steps.csv")
    steps = steps_csv(scores) if args.lms == "canvas" else None
    if steps is None:
        side.unlink(missing_ok=True)
    else:  # Canvas's gradebook import takes scores only: the reasons go beside it, for comments
        write_atomic(side, steps)
        notes.append(f"the steps from the grader's score to each total (late penalty, adjustments, reviews) "
                     f"are in {side} / 최종 점수까지의 변경과 이유는 {side}에 있습니다")
    notes += [f"sent anyway (--send-anyway): {line}" for line in blocked]
    for note in notes:
        print(f"grade export: {note}", file=sys.stderr)
    sent = sum(1 for r in matched.rows if r["score"] != "")
    print(f"{args.out}: {sent} totals for {len(matched.rows)} students / 학생 {len(matched.rows)}명 중 "
          f"{sent}명의 총점")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
