"""The reversal experiment's numbers (results["artifacts"]["experiment"]) for the reports.

The numbers are written by the experiment's tests (experiment.py
documents the schema). This reader is deliberately tolerant: rows may come
as a list or under "rows"/"runs", lengths as int or str keys, losses under
"losses" or "loss_curve"; anything it cannot read is left out, never fatal.
"""

from __future__ import annotations

import math
from typing import Any

MODES_ORDER = ("none", "sin", "learned")
# Bag-of-tokens accuracy bound for vocab 10 (docs/contract.md, measured); used when
# the artifact does not carry its own.
KNOWN_BOUND = {8: 0.317, 12: 0.266}


def _num(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _lengths(mapping: Any) -> dict[int, float]:
    out: dict[int, float] = {}
    if isinstance(mapping, dict):
        for k, v in mapping.items():
            try:
                length = int(k)
            except (TypeError, ValueError):
                continue
            x = _num(v)
            if x is not None:
                out[length] = x
    return out


def _rows(art: Any) -> list[dict]:
    if isinstance(art, list):
        return [r for r in art if isinstance(r, dict)]
    if isinstance(art, dict):
        for key in ("rows", "runs", "results"):
            if isinstance(art.get(key), list):
                return [r for r in art[key] if isinstance(r, dict)]
    return []


EVAL_SAMPLES = 500  # sequences per accuracy when the artifact does not say (experiment.py)


def sampling_error(p: float, n: int) -> float:
    """One standard error of an accuracy near ``p`` measured on ``n`` sequences."""
    return math.sqrt(max(p * (1 - p), 0.0) / max(n, 1))


def _part(rows_in: list[dict], bound_in: Any, lang: str,
          samples: int = EVAL_SAMPLES) -> dict[str, Any] | None:
    rows = []
    for r in rows_in:
        losses = r.get("losses") or r.get("loss_curve") or []
        losses = [x for x in (_num(v) for v in losses) if x is not None] if isinstance(losses, list) else []
        final = _num(r.get("final_train_loss", r.get("final_loss")))
        if final is None and losses:
            final = losses[-1]
        notes = [n.get(lang) or n.get("en", "") for n in r.get("notes") or [] if isinstance(n, dict)]
        rows.append({
            "mode": str(r.get("mode", "?")), "seed": r.get("seed", ""),
            "steps": r.get("steps", len(losses) or ""),
            "final_loss": final, "acc": _lengths(r.get("acc_by_length")), "losses": losses,
            "student_acc": _lengths(r.get("student_acc_by_length")), "notes": notes,
        })
    # a run that measured nothing (its code not written yet: no loss, no accuracy) is no table row
    rows = [r for r in rows if r["acc"] or r["losses"] or r["final_loss"] is not None]
    if not rows:
        return None
    order = {m: i for i, m in enumerate(MODES_ORDER)}
    rows.sort(key=lambda r: (order.get(r["mode"], 99), str(r["seed"])))
    lengths = sorted({n for r in rows for n in r["acc"]})
    bound = _lengths(bound_in)
    for r in rows_in:  # a run may carry its own bound
        for n, v in _lengths(r.get("bound_by_length")).items():
            bound.setdefault(n, v)
    for n in lengths:
        if n not in bound and n in KNOWN_BOUND:
            bound[n] = KNOWN_BOUND[n]
    return {
        "rows": rows, "lengths": lengths, "bound": bound, "samples": samples,
        "bound_error": {n: sampling_error(b, samples) for n, b in bound.items()},
        "has_curves": any(r["losses"] for r in rows),
        "modes": list(dict.fromkeys(r["mode"] for r in rows)),
        "notes": list(dict.fromkeys(n for r in rows for n in r["notes"] if n)),
    }


def experiment_view(art: Any, lang: str = "en") -> dict[str, Any] | None:
    """Parts to show (the student's runs, the grader's harness runs) and the diagnosis.

    lesson_embedding_pe/experiment.py's schema has ``student.runs`` and ``component.runs``;
    a plain list of rows (or ``rows``/``runs``) is read as one part too.
    None when there is nothing to show.
    """
    bound = art.get("bound") or art.get("bag_of_tokens_bound") if isinstance(art, dict) else None
    parts = []
    if isinstance(art, dict) and any(isinstance(art.get(k), dict) for k in ("student", "component")):
        harness = ((art.get("component") or {}).get("harness") if isinstance(art.get("component"), dict)
                   else None)
        samples = int(art.get("eval_samples") or (harness or {}).get("eval_samples") or EVAL_SAMPLES)
        for key in ("student", "component"):
            runs = (art.get(key) or {}).get("runs") if isinstance(art.get(key), dict) else None
            part = (_part([r for r in runs if isinstance(r, dict)], bound, lang, samples)
                    if isinstance(runs, list) else None)
            if part:
                parts.append(dict(part, key=key))
    else:
        part = _part(_rows(art), bound, lang)
        if part:
            parts.append(dict(part, key="runs"))
    if not parts:
        return None
    diagnosis = [d.get(lang) or d.get("en", "") for d in (art.get("diagnosis") or [])
                 if isinstance(d, dict)] if isinstance(art, dict) else []
    for part in parts:  # a note said once for the experiment is not repeated under each table
        part["notes"] = [n for n in part["notes"] if n not in diagnosis]
    return {"parts": parts, "diagnosis": [d for d in diagnosis if d]}


def mean_by_mode(view: dict[str, Any]) -> dict[str, dict[int, float]]:
    """Mode -> length -> accuracy averaged over seeds."""
    sums: dict[str, dict[int, list[float]]] = {}
    for r in view["rows"]:
        for n, acc in r["acc"].items():
            sums.setdefault(r["mode"], {}).setdefault(n, []).append(acc)
    return {m: {n: sum(v) / len(v) for n, v in by.items()} for m, by in sums.items()}


def sparkline(values: list[float], width: int = 24) -> str:
    """A text picture of a loss curve for Markdown, where images cannot be inlined."""
    if not values:
        return ""
    step = max(1, math.ceil(len(values) / width))
    pts = [sum(values[i:i + step]) / len(values[i:i + step]) for i in range(0, len(values), step)]
    lo, hi = min(pts), max(pts)
    bars = "▁▂▃▄▅▆▇█"
    if hi - lo < 1e-12:
        return bars[0] * len(pts)
    return "".join(bars[min(7, int((p - lo) / (hi - lo) * 7.999))] for p in pts)
