"""One card per mistake: the failures of a task that share a likely cause, shown once with every check.

A bug usually fails several tests of its task with the same explanation (a concatenated sin|cos
table fails six); the reports show that cause once, with its count, and under it each failed
check with its own expected / found and reproduce command. Checks of a function still raising
NotImplementedError collapse to one line per task ("not started"), and the top three things to fix
are causes in attempted work first, then what is not started.
"""

from __future__ import annotations

import re
from typing import Any

from grader.core.finding import Finding
from grader.core.lang import particle, place_ko
from grader.engine.results import ResultsView
from grader.report.i18n import status_word, translate
from grader.report.lesson_tasks import rank, task_order, task_titles, title_of
from grader.report.records import record_of
from grader.report.view import card_parts, lesson_flag, reproduce_command


def not_started(row: dict[str, Any]) -> str | None:
    """"code" for a function still raising NotImplementedError (or a check that could not run for it),
    "log" for a graded document still its blank template: the record's status (core/finding.py)."""
    record: Finding = row["record"]
    if record.status != "not_started":
        return None
    return "log" if record.document else "code"


def _blank_line(rows: list[Row], lang: str) -> str:
    """The not-started line of a graded document still blank, named as its record names it."""
    document = rows[0]["record"].document or "?"
    cell = re.fullmatch(r"cell:(\d+)", document)  # a notebook's document is one of its cells
    if cell:
        document = translate("document_cell", lang, n=cell.group(1))
    return translate("not_started_log", lang, n=len(rows), document=document,
                     document_is=particle(document, "이"))


def _places(rows: list[Row]) -> list[str]:
    """Where the rows' records point in the student's code, each once, in order."""
    return list(dict.fromkeys(w for r in rows for w in r["record"].where))


def _where(places: list[str], lang: str) -> str:
    """" (a, b, c)" for a message, or nothing where no place is known (never an empty "(–)")."""
    shown = [place_ko(p) for p in places[:3]] if lang == "ko" else places[:3]
    return f" ({', '.join(shown)})" if places else ""


def is_not_attempted(row: dict[str, Any]) -> bool:
    return not_started(row) is not None


# the causes of a file rather than of a task (core/feedback.py's finding_of): one card across tasks
SHARED_CAUSES = ("cause:import:", "cause:missing:")


def cause_key(row: dict[str, Any]) -> str:
    """What failures of one task share when they have one cause: the figure's diagnosis, else the
    English likely cause; a failure with neither is a card of its own."""
    named = row.get("cause_named")
    if named:  # a cause the lesson knows (tying, buffer, a table's diagnosis): one card across checks
        return f"lesson:{named}"
    figure = row.get("figure_data") or {}
    key = (figure.get("cause") or {}).get("key")
    if key and key not in ("formula", "values_match"):
        return f"figure:{key}"
    cause = row["record"].cause
    if cause is not None and (cause.key or cause.en.strip()):
        return f"cause:{cause.key}" if cause.key else f"cause:{cause.en.strip()}"
    # checks of one task saying the very same thing are one cause, told once (not once per check)
    text = " ".join(str(row.get("text") or "").split())
    return f"text:{text}" if text else f"test:{row['id']}"


def _order(card: dict[str, Any]) -> int:
    """A card's task in the lesson's order: its rows carry it (report/view.py's failure_rows), else this
    lesson's list."""
    return card["task_rank"] if "task_rank" in card else rank(task_order(None), card.get("task"))


Row = dict[str, Any]


