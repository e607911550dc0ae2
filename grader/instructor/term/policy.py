"""The late policy (``policy.toml``) and the steps it gives one submission.

    due = 2026-03-10T23:59:00+09:00          # ISO 8601 with an offset (a TOML datetime or a string)
    close = 2026-03-17T23:59:00+09:00        # optional: after it the total is 0
    [late]
    grace_minutes = 15                       # late by at most this much: no penalty
    per = "day"                              # "hour" or "day"
    deduct_percent = 10                      # of the maximum score, per started interval after the grace
    max_percent = 50                         # the cap
    [extensions]
    "2024-001" = 2026-03-12T23:59:00+09:00   # a student's own due (or {due = ..., close = ...})

Like Canvas's late policy, a started interval counts whole (1.3 days late at 10 % a day is 20 %);
unlike Canvas the intervals start after the grace.  An extension moves the student's close by as much
as their due, unless it names its own close.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from grader.engine.classmodel import Step, span
from grader.instructor.term.errors import TermError

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]  # the same API under tomllib's name

INTERVAL = {"hour": 3600.0, "day": 86400.0}
TOP_KEYS = {"due", "close", "late", "extensions"}
LATE_KEYS = {"grace_minutes", "per", "deduct_percent", "max_percent"}


@dataclass(frozen=True)
class Deadline:
    due: datetime
    close: datetime | None
    extended: bool = False


@dataclass(frozen=True)
class LatePolicy:
    due: datetime
    close: datetime | None = None
    grace_minutes: float = 0.0
    per: str = "day"
    deduct_percent: float = 0.0
    max_percent: float = 100.0
    extensions: dict[str, Deadline] = field(default_factory=dict)  # casefolded student id -> deadline

    def deadline_for(self, *keys: str) -> Deadline:
        """The student's own deadline: an extension under any of ``keys`` (id, submission name), else the class's."""  # noqa: E501
        for key in keys:
            ext = self.extensions.get(key.strip().casefold())
            if ext is not None:
                return ext
        return Deadline(self.due, self.close)

    def describe(self) -> dict[str, str]:
        """One line for the summary page, in both languages."""
        en = f"due {_show(self.due)}"
        ko = f"마감 {_show(self.due)}"
        if self.close:
            en += f", closes {_show(self.close)} (0 after)"
            ko += f", 제출 종료 {_show(self.close)} (이후 0점)"
        rate_en, rate_ko = _rate(self)
        en += f"; late: {rate_en}"
        ko += f"; 지각: {rate_ko}"
        if self.max_percent < 100:
            en += f", at most {self.max_percent:g} %"
            ko += f", 최대 {self.max_percent:g}%"
        if self.grace_minutes:
            en += f", after a {self.grace_minutes:g}-minute grace"
            ko += f", 유예 {self.grace_minutes:g}분 이후"
        if self.extensions:
            en += f"; {len(self.extensions)} extensions"
            ko += f"; 연장 {len(self.extensions)}명"
        return {"en": en, "ko": ko}


def _show(when: datetime) -> str:
    return when.isoformat(timespec="minutes")


def _rate(policy: LatePolicy) -> tuple[str, str]:
    pct = f"{policy.deduct_percent:g} %"
    if policy.per == "hour":
        return f"{pct} an hour", f"시간당 {policy.deduct_percent:g}%"
    return f"{pct} a day", f"하루 {policy.deduct_percent:g}%"


def parse_time(value: Any, what: str) -> datetime:
    """An ISO 8601 time with an offset (a TOML offset datetime or a string); TermError otherwise."""
    if isinstance(value, datetime):
        when = value
    elif isinstance(value, str):
        text = value.strip()
        try:
            when = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
        except ValueError:
            raise TermError(f"{what}: {value!r} is not an ISO 8601 time such as 2026-03-10T23:59:00+09:00",
                            f"{what}: {value!r}은(는) 2026-03-10T23:59:00+09:00 같은 ISO 8601 시각이 "
                            "아닙니다") from None
    elif isinstance(value, date):
        raise TermError(f"{what}: {value} has no time of day and no offset",
                        f"{what}: {value}에 시각과 시간대가 없습니다")
    else:
        raise TermError(f"{what}: expected a time, found {value!r}", f"{what}: 시각이 아닙니다: {value!r}")
    if when.tzinfo is None or when.utcoffset() is None:
        raise TermError(f"{what}: {value} has no offset (write it as e.g. +09:00 or Z)",
                        f"{what}: {value}에 시간대가 없습니다(+09:00이나 Z처럼 쓰세요)")
    return when


def _number(table: dict, key: str, default: float, lo: float, hi: float, where: str) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= float(value) <= hi:
        raise TermError(f"{where}{key} must be a number from {lo:g} to {hi:g}, found {value!r}",
                        f"{where}{key}은(는) {lo:g}에서 {hi:g} 사이의 수여야 합니다: {value!r}")
    return float(value)


def parse_policy(data: dict) -> LatePolicy:
    unknown = set(data) - TOP_KEYS
    if unknown:
        key = sorted(unknown)[0]
        raise TermError(f"policy: unknown key {key!r} (known: due, close, [late], [extensions])",
                        f"정책: 알 수 없는 키 {key!r} (due, close, [late], [extensions]만 씁니다)")
    if "due" not in data:
        raise TermError("policy: no `due`", "정책: `due`가 없습니다")
    due = parse_time(data["due"], "due")
    close = parse_time(data["close"], "close") if "close" in data else None
    if close is not None and close < due:
        raise TermError("policy: `close` is before `due`", "정책: `close`가 `due`보다 이릅니다")
    late = data.get("late", {})
    if not isinstance(late, dict) or set(late) - LATE_KEYS:
        bad = sorted(set(late) - LATE_KEYS)[0] if isinstance(late, dict) else "late"
        raise TermError(f"policy: [late] has an unknown key {bad!r} (known: {', '.join(sorted(LATE_KEYS))})",
                        f"정책: [late]에 알 수 없는 키 {bad!r}가 있습니다")
    per = late.get("per", "day")
    if per not in INTERVAL:
        raise TermError(f"policy: [late] per must be \"hour\" or \"day\", found {per!r}",
                        f"정책: [late] per는 \"hour\" 또는 \"day\"여야 합니다: {per!r}")
    extensions: dict[str, Deadline] = {}
    raw_ext = data.get("extensions", {})
    if not isinstance(raw_ext, dict):
        raise TermError("policy: [extensions] must be a table of id = due",
                        "정책: [extensions]는 id = 마감 표입니다")
    for sid, value in raw_ext.items():
        if isinstance(value, dict):
            own_due = parse_time(value.get("due"), f"extensions.{sid}.due")
            own_close = parse_time(value["close"], f"extensions.{sid}.close") if "close" in value else (
                close + (own_due - due) if close else None)
        else:
            own_due = parse_time(value, f"extensions.{sid}")
            own_close = close + (own_due - due) if close else None
        extensions[str(sid).strip().casefold()] = Deadline(own_due, own_close, extended=True)
    return LatePolicy(
        due=due, close=close, per=per, extensions=extensions,
        grace_minutes=_number(late, "grace_minutes", 0.0, 0.0, 1e6, "policy: [late] "),
        deduct_percent=_number(late, "deduct_percent", 0.0, 0.0, 100.0, "policy: [late] "),
        max_percent=_number(late, "max_percent", 100.0, 0.0, 100.0, "policy: [late] "))


def read_policy(path: Path) -> LatePolicy:
    """``policy.toml`` as a LatePolicy; TermError (one line, both languages) when it is malformed."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise TermError(f"{path}: cannot read it ({exc.strerror})", f"{path}: 읽을 수 없습니다") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TermError(f"{path}: not valid TOML ({exc})",
                        f"{path}: 올바른 TOML이 아닙니다 ({exc})") from None
    try:
        return parse_policy(data)
    except TermError as exc:
        raise TermError(f"{path}: {exc.en}", f"{path}: {exc.ko}") from None


