"""The blank LEETCODE_LOG.md handed to students (exercises/LEETCODE_LOG.md).

Built from the reader's own vocabulary (vocab.toml) so the parser and the template cannot drift apart:
a test checks that the shipped file equals ``render_template()`` and parses as all-missing.
"""

from __future__ import annotations

from lesson_embedding_pe.practice import RULE

from .vocab import FIELDS, LABELS_EN, LABELS_KO, PLACEHOLDERS, TEMPLATE_INTRO


def render_template(problems: int = 2) -> str:
    # the practice's one rule, in the same words as the stub and the README (lesson/practice.py)
    parts = [TEMPLATE_INTRO.replace("{rule_ko}", RULE[1]).replace("{rule_en}", RULE[0])]
    for i in range(1, problems + 1):
        parts.append(f"\n## 문제 {i} (Problem {i})\n\n")
        for name in FIELDS:
            parts.append(f"- **{LABELS_KO[name]} ({LABELS_EN[name]}):** {PLACEHOLDERS[name]}\n")
    return "".join(parts)