def build_cards(failures: list[Row], lang: str, rerun: str = "grade") -> tuple[list[Row], list[Row]]:
    """(cards of attempted work, one not-started line per task), both in rubric order.

    A check that a failing cause elsewhere explains (count_params doubled by a copied head) joins
    that cause's card, after its own checks, and the card says to fix that cause first. ``rerun`` is
    what the reader runs again: "grade" in a shell, "check" in a notebook's kernel.
    """
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    idle: dict[str, list[dict[str, Any]]] = {}
    attempted = [r for r in failures if not is_not_attempted(r)]
    home: dict[str, tuple[str, str]] = {}  # a cause some check names -> its card
    shared: dict[str, str] = {}  # a cause of a whole file (it does not import) -> the first task it costs
    for row in attempted:
        named = row.get("cause_named")
        if named and named not in home:
            home[named] = (row.get("task") or "?", f"lesson:{named}")
    for row in failures:
        task = row.get("task") or "?"
        if is_not_attempted(row) and not row.get("task_scored"):
            idle.setdefault(task, []).append(row)
            continue
        if is_not_attempted(row):  # part of a task that earns points: a card, "still to write"
            groups.setdefault((task, "unwritten"), []).append(row)
            continue
        upstream = row.get("explained_by")  # report/view.py: the lesson's Causes
        if upstream in home:
            # its own fix treats the symptom the card's "fix X first" explains (a shared Parameter counts
            # once, under "count_params itself is right"): the card says the fix once, from the cause
            parts = dict(row.get("parts") or {}, fix="")
            groups.setdefault(home[upstream], []).append(dict(row, follows=upstream, parts=parts))
        else:
            key = cause_key(row)
            if key.startswith(SHARED_CAUSES):
                task = shared.setdefault(key, task)
            groups.setdefault((task, key), []).append(row)
    cards = []
    for (task, _key), rows in groups.items():
        own = sorted((r for r in rows if not r.get("follows")), key=lambda r: r["hidden"])
        follow = sorted((r for r in rows if r.get("follows")), key=lambda r: r["hidden"])
        rows = own + follow  # the cause's own checks first, the public (reproducible) ones first
        first = rows[0]
        n = len(rows)
        spans = {r.get("task") for r in rows}  # a cause may cost points in other tasks (fix X first)
        cause = first["parts"].get("cause", "") if len(own) > 1 else ""
        figure = next((r["figure"] for r in rows if r.get("figure")), None)
        first_note = ""
        if follow:
            name, checks, why = follow[0]["link"]
            key = "fix_first" if len(follow) > 1 else "fix_first_one"
            first_note = translate(key, lang, name=name, n=len(follow), titles=checks, why=why)
            for r in follow:
                r["follows_text"] = translate("follows", lang, name=name)
        if _key == "unwritten":
            places = _places(rows)
            first = dict(first, text=translate("not_finished", lang, n=n, where=_where(places, lang),
                                               rerun=translate(f"rerun_{rerun}", lang)))
            cause = first["text"] if n > 1 else ""
        cards.append({
            "task": task, "task_title": _shared_title(_key, spans, first["task_title"], lang),
            "checks": rows, "count": n,
            "task_rank": _order(first),
            "count_text": (translate("card_count_tasks", lang, n=n, k=len(spans)) if len(spans) > 1 else
                           translate("card_count", lang, n=n) if n > 1 else ""),
            "cause": cause, "lost": round(sum(r["points"] for r in rows), 3),
            "status": first["status"], "figure": figure, "reproduce": first["reproduce"],
            "text": cause or first["text"], "first_note": first_note,
        })
    cards.sort(key=lambda c: (_order(c), -c["lost"]))
    lines = []
    for task, rows in idle.items():
        places = _places(rows)
        lost = round(sum(r["points"] for r in rows), 3)
        lines.append({
            "task": task, "task_title": rows[0]["task_title"], "count": len(rows), "lost": lost,
            "task_rank": _order(rows[0]),
            "places": places, "checks": rows, "reproduce": _task_command(rows[0]["reproduce"], task),
            "text": (_blank_line(rows, lang) if not_started(rows[0]) == "log" else
                     translate("not_started_line" if len(rows) > 1 else "not_started_line_one", lang,
                               n=len(rows), where=_where(places, lang),
                               rerun=translate(f"rerun_{rerun}", lang))),
        })
    lines.sort(key=_order)
    return cards, lines


def _shared_title(key: str, spans: set[Any], title: str, lang: str) -> str:
    """A card's heading: its task's title, or for a file that costs checks in several tasks (it does not
    import) that file, never the first task it happens to cost (a 6-point task "−21")."""
    if len(spans) < 2 or not key.startswith("cause:import:"):
        return title
    stem = key.removeprefix("cause:import:")
    if stem == "notebook":  # a notebook is staged as notebook.py: the student knows it as the notebook
        return "노트북" if lang == "ko" else "Your notebook"
    return f"{stem}.py"


def _task_command(command: str, task: str) -> str:
    """The reproduce command of one check, widened to the whole task (``-k TASK``)."""
    head, sep, _expr = command.rpartition(" -k ")
    return f"{head} -k {task}" if sep else command


def lost_text(points: float, lang: str) -> str:
    """A card's loss as the text pages say it, '−0.5'; a card whose points an instructor's adjustment
    gave back (report/view.py) costs nothing, and says so rather than '−0'."""
    return f"−{points:g}" if points else translate("chip_none_lost", lang)


def tally(cards: list[Row], not_started: list[Row], lang: str) -> dict[str, Any]:
    """The failure counts every page shows, from one place: checks = in cards + not started."""
    in_cards = sum(c["count"] for c in cards)
    idle = sum(n["count"] for n in not_started)
    n, m = in_cards + idle, len(cards)
    if n == 0:
        text = ""
    elif idle and m:
        causes = translate("n_causes", lang, m=m) if m > 1 else translate("one_cause_of", lang)
        tasks = translate("tasks_word" if len(not_started) > 1 else "task_word", lang)
        text = translate("checks_failed_idle", lang, n=n, m=m, c=in_cards, k=idle, causes=causes, tasks=tasks)
    elif idle:
        text = ""  # only tasks not started: their lines say it
    elif n == 1:
        text = translate("check_failed_one", lang)
    else:
        text = translate("checks_failed_one" if m == 1 else "checks_failed", lang, n=n, m=m)
    return {"checks": n, "in_cards": in_cards, "not_started": idle, "causes": m, "text": text}


