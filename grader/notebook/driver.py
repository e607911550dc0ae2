"""The staged ``notebook.py``: runs the planned statements one by one inside the worker.

It is generated source (the plan as literals, then a fixed runner), so the worker
needs no change to run it: importing ``notebook`` runs the cells. A statement that
raises is recorded and the next one runs; one that is not a definition runs under
a per-statement alarm (``signal.setitimer``) inside a total budget, so a training
loop at top level costs at most a couple of seconds. A statement that reads a
name an earlier failed or skipped statement should have made is skipped and
recorded, not run into a NameError. The grader reads the records back with the
ordinary ``call`` request on ``notebook.__gk_cells__`` (see ``fetch_records``).
"""

from __future__ import annotations

from typing import Any

from grader.notebook.cells import NEEDED, SPECULATIVE, NotebookPlan
from grader.notebook.plan import Note

# Step kind -> (seconds for one statement, seconds for all of that kind), per import of the notebook.
# NEEDED: binds what a definition uses (a table built by a helper); a call of the notebook's own
# function whose result nothing uses (`train_all()`) is only SPECULATIVE. Both fit the import timeout.
BUDGETS = {NEEDED: (5.0, 12.0), SPECULATIVE: (2.0, 4.0)}
MAX_RECORDS = 200

_RUNNER = r'''
def __gk_run(plan, cells, unavailable, budgets):
    import linecache
    import os
    import signal
    import sys
    import time

    space = globals()
    here = os.path.dirname(os.path.abspath(__file__))
    records = []
    missing = dict(unavailable)

    def name_of(cell):
        return os.path.join(here, "cell %d" % cell)

    for cell, text in cells.items():
        linecache.cache[name_of(cell)] = (len(text), None, text.splitlines(True), name_of(cell))

    class Stop(BaseException):
        pass

    armed = [False]
    home = sys._getframe()

    def on_alarm(signum, frame):
        if not armed[0]:
            return
        while frame is not None and frame is not home:  # only what the statement itself is doing
            # Never inside an import: a half-imported torch submodule breaks every later test.
            # The timer repeats every 50 ms, so the statement stops once the import is done.
            if frame.f_code.co_filename.startswith("<frozen importlib"):
                return
            frame = frame.f_back
        raise Stop()

    try:
        previous = signal.signal(signal.SIGALRM, on_alarm)
        timer = True
    except BaseException:
        previous, timer = None, False
    spent = {kind: 0.0 for kind in budgets}
    # `from __future__ import annotations` in one cell holds for the later ones, as in IPython.
    future_mask = 0
    for feature in __import__("__future__").all_feature_names:
        future_mask |= getattr(__import__("__future__"), feature).compiler_flag
    future = 0
    for cell, line, code, source, timed, binds, needs in plan:
        def record(action, reason, detail="", error=None):
            entry = {"cell": cell, "line": line, "code": code, "action": action, "reason": reason, "detail": detail}
            if error is not None:
                entry["type"] = type(error).__name__[:80]
                try:
                    entry["detail"] = str(error)[:300]
                except BaseException:
                    entry["detail"] = "<unprintable>"
            if len(records) < {max_records}:
                records.append(entry)
            for name in binds:
                missing.setdefault(name, "%d:%d" % (cell, line))

        lacking = [n for n in needs if n in missing and n not in space]
        if lacking:
            record("skipped", "needs", "%s:%s" % (lacking[0], missing[lacking[0]]))
            continue
        limit, total = budgets.get(timed, (0.0, 0.0))
        if timed and ((timer and spent[timed] >= total) or (not timer and timed == {speculative})):
            record("skipped", "budget")  # without a timer, what nothing needs is skipped; the rest runs
            continue
        error = None
        started = time.monotonic()
        try:
            compiled = compile(source, name_of(cell), "exec", future, True)
            future |= compiled.co_flags & future_mask
            if timed and timer:
                signal.setitimer(signal.ITIMER_REAL, max(0.05, min(limit, total - spent[timed])), 0.05)
                armed[0] = True
            exec(compiled, space)
            armed[0] = False
        except BaseException as exc:
            armed[0] = False
            error = exc
        finally:
            armed[0] = False
            if timed and timer:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if timed:
                spent[timed] += time.monotonic() - started
        if isinstance(error, Stop):
            record("stopped", "slow", "%g" % limit)
        elif error is not None:
            record("failed", "raised", error=error)
        else:
            for name in binds:
                missing.pop(name, None)
    if timer:
        try:
            signal.signal(signal.SIGALRM, previous)
        except BaseException:
            pass
    return records


__gk_records = __gk_run(__GK_PLAN, __GK_CELLS, __GK_UNAVAILABLE, {budgets!r})
del __gk_run


def __gk_cells__():
    return list(__gk_records)
'''  # noqa: E501


def driver_source(
    plan: NotebookPlan, label: str, *, budgets: dict[int, tuple[float, float]] | None = None
) -> str:
    """The staged notebook.py for ``plan`` (the student's code travels as string literals)."""
    head = (f"# Written by the grader from {label!r}: the statements of the notebook that grading needs,\n"
            "# run one at a time; a failure is recorded and the next statement still runs.\n")
    body = _RUNNER.replace("{max_records}", str(MAX_RECORDS)).replace("{budgets!r}", repr(budgets or BUDGETS))
    body = body.replace("{speculative}", str(SPECULATIVE))
    return (head
            + f"__GK_PLAN = {[s.as_tuple() for s in plan.steps]!r}\n"
            + f"__GK_CELLS = {plan.cells!r}\n"
            + f"__GK_UNAVAILABLE = {plan.unavailable!r}\n"
            + body)


def fetch_records(client: Any) -> list[dict]:
    """The worker's records of the notebook run, checked and trimmed (they come from the untrusted side)."""
    if "notebook" not in getattr(client, "imported", set()):
        return []
    try:
        value = client.request({"op": "call", "target": "notebook.__gk_cells__"}, (), {}, 5.0)
    except Exception:  # a crashed or restarted worker: the report simply has no runtime notes
        return []
    out = []
    for item in value if isinstance(value, list) else []:
        if not isinstance(item, dict):
            continue
        try:
            out.append(Note(int(item.get("cell", 0)), int(item.get("line", 0)),
                            str(item.get("code", ""))[:100],
                            str(item.get("action", ""))[:20], str(item.get("reason", ""))[:20],
                            str(item.get("detail", ""))[:300]).as_dict()
                       | ({"type": str(item["type"])[:80]} if "type" in item else {}))
        except (TypeError, ValueError):
            continue
    return out[:MAX_RECORDS]


def notebook_artifact(sub: Any, client: Any) -> dict | None:
    """results["artifacts"]["notebook"]: what was not run (trusted side) and what failed (worker)."""
    from grader.notebook.messages import summarize

    notes = list(getattr(sub, "notebook_notes", []))
    if getattr(sub, "notebook", False):
        try:
            client.ensure_module("notebook")  # after a restart the new worker has not run the cells yet
        except Exception:
            pass  # its failure is already every test's message
        notes += fetch_records(client)
    if not notes:
        return None
    notes.sort(key=lambda n: (str(n.get("file", "")), n.get("cell") or 0, n.get("line") or 0))
    return {"source": getattr(sub, "notebook_label", "") or None, "notes": summarize(notes)}
