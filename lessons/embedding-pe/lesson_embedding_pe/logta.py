"""The log's unsure parts as the kit's TA checks (``GradeHooks.ta_checks``, grader/engine/lesson_api.py).

The review marks a part ``unsure`` when its reader found the field's words but could not place them
(leetlog/unsure.py); the group test holding that field then passed provisionally. Each such part
becomes one ``TACheck``: its key names the problem and the field, its tests are that group's test, its
``saw`` the student's words there, and its hash the problem's section of the log (the content judged:
any change to it voids a TA's decision, visibly).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from grader.author import TACheck
from lesson_embedding_pe.leetlog.unsure import TA_EN, TA_KO
from lesson_embedding_pe.leetlog.vocab import LABELS_EN, LABELS_KO
from lesson_embedding_pe.tasks import LOG_NAME

TASK = "leetcode_log"
SAW_CHARS = 800  # a problem's section quoted for a field the reader could not find: enough to read


# What the reader was unsure of -> the finding it would have given were it sure. An unsure claim about the
# approach (the complexity holds for some of the approaches the log may name) is a catalog check's.
# A claim held back from the catalog (amortized, a variable the log does not define) is the catalog's too;
# a problem the reader cannot identify is the task-fit check's (its difficulty went unchecked); a claim the
# measured counts neither fit nor clearly contradict (leetlog/code/costmeter.py) is the catalog's.
_SURE = {"unsure_approach": "complexity_inconsistent", "unsure_amortized": "complexity_inconsistent",
         "unsure_undefined_variable": "complexity_inconsistent", "unsure_unknown_problem": "not_medium",
         "unsure_measured": "complexity_inconsistent"}
# each such check's key says which question the TA answers beside the field's own
_TAIL = {"unsure_approach": "/approach", "unsure_amortized": "/approach",
         "unsure_undefined_variable": "/approach", "unsure_unknown_problem": "/which",
         "unsure_measured": "/measured"}


def _group_of(code: str, field: str) -> str | None:
    """The group (loggrade's rubric) a sure finding of ``code`` on ``field`` would have failed: the
    test the unsure one passed provisionally."""
    group = _group(code, field)
    return group.name if group is not None else None


def _group(code: str, field: str) -> Any:
    from lesson_embedding_pe.loggrade import HIDDEN_GROUPS, PUBLIC_GROUPS

    sure = _SURE.get(code, code.removeprefix("unsure_"))
    return next((g for g in (*PUBLIC_GROUPS, *HIDDEN_GROUPS) if field in g.fields
                 and (sure in g.codes if g.codes is not None else sure not in _SURE.values())), None)


def part_points(code: str, field: str) -> float | None:
    """What a TA's take on this part takes: the field's share of its group (problem 2's space: half of
    the complexity test); the whole group where the reader placed none of the problem's text."""
    group = _group(code, field)
    if group is None:
        return None
    return group.points if code == "unsure_unplaced" else round(group.points / group.parts, 4)


def check_key(finding: Mapping[str, Any]) -> str:
    """A TA check's key (what `grade review --check` names and the report looks up): the problem and the
    field, and ``/approach`` for a claim the reader could not hold to one approach."""
    tail = _TAIL.get(str(finding.get("code")), "")
    return f"problem{finding.get('problem')}/{finding.get('field')}{tail}"


def _section(lines: list[str], starts: list[int], k: int) -> tuple[int, list[str]]:
    """Problem ``k``'s lines of the log (1-based start), from its heading to the next problem's."""
    start = starts[k - 1] if 0 < k <= len(starts) else 1
    end = starts[k] - 1 if k < len(starts) else len(lines)
    return start, lines[start - 1:end]


def _for_ta(message: str, to_student: str) -> str:
    """The finding's words less the sentence meant for the student (the TA is the one who reads it)."""
    return message.replace(to_student, "").strip()


def section_hash(text: str) -> str:
    """The content a decision is bound to: whitespace-insensitive, so re-saving the file keeps it."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]


def ta_checks(results: Mapping[str, Any]) -> Sequence[TACheck]:
    """One check per unsure finding of the log review, with the test it passed provisionally."""
    log = (results.get("artifacts") or {}).get(TASK)
    if not isinstance(log, Mapping):
        return []
    source = str(log.get("source") or "").splitlines()
    starts = [int(p.get("line") or 1) for p in log.get("problems") or [] if isinstance(p, Mapping)]
    tests = [str(t.get("id")) for t in results.get("tests") or [] if t.get("task") == TASK]
    out = []
    for f in log.get("findings") or []:
        if not isinstance(f, Mapping) or f.get("severity") != "unsure" or not f.get("field"):
            continue
        k, field = int(f.get("problem") or 0), str(f["field"])
        code = str(f.get("code", ""))
        group = _group_of(code, field)
        mine = tuple(t for t in tests if group and t.endswith(f"[problem{k}-{group}]"))
        start, section = _section(source, starts, k)
        line = f.get("line") if isinstance(f.get("line"), int) else None
        own = (line is not None and 0 < line <= len(source)
               and not str(f.get("code", "")).endswith("missing_field"))
        saw = source[line - 1].strip() if own and line else "\n".join(section).strip()[:SAW_CHARS]
        out.append(TACheck(
            key=check_key(f), task=TASK, tests=mine,
            en=f"{LOG_NAME}: {_for_ta(str(f.get('message_en', '')), TA_EN)}",
            ko=f"{LOG_NAME}: {_for_ta(str(f.get('message_ko', '')), TA_KO)}",
            saw=saw, hash=section_hash("\n".join(section)), line=line if own else start, document=LOG_NAME,
            part_en=f"problem {k}, '{LABELS_EN.get(field, field)}'",
            part_ko=f"문제 {k}의 '{LABELS_KO.get(field, field)}'", points=part_points(code, field)))
    return out