# -- durations in words ---------------------------------------------------------------------------


def _points(x: float) -> str:
    return f"{round(x, 2):g}"


# -- the steps of one submission ------------------------------------------------------------------


def late_steps(policy: LatePolicy, max_score: float, submitted: datetime | None,
               keys: tuple[str, ...]) -> tuple[list[Step], float | None]:
    """(steps, seconds late) for one submission under ``policy``; late_by is None when no time is known."""
    if submitted is None:
        return [Step("unknown_time", 0.0,
                     "submission time unknown: the late policy is not applied until the instructor has it",
                     "제출 시각을 알 수 없어 강사가 확인할 때까지 지각 규정을 적용하지 않았습니다")], None
    deadline = policy.deadline_for(*keys)
    late_by = (submitted - deadline.due).total_seconds()
    ext_en = f" (extended due {_show(deadline.due)})" if deadline.extended else ""
    ext_ko = f" (연장된 마감 {_show(deadline.due)})" if deadline.extended else ""
    if deadline.close is not None and submitted > deadline.close:
        return [Step("closed", 0.0,
                     f"submitted after the close date {_show(deadline.close)}: total 0{ext_en}",
                     f"제출 종료 시각 {_show(deadline.close)} 이후 제출: 0점{ext_ko}", zero=True)], late_by
    if late_by <= 0:
        return [], late_by
    words_en, words_ko = span(late_by)
    grace = policy.grace_minutes * 60.0
    if late_by <= grace:
        return [Step("grace", 0.0,
                     f"late by {words_en}, within the {policy.grace_minutes:g}-minute grace: "
                     f"no penalty{ext_en}",
                     f"{words_ko} 늦음, 유예 {policy.grace_minutes:g}분 이내: 감점 없음{ext_ko}")], late_by
    intervals = math.ceil((late_by - grace) / INTERVAL[policy.per] - 1e-9)
    percent = min(intervals * policy.deduct_percent, policy.max_percent)
    points = round(max_score * percent / 100.0, 4)
    rate_en, rate_ko = _rate(policy)
    if intervals * policy.deduct_percent > policy.max_percent:
        rate_en += f", capped at {policy.max_percent:g} %"
        rate_ko += f", 최대 {policy.max_percent:g}%"
    return [Step("late", -points, f"late by {words_en}: −{_points(points)} ({rate_en}){ext_en}",
                 f"{words_ko} 늦음: −{_points(points)}점 ({rate_ko}){ext_ko}")], late_by


def late_words(late_by: float | None) -> str:
    """The gradebook's late_by cell: "" on time, "unknown", or the duration."""
    if late_by is None:
        return "unknown"
    return span(late_by)[0] if late_by > 0 else ""


__all__ = ["Deadline", "LatePolicy", "late_steps", "late_words", "parse_policy", "parse_time", "read_policy",
           "span"]
