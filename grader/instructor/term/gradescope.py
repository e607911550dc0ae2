"""The late policy inside Gradescope, which accepts late work but deducts nothing by itself.

``/autograder/submission_metadata.json`` (Gradescope's documented format) gives ``created_at`` (the
submission time), ``assignment.due_date`` / ``assignment.late_due_date`` and, per user,
``users[].assignment`` with that student's own dates (an extension).  The bundled ``policy.toml``
gives the rule ([late]); Gradescope's dates, when present, are the deadlines.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from grader.engine.classmodel import Review, Row, final_section
from grader.instructor.term.errors import TermError
from grader.instructor.term.policy import Deadline, LatePolicy, late_steps, parse_time
from grader.instructor.term.steps import reconcile

THIS = "\0this submission"


def policy_from_metadata(policy: LatePolicy, meta: dict) -> tuple[LatePolicy, tuple[str, ...]]:
    """``policy`` with Gradescope's dates for this submission; the student's keys (email, ids)."""
    assignment = meta.get("assignment") or {}
    users = [u for u in meta.get("users") or [] if isinstance(u, dict)]
    # the user's own keys, and one for "this submission" (Gradescope's extension, whoever it names)
    keys = (*(str(u.get(k)) for u in users for k in ("email", "sid", "id") if u.get(k)), THIS)
    due = (parse_time(assignment["due_date"], "assignment.due_date")
           if assignment.get("due_date") else policy.due)
    close = (parse_time(assignment["late_due_date"], "assignment.late_due_date")
             if assignment.get("late_due_date") else policy.close)
    out = replace(policy, due=due, close=close)
    own = next((u["assignment"] for u in users if isinstance(u.get("assignment"), dict)
                and u["assignment"].get("due_date")), None)
    if own is not None:
        own_due = parse_time(own["due_date"], "users[].assignment.due_date")
        own_close = parse_time(own["late_due_date"], "users[].assignment.late_due_date") if own.get(
            "late_due_date") else close
        if own_due != due or own_close != close:  # Gradescope's extension for this student
            own_deadline = Deadline(own_due, own_close, extended=True)
            out = replace(out, extensions={**out.extensions, **{k.casefold(): own_deadline for k in keys}})
    return out, keys


def apply_in_gradescope(results: dict, policy: LatePolicy, metadata_path: Path) -> dict:
    """``results`` with its ``final`` section: the late policy applied to this one submission."""
    try:
        meta = json.loads(metadata_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = {}
    created = meta.get("created_at") if isinstance(meta, dict) else None
    try:
        policy, keys = policy_from_metadata(policy, meta if isinstance(meta, dict) else {})
        when = parse_time(created, "created_at") if created else None
    except TermError:
        when, keys = None, ()
    maximum = float(results.get("max_score") or 0.0)
    steps, late_by = late_steps(policy, maximum, when, keys)
    auto = float(results.get("score", 0.0))
    steps = reconcile(auto, maximum, steps)  # what the close took, as a step with its amount
    row = Row(name=str(results.get("submission", "")), id="", status="graded",
              auto=auto, max=maximum, tasks={}, task_max={}, review=Review(),
              submitted_at=when.isoformat() if when else None, late_by=late_by, steps=steps)
    return dict(results, final=final_section(row))
