"""Which failing check explains another, for the cards: one mistake is one card, with what to fix first.

Weights computed as ``k q^T`` are the transpose of the right ones: with as many queries as keys the checks
see it and name it (``qk_swapped``, diagnose.py); with T_q != T_k the same mistake makes ``weights @ v``
raise a shape error inside the student's function, a check with no weights to diagnose. That raise joins
the ``qk_swapped`` card, "fix the scores' order first", when a check of the same submission names it (the
kit's report/cards.py links a row only to a cause some row names, so a shape error alone stays its own).
Messages, never test names: this module ships in the student copy.
"""

from __future__ import annotations

import re

from grader.author import FailedCheck

QK_SWAPPED = "qk_swapped"
# torch's words for a matrix product of the wrong shapes (matmul, bmm, @)
_SHAPE_ERROR = re.compile(r"raised RuntimeError: (?:mat1 and mat2 shapes cannot be multiplied|"
                          r"Expected size for first two dimensions|The size of tensor a|"
                          r"expected .*size.*got|size mismatch)")


def cause_of(row: FailedCheck) -> str | None:
    """The cause a failed check names itself, where another check's failure may follow from it."""
    key = row.record.cause.key if row.record.cause is not None else ""
    figure_key = ((row.figure or {}).get("cause") or {}).get("key")
    return QK_SWAPPED if QK_SWAPPED in (key, figure_key) else None


def explained_by(row: FailedCheck) -> str | None:
    """A shape error raised inside scaled_dot_product_attention: what k q^T does when T_q != T_k."""
    if row.task == "scaled_dot_product_attention" and _SHAPE_ERROR.search(row.message_en):
        return QK_SWAPPED
    return None


def link_text(cause: str, lang: str) -> tuple[str, str, str]:
    """(the cause's name, the checks it explains, why) in ``lang``."""
    if lang == "ko":
        return ("점수의 순서(q @ kᵀ)", "T_q ≠ T_k",
                "T_q ≠ T_k이면 k qᵀ의 모양은 (T_k, T_q)라서 weights @ v에서 모양 오류가 납니다. "
                "q @ k.transpose(-2, -1)로 고치면 이 검사도 실행됩니다.")
    return ("the scores' order (q @ k^T)", "T_q ≠ T_k",
            "With T_q ≠ T_k, k q^T has shape (T_k, T_q), so weights @ v raises a shape error; with "
            "q @ k.transpose(-2, -1) this check runs too.")


__all__ = ["cause_of", "explained_by", "link_text"]
