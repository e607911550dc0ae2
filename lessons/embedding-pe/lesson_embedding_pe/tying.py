"""TinyLM's head, as the weight-tying checks read it (public and hidden suites)."""

from __future__ import annotations

from typing import Any

from grader.author import Said, StudentRaised, check, fail_check

HEAD = "self.head = nn.Linear(d_model, vocab_size, bias=False)"


def expect_head(lm: Any, tie: bool) -> None:
    """The stub's head is there: a TinyLM that makes its tied logits without one (``self.head = None``,
    ``F.linear(h, self.emb.weight)``) is told that, not an AttributeError of the grader's own reading of
    ``head.weight``."""
    if lm.attr("head") is None:
        fail_check(check(f"TinyLM(tie={tie})",
                         Said(f"{HEAD}, its weight the embedding's",
                              f"{HEAD}, 그 weight가 임베딩의 것이어야 함"),
                         Said("self.head is None", "self.head가 None입니다"),
                         fix=Said("Keep the head the stub names and tie it: self.head.weight = "
                                  "self.emb.weight, logits = self.head(self.emb(ids)).",
                                  "스텁이 정한 head를 두고 묶으세요: self.head.weight = self.emb.weight, "
                                  "logits = self.head(self.emb(ids)).")))


def tied_head(student: Any, lm: Any) -> bool:
    """Whether TinyLM(tie=True)'s head.weight is emb.weight, read by the kit's probe (so a submission held for
    review keeps the probe's verdict); a head that is None is said to be missing (``expect_head``)."""
    try:
        return bool(student.probe("same_object", lm, "head.weight", "emb.weight"))
    except StudentRaised:
        expect_head(lm, tie=True)
        raise


def head_weight(lm: Any, tie: bool) -> Any:
    """The weight the logits are made with: the head's, or with tie=True and no head the embedding's (a
    forward by F.linear(h, self.emb.weight) computes what the lesson asks)."""
    return lm.attr("emb.weight" if tie and lm.attr("head") is None else "head.weight")
