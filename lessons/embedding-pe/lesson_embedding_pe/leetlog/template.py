"""The blank LEETCODE_LOG.md handed to students (exercises/LEETCODE_LOG.md).

Kept in code so the parser and the template cannot drift apart: a test checks
that the shipped file equals ``render_template()`` and parses as all-missing.
"""

from __future__ import annotations

from lesson_embedding_pe.practice import RULE

from .vocab import FIELDS, LABELS_EN, LABELS_KO, PLACEHOLDERS

_INTRO = """\
# LeetCode 풀이 기록 (LeetCode log)

> LeetCode **Medium** 수학(Math) 태그 문제 2개를 풀고 문제마다 아래 칸을 채우세요.
> (Solve two LeetCode **Medium** problems tagged Math and fill in every field below for each.)
>
> {rule_ko}
> ({rule_en})
>
> - `<...>` 부분을 지우고 직접 쓰세요. `<...>`가 남은 칸은 빈 칸으로 채점됩니다.
>   (Replace each `<...>` with your own words; a field still holding `<...>` counts as empty.)
> - 복잡도는 Big-O 뒤에 이유 한 줄: `O(log n) — n을 매번 절반으로 줄임`
>   (Complexity is a Big-O then a one-line reason: `O(log n) — n halves every step`.)
> - 난이도는 사이트에서 확인하세요. 예: Happy Number는 Easy입니다.
>   (Check the difficulty on the site: Happy Number, for one, is Easy.)
"""


def render_template(problems: int = 2) -> str:
    # the practice's one rule, in the same words as the stub and the README (lesson/practice.py)
    parts = [_INTRO.replace("{rule_ko}", RULE[1]).replace("{rule_en}", RULE[0])]
    for i in range(1, problems + 1):
        parts.append(f"\n## 문제 {i} (Problem {i})\n\n")
        for name in FIELDS:
            parts.append(f"- **{LABELS_KO[name]} ({LABELS_EN[name]}):** {PLACEHOLDERS[name]}\n")
    return "".join(parts)
