"""The one error the term's files and commands raise: a one-line reason in both languages."""

from __future__ import annotations


class TermError(ValueError):
    """A malformed policy or CSV, an unknown id: the command prints it and exits 2, writing nothing."""

    def __init__(self, en: str, ko: str) -> None:
        super().__init__(f"{en} / {ko}")
        self.en, self.ko = en, ko
