"""Which failing check explains another: one mistake is one card, with what to fix first.

A check of this lesson fails for one of a few known causes; some of them make other checks fail
although the code those checks test is right. Tying by copying ``.data`` doubles what
``count_params`` finds (the head is a second Parameter), a table kept as a plain attribute stays on
the CPU under ``.to(...)``, and a wrong sinusoidal table makes the rows ``forward`` adds wrong in the
same way. The reports (grader/report/cards.py) read the keys below: checks with one key are one
card, and a check one of them explains joins that card, marked "fix X first".

The keys come from what the checks already produce: a sinusoidal table's figure carries its
diagnosis (``figure.cause.key``, grader/core/testkit.py), and the other causes are the checks whose
only job is that property (the tying checks, the buffer checks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

Row = dict[str, Any]

# check (test function) -> the cause its failure names
_CAUSE_OF_CHECK = {
    "test_tied_head_is_the_embedding": "tying",
    "test_tied_is_one_parameter": "tying",
    "test_sin_table_is_a_buffer": "buffer",
    "test_sin_pe_is_a_registered_buffer": "buffer",
}
_COUNT = re.compile(r"count_params\(TinyLM\([^)]*tie=True\)\): expected (\d+)[^;]*; found (\d+)")
_SIN_DEVICE = re.compile(r"^test_(?:to_meta_moves_everything|cuda_simulated_device_safety|real_cuda|"
                         r"double_gives_float64)\[sin\]$")


@dataclass(frozen=True)
class Link:
    """``cause`` explains a failed check: the card says "fix <cause> first" with this reason."""

    cause: str
    en: str
    ko: str


# cause -> how it is named in "fix ... first"
CAUSE_NAMES = {
    "tying": ("the tying", "가중치 공유"),
    "buffer": ("the buffer", "버퍼 등록"),
    "table": ("sinusoidal_pe", "sinusoidal_pe"),
}
LINKS = {
    "tying": Link("tying",
                  "count_params is not the problem: the copied head is a second Parameter, so it is counted "
                  "twice. Tie the weights and this check passes too.",
                  "count_params의 문제가 아닙니다: 값만 복사한 head는 두 번째 Parameter라서 두 번 셉니다. "
                  "가중치를 공유하면 이 검사도 통과합니다."),
    "buffer": Link("buffer",
                   "a table that is not a registered buffer stays on the CPU under .to(...) and .double(); "
                   "register it and these checks can pass.",
                   "등록된 버퍼가 아닌 표는 .to(...)나 .double()을 해도 CPU에 남습니다. 버퍼로 등록하면 이 "
                   "검사들도 통과할 수 있습니다."),
    "table": Link("table",
                  "forward adds rows of your sinusoidal_pe table, wrong in the same way; fix the table and "
                  "these rows follow.",
                  "forward는 내 sinusoidal_pe 표의 행을 더하므로 같은 방식으로 틀립니다. 표를 고치면 이 행도 "
                  "맞게 됩니다."),
}


def _function(test_id: str) -> str:
    return test_id.split("::")[-1]


def cause_of(row: Row) -> str | None:
    """The cause a failed check names itself: "tying", "buffer", "table:<diagnosis>", else None."""
    figure = row.get("figure_data") or {}
    key = (figure.get("cause") or {}).get("key")
    if figure.get("subject") == "table" and key and key not in ("formula", "values_match"):
        return f"table:{key}"
    return _CAUSE_OF_CHECK.get(_function(row["id"]).partition("[")[0])


def explained_by(row: Row) -> str | None:
    """The cause that, if present, explains this check's failure although its own code may be right."""
    name = _function(row["id"])
    text = row.get("en_text", "")
    count = _COUNT.search(text)
    if count and int(count.group(2)) == 2 * int(count.group(1)):
        return "tying"  # exactly the head counted a second time
    if _SIN_DEVICE.match(name):
        return "buffer"
    figure = row.get("figure_data") or {}
    key = (figure.get("cause") or {}).get("key")
    if figure.get("subject") == "forward" and key and key not in ("formula", "values_match"):
        return f"table:{key}"
    return None


def link_text(cause: str, lang: str) -> tuple[str, str]:
    """("fix X first" name, why) for a cause key, in ``lang``."""
    base = cause.partition(":")[0]
    name = CAUSE_NAMES[base][1 if lang == "ko" else 0]
    link = LINKS[base]
    return name, (link.ko if lang == "ko" else link.en)


__all__ = ["cause_of", "explained_by", "link_text"]
