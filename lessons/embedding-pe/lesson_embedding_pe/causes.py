"""Which failing check explains another: one mistake is one card, with what to fix first.

A check of this lesson fails for one of a few known causes; some of them make other checks fail
although the code those checks test is right. Tying by copying ``.data`` doubles what
``count_params`` finds (the head is a second Parameter), a table kept as a plain attribute stays on
the CPU under ``.to(...)``, and a wrong sinusoidal table makes the rows ``forward`` adds wrong in the
same way. The reports (grader/report/cards.py) read the keys below: checks with one key are one
card, and a check one of them explains joins that card, marked "fix X first".

The keys come from the checks' records (grader/core/finding.py): the tying and buffer checks name
their cause (``cause.key``; its words are empty where the check's own words state the mistake, so
the card shows no cause twice), the checks those causes explain say so (``explained_by``: a count
of exactly twice the tied size, ``counted_twice``; a sin layer's device or dtype check), and a
sinusoidal table's figure carries its diagnosis (``figure.cause.key``, pe_checks.py).
A results.json from before records has only the checks' words: its English messages are read for the
same keys (``_LEGACY``). Messages, never test names: this module ships in the student copy, which
must not name a hidden test (instructor/lesson_release.py's scan).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from grader.author import FailedCheck

# A results.json from before records: the English message of a failed check -> the cause it names.
_CAUSES = (
    ("tying", re.compile(r"expected head\.weight to be the same Parameter object as emb\.weight")),
    ("buffer", re.compile(r"^mode='sin': expected (?:a registered buffer named `pe`|`pe` as a registered "
                          r"buffer)")),
)
_COUNT = re.compile(r"count_params\(TinyLM\([^)]*tie=True\)\): expected (\d+)[^;]*; found (\d+)")
# a check of the sin layer on another device or dtype: a table outside the buffers stays behind
# an error from the model's float32 layers meeting a float64 input (a float64 table added to it)
_DOUBLE_MEETS_FLOAT = re.compile(r"\b[Dd]ouble\b.*\b[Ff]loat\b|\b[Ff]loat\b.*\b[Dd]ouble\b")
_SIN_DEVICE = re.compile(r"^mode='sin'(?: after \.double\(\))?: .*(?:\.to\('meta'\)|\(simulated\) GPU|"
                         r"on cuda|\.double\(\)|float64)", re.S)


@dataclass(frozen=True)
class Link:
    """``cause`` explains a failed check: the card says "fix <cause> first" with this reason."""

    cause: str
    en: str
    ko: str
    checks: tuple[str, str]  # what the explained checks test, as "fix X first" names them


# cause -> how it is named in "fix ... first"
CAUSE_NAMES = {
    "tying": ("the tying", "가중치 공유"),
    "buffer": ("the buffer", "버퍼 등록"),
    "table": ("sinusoidal_pe", "sinusoidal_pe"),
    "table_dtype": ("sinusoidal_pe's dtype", "sinusoidal_pe의 dtype"),
}
LINKS = {
    "tying": Link("tying",
                  "count_params itself is right: the copied head is a second Parameter, so it is counted "
                  "twice. Tie the weights and count_params passes too.",
                  "count_params 자체는 맞습니다: 값만 복사한 head는 두 번째 Parameter라서 두 번 셉니다. "
                  "가중치를 공유하면 count_params 검사도 통과합니다.", ("count_params", "count_params")),
    "buffer": Link("buffer",
                   "A table that is not a registered buffer does not follow .to(...) or .double() (it keeps "
                   "its device and dtype); register it and these checks can pass.",
                   "등록된 버퍼가 아닌 표는 .to(...)나 .double()을 해도 따라가지 않습니다(장치도 dtype도 "
                   "그대로). 버퍼로 등록하면 이 검사들도 통과할 수 있습니다.",
                   ("device and dtype", "장치·dtype")),
    "table": Link("table",
                  "The rows forward adds come from your sinusoidal_pe table and are wrong in the same way; "
                  "fix the table and they follow.",
                  "forward가 더하는 행은 내 sinusoidal_pe 표에서 오므로 같은 방식으로 틀립니다. 표를 고치면 "
                  "이 행도 맞게 됩니다.", ("forward", "forward")),
    "table_dtype": Link("table_dtype",
                        "Your sinusoidal_pe table is float64, so what it is added to becomes float64 and "
                        "then meets the model's float32 layers; return float32 from sinusoidal_pe and these "
                        "checks can pass.",
                        "sinusoidal_pe 표가 float64라서 표를 더한 값도 float64가 되고, 모델의 float32 층에서 "
                        "dtype이 맞지 않습니다. sinusoidal_pe가 float32를 반환하면 이 검사들도 통과할 수 "
                        "있습니다.", ("reversal-experiment", "순서 뒤집기 실험")),
}


def _table_key(row: FailedCheck, subject: str) -> str | None:
    """"table:<diagnosis>" for a failed check of a sinusoidal table whose figure names what is wrong."""
    figure = row.figure or {}
    key = (figure.get("cause") or {}).get("key")
    if figure.get("subject") == subject and key and key not in ("formula", "values_match"):
        return f"table:{key}"
    return None


def _legacy_text(row: FailedCheck) -> str | None:
    """The English words of a check recorded before records (report/records.py), else None."""
    return str(row.messages.get("en") or "") if row.legacy else None


def cause_of(row: FailedCheck) -> str | None:
    """The cause a failed check names itself: "tying", "buffer", "table:<diagnosis>", else None."""
    table = _table_key(row, "table")
    if table:
        return table
    key = row.record.cause.key if row.record.cause is not None else ""
    if key in LINKS:
        return key
    text = _legacy_text(row)
    return next((key for key, pattern in _CAUSES if pattern.search(text)), None) if text else None


def explained_by(row: FailedCheck) -> str | None:
    """The cause that, if present, explains this check's failure although its own code may be right."""
    if row.record.explained_by in LINKS:
        return row.record.explained_by
    if row.status in ("failed", "error") and _DOUBLE_MEETS_FLOAT.search(_raised(row)):
        return "table_dtype"  # joins the float64 table's card when that check fails (cards.py)
    text = _legacy_text(row)
    if text:
        count = _COUNT.search(text)
        if count and int(count.group(2)) == 2 * int(count.group(1)):
            return "tying"  # exactly the head counted a second time
        if _SIN_DEVICE.match(text):
            return "buffer"
    return _table_key(row, "forward")


def _raised(row: FailedCheck) -> str:
    """The error a check's call raised, as the student's English message quotes it, else ""."""
    text = str(row.messages.get("en") or "")
    return text if "Your code raised " in text else ""


def counted_twice(found: object, expected: int) -> bool:
    """Whether count_params found exactly twice the tied count: the head counted a second time, what a
    tying check's "tying" cause explains (the count checks' ``explained_by``)."""
    return (isinstance(found, (int, float)) and not isinstance(found, bool) and math.isfinite(found)
            and int(found) == 2 * expected)


def link_text(cause: str, lang: str) -> tuple[str, str, str]:
    """(the cause's name, the checks it explains, why) for a cause key, in ``lang``."""
    base = cause.partition(":")[0]
    k = 1 if lang == "ko" else 0
    link = LINKS[base]
    return CAUSE_NAMES[base][k], link.checks[k], (link.ko if lang == "ko" else link.en)


__all__ = ["cause_of", "counted_twice", "explained_by", "link_text"]
