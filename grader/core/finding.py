"""A failed check as a record: what was checked, what was expected and found, why, and the fix.

A check builds a ``Finding`` and the kit words it for the student (grader/core/feedback.py's
``fail_check``): results.json carries the record beside the words (``tests[].feedback``,
docs/contract.md), and every report renders the record. No report reads a message back into its
parts. "Not started" (a function still raising NotImplementedError, a graded document still blank)
and "not counted" (a practice problem outside the best two) are statuses of the record, not
phrases to look for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

FindingStatus = Literal["failed", "not_started", "not_counted"]
FINDING_STATUSES: tuple[str, ...] = ("failed", "not_started", "not_counted")


class SaidRecord(TypedDict):
    """A ``Said`` as results.json holds it (``tests[].messages``, a record's ``what``/``fix``...)."""

    en: str
    ko: str


class CauseRecord(TypedDict):
    """A ``Cause`` as results.json holds it (``tests[].feedback.cause``)."""

    key: str
    en: str
    ko: str


@dataclass(frozen=True)
class Said:
    """One thing said in both languages; ``as_dict()`` is its form in results.json (``SaidRecord``)."""

    en: str
    ko: str

    def get(self, lang: str) -> str:
        return self.ko if lang == "ko" else self.en

    def as_dict(self) -> SaidRecord:
        return {"en": self.en, "ko": self.ko}


@dataclass(frozen=True)
class Cause(Said):
    """The likely cause of a failure; ``key`` names it for grouping (one mistake, one card) and for a
    lesson's links between checks (lesson_api.ReportHooks.explained_by). An empty key is a cause told, not
    named; empty words are a cause named, not told (the check's message says it in its own sentence)."""

    key: str = ""

    def as_dict(self) -> CauseRecord:
        return {"key": self.key, "en": self.en, "ko": self.ko}


@dataclass(frozen=True)
class Finding:
    """What one failed check found (results.json ``tests[].feedback``).

    ``expected`` and ``found`` come together: a finding with both is shown as a comparison, one
    without them as its message. Korean ``expected`` is a clause of obligation as the reports show
    it ("모양이 (4, 6)이어야 함"). ``where`` lists places in the student's code ("embedding.py:12");
    ``document`` is the graded document a not-started finding is about; ``explained_by`` is the
    lesson's cause key that makes this check fail although its own code may be right.
    """

    what: Said | None = None
    expected: Said | None = None
    found: Said | None = None
    cause: Cause | None = None
    fix: Said | None = None
    command: str | None = None
    status: FindingStatus = "failed"
    explained_by: str | None = None
    where: tuple[str, ...] = field(default=())
    document: str | None = None

    @property
    def compares(self) -> bool:
        """Whether the finding has an expected and a found value (a comparison card)."""
        return self.expected is not None and self.found is not None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status}
        for name in ("what", "expected", "found", "cause", "fix"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value.as_dict()
        for name in ("command", "explained_by", "document"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.where:
            out["where"] = list(self.where)
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Finding | None:
        """A record read back from results.json; None when it is not one (a file from before records)."""
        if not isinstance(data, Mapping):
            return None
        status = data.get("status")
        if status not in FINDING_STATUSES:
            return None

        def said(name: str) -> Said | None:
            value = data.get(name)
            if not isinstance(value, Mapping):
                return None
            return Said(str(value.get("en", "")), str(value.get("ko", "")))

        cause = data.get("cause")
        where = data.get("where")
        return cls(
            what=said("what"), expected=said("expected"), found=said("found"),
            cause=(Cause(str(cause.get("en", "")), str(cause.get("ko", "")), str(cause.get("key") or ""))
                   if isinstance(cause, Mapping) else None),
            fix=said("fix"),
            command=_text_or_none(data.get("command")),
            status=status,
            explained_by=_text_or_none(data.get("explained_by")),
            where=tuple(str(w) for w in where) if isinstance(where, list) else (),
            document=_text_or_none(data.get("document")),
        )

    def parts(self, lang: str) -> dict[str, str]:
        """The card's fields in ``lang`` (report/view.py): what / expected / found / cause / fix."""
        def get(value: Said | None) -> str:
            return value.get(lang) if value is not None else ""

        return {"what": get(self.what), "expected": get(self.expected) if self.compares else "",
                "found": get(self.found) if self.compares else "", "cause": get(self.cause),
                "fix": get(self.fix)}


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


__all__ = ["FINDING_STATUSES", "Cause", "CauseRecord", "Finding", "FindingStatus", "Said", "SaidRecord"]
