"""The language of the feedback when none is asked for: `grade`, `grade batch` and `check()` pick it alike."""

from __future__ import annotations

import locale
import os


def default_lang() -> str:
    """"ko" when the environment (GRADE_LANG, then the locale variables, then the locale) says Korean."""
    for var in ("GRADE_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "ko" if value.lower().startswith("ko") else "en"
    loc = (locale.getlocale()[0] or "").lower()
    return "ko" if loc.startswith("ko") else "en"