def top_fixes(cards: list[Row], not_started: list[Row], n: int = 3) -> list[Row]:
    """The n things to fix first: causes in attempted work, then tasks not started.

    First one cause per task, the tasks that lost most first, each by its cause the student can rerun
    (a public check) and then the costliest; then the other causes, costliest first; then what is not
    started, in the lesson's order (each task builds on the one before). Each item is a card (or a
    not-started line) with ``kind`` and ``task_lost``.
    """
    lost: dict[str, float] = {}
    for c in cards:
        lost[c["task"]] = lost.get(c["task"], 0.0) + c["lost"]
    best: dict[str, Row] = {}
    for c in cards:
        key = (any(not r["hidden"] for r in c["checks"]), c["lost"])
        if c["task"] not in best or key > (any(not r["hidden"] for r in best[c["task"]]["checks"]),
                                           best[c["task"]]["lost"]):
            best[c["task"]] = c
    firsts = sorted(best.values(), key=lambda c: (-lost[c["task"]], _order(c)))
    rest = sorted((c for c in cards if all(c is not b for b in firsts)),
                  key=lambda c: (-c["lost"], _order(c)))
    idle = sorted(not_started, key=_order)  # in the lesson's order: sinusoidal_pe first
    picked = [dict(c, kind="card") for c in firsts + rest] + [dict(c, kind="not_started") for c in idle]
    return [dict(c, task_lost=c["lost"]) for c in picked[:n]]


# A problem outside the best two that fails: shown as failing, never scored (engine/choice.py).
NOT_COUNTED_HEAD = ("Failing, not counted", "실패했지만 점수에 넣지 않음")
NOT_COUNTED_LINE = (
    "{group} fails {n} {checks}. It does not count: your best two problems count, and this is not one of "
    "them; but here is why it fails.",
    "{group_is} 검사 {n}개에서 실패합니다. 가장 잘 푼 두 문제만 점수에 들어가므로 이 문제는 점수에 "
    "넣지 않지만, 왜 실패하는지는 알려 드립니다.",
)


def not_counted_cards(results: ResultsView, lang: str, path: str) -> list[Row]:
    """One card per problem outside the best two with failed checks: each check with its expected /
    found and command, as the counted cards have them. Nothing here changes a score: these checks are
    in results["skipped"], not in results["tests"]. A problem not attempted has nothing to show."""
    ko = lang == "ko"
    seed = (results.get("replay") or {}).get("seed")
    lesson = lesson_flag(results, path)
    cards: dict[str, Row] = {}
    titles = task_titles(results)
    for entry in results.get("skipped") or []:
        left = entry.get("not_counted") or {}
        group = str(left.get("group", ""))
        for t in left.get("tests") or []:
            messages = t.get("messages") or {}
            en = messages.get("en", "")
            record = record_of(t)
            if t.get("status") == "passed" or not en or record.status == "not_started":
                continue
            text = messages.get(lang) or en
            test_id = str(t["id"])
            where, _, name = test_id.partition("::")
            task = str(entry.get("task", ""))
            command = reproduce_command(f"{where}::{name.partition('[')[0]}[{group}]", path, seed, lesson,
                                        task=task)
            card = cards.setdefault(group, {
                "task": task, "group": group, "checks": [], "count": 0, "lost": 0.0,
                "task_title": title_of(titles, task, lang),
                "head": NOT_COUNTED_HEAD[1 if ko else 0]})
            card["checks"].append({
                "id": test_id, "status": t["status"], "text": text, "parts": card_parts(record, lang, text),
                "hidden": test_id.startswith("hidden/"), "reproduce": command, "points": 0.0,
                "status_word": status_word(str(t["status"]), lang)})
    out = []
    for card in cards.values():
        card["count"] = len(card["checks"])
        card["text"] = NOT_COUNTED_LINE[1 if ko else 0].format(
            group=card["group"], group_is=particle(card["group"], "이"), n=card["count"],
            checks="check" if card["count"] == 1 else "checks")
        card["reproduce"] = card["checks"][0]["reproduce"]
        out.append(card)
    return sorted(out, key=lambda c: (_order(c), c["group"]))


__all__ = ["NOT_COUNTED_HEAD", "build_cards", "cause_key", "is_not_attempted", "lost_text",
           "not_counted_cards", "not_started", "tally", "top_fixes"]
