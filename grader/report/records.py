"""A test's record (grader/core/finding.py), as every report reads it.

A results.json test that did not pass carries its record (``tests[].feedback``). One written before
records existed has only its words: those are read once here, by the TA grammar the suites wrote
them in ("X: expected A; found B. Likely cause: C. Fix: F" and the Korean "X: A이어야 하는데
B입니다. 원인 추정: C. 고치는 방법: F"), so a stored term's results render as they always did.
Nothing else in the reports reads a message for its parts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from grader.core.finding import Cause, Finding, Said

# -- results.json from before records: their words, read by the grammar they were written in ---------
_EN = re.compile(r"^(?P<what>.*?)\s*\bexpected\s+(?P<exp>.+?);\s*found\s+(?P<found>.+?)"
                 r"(?:\.\s+(?P<rest>.*)|\.?)$", re.S)
# "X: after .to('meta'), forward should work; found Y": the same card without the word "expected"
_EN_SHOULD = re.compile(r"^(?:(?P<what>[^:;]*?):\s+)?(?P<exp>[^;]*?\bshould\b[^;]*?);"
                        r"\s*found\s+(?P<found>.+?)"
                        r"(?:\.\s+(?P<rest>.*)|\.?)$", re.S)
_PAREN = r"\((?:[^()]|\([^()]*\))*\)"  # one parenthetical, one level of nesting: (… .to('cuda') …)
_KO = re.compile(r"^(?:(?P<what>[^:]*?):\s+)?(?P<exp>.+?)\s*하는데"
                 r"\s*(?P<found>.+?니다(?:" + _PAREN + r")?)\.?"
                 r"(?:\s+(?P<rest>.*))?$", re.S)
_LEADING_PAREN = re.compile(r"^\s*(?P<note>" + _PAREN + r")\s*(?P<rest>.+)$", re.S)
_CAUSE = re.compile(r"(?:Likely cause|원인 추정):\s*(?P<cause>.*)$", re.S)
# A cause that goes on with the fix: "Likely cause: C. Fix: F" / "원인 추정: C. 고치는 방법: F".
_FIX = re.compile(r"(?:^|(?<=[.;:)])\s+)(?:Fix|고치는 방법):\s*(?P<fix>.*)$", re.S)
_WHERE = re.compile(r"\(at ([^()`]+?)(?: `[^`]*`)?\)")
_NOT_ATTEMPTED = "Not attempted yet"
_BLANK = " is still the blank template"


def _cause_and_fix(cause: str) -> tuple[str, str]:
    m = _FIX.search(cause)
    return (cause[:m.start()].strip(), m.group("fix").strip()) if m else (cause.strip(), "")


def _split(text: str, lang: str) -> dict[str, str]:
    """Old words -> what / expected / found / cause / fix; anything else stays whole."""
    out = {"what": "", "expected": "", "found": "", "cause": "", "fix": ""}
    text = text.strip()
    m = _KO.match(text) if lang == "ko" else (_EN.match(text) or _EN_SHOULD.match(text))
    if not m:
        cause = _CAUSE.search(text)
        if cause:
            out["cause"], out["fix"] = _cause_and_fix(cause.group("cause"))
        return out
    rest = (m.group("rest") or "").strip()
    expected, found = m.group("exp").strip(), m.group("found").strip()
    if lang == "ko":
        expected += " 함"
        lead = _LEADING_PAREN.match(found)  # "A이어야 하는데 (설명) B입니다": about what was expected
        if lead:
            expected, found = f"{expected} {lead.group('note')}", lead.group("rest").strip()
    out.update(what=(m.group("what") or "").strip().rstrip(":").strip(), expected=expected, found=found)
    cause = _CAUSE.search(rest)
    if cause:
        out["cause"], out["fix"] = _cause_and_fix(cause.group("cause"))
    else:
        out["fix"] = _cause_and_fix(rest)[1] or rest
    return out


def _from_words(messages: Mapping[str, str]) -> Finding:
    """The record of a test from before records: a comparison only when both languages read as one (a
    card has the same shape in both)."""
    en, ko = str(messages.get("en") or ""), str(messages.get("ko") or "")
    if en.startswith(_NOT_ATTEMPTED) or "Not attempted yet" in en:
        return Finding(status="not_started", where=tuple(dict.fromkeys(_WHERE.findall(en))))
    if _BLANK in en:
        before = en.partition(_BLANK)[0].split()
        return Finding(status="not_started", document=before[-1].strip("`") if before else "?")
    parts = {"en": _split(en, "en"), "ko": _split(ko, "ko")}
    if bool(parts["en"]["expected"]) != bool(parts["ko"]["expected"] or not ko):
        # one language reads as a comparison and the other does not: both are shown whole, with the
        # cause the comparison named (its fix was part of the comparison's words)
        for lang, text in (("en", en), ("ko", ko)):
            if parts[lang]["expected"]:
                cause = parts[lang]["cause"]
                parts[lang] = {"what": "", "expected": "", "found": "", "fix": "",
                               "cause": cause if cause in text else ""}

    def said(name: str) -> Said | None:
        return Said(parts["en"][name], parts["ko"][name]) if parts["en"][name] or parts["ko"][name] else None

    told = said("cause")
    return Finding(what=said("what"), expected=said("expected"), found=said("found"),
                   cause=Cause(told.en, told.ko) if told else None, fix=said("fix"))


def read_record(test: Mapping[str, Any]) -> tuple[Finding, bool]:
    """(the record of a test that did not pass, whether it was read from its words): its own, else read
    from its words (a results.json from before records)."""
    record = Finding.from_dict(test.get("feedback"))
    if record is not None:
        return record, False
    messages = test.get("messages") or {"en": str(test.get("message") or ""), "ko": ""}
    return _from_words(messages), True


def record_of(test: Mapping[str, Any]) -> Finding:
    """The record of a test that did not pass (``read_record``)."""
    return read_record(test)[0]


def is_legacy(test: Mapping[str, Any]) -> bool:
    """Whether the test's record would be read from its words (a results.json from before records)."""
    return Finding.from_dict(test.get("feedback")) is None


__all__ = ["is_legacy", "read_record", "record_of"]
