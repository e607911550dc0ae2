"""A generator of LeetCode logs as students write them (issue 33), for the property tests in
tests/test_log_corpus.py and the figures of bench/bench_log_unsure.py.

One log is a ``Spec``: two problems' contents (what the student says), a layout (the label template,
plain bullets, headings with prose, one line per problem, a table, a notebook cell), a label set (the
template's, abbreviated, unknown, none), a language, how each complexity is claimed (O(...) or in
words), where its reason sits (before or after the claim) and with which connective, and the one field
left out, if any. ``render`` writes it; the content does not depend on the form, so the review's
verdict must not either.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

FIELDS = (
    "problem",
    "difficulty",
    "first_idea",
    "final_approach",
    "time",
    "space",
    "what_went_wrong",
    "solved",
)
LAYOUTS = ("template", "bullets", "prose", "line", "table", "notebook", "leetcode", "columns")
LABEL_SETS = ("full", "short", "unknown", "none", "casual")
# Where the log sits in the file (issue 43): as it is, pasted inside a code fence, every line quoted.
CONTAINERS = ("none", "fence", "quote")
LANGS = ("en", "ko")


@dataclass(frozen=True)
class Problem:
    number: int
    title: str
    first: tuple[str, str]  # (en, ko)
    final: tuple[str, str]
    time: str  # O(...)
    time_words: tuple[str, str] | None  # the same in words, when there is a plain one
    time_reason: tuple[str, str]  # (en clause, ko noun phrase: '매 단계 n이 절반')
    space: str
    space_words: tuple[str, str] | None
    space_reason: tuple[str, str]
    wrong: tuple[str, str]
    alone: bool


PROBLEMS = (
    Problem(
        50,
        "Pow(x, n)",
        ("multiply x by itself n times", "x를 n번 곱하기"),
        ("fast exponentiation by squaring, halving n each step", "분할 거듭제곱으로 n을 절반씩 줄이기"),
        "O(log n)",
        ("log n", "로그"),
        ("n halves every step", "매 단계 n이 절반"),
        "O(1)",
        ("constant", "상수"),
        ("only a few variables are kept", "쓰는 변수가 몇 개뿐"),
        ("forgot negative n at first", "음수 지수를 처음에 빠뜨렸다"),
        True,
    ),
    Problem(
        204,
        "Count Primes",
        ("trial division of every number below n", "각 수를 제곱근까지 나눠 보기"),
        ("sieve of Eratosthenes crossing out from p*p", "에라토스테네스의 체로 p*p부터 지우기"),
        "O(n log log n)",
        None,
        ("each composite is crossed out once per prime factor", "합성수마다 소인수 하나에 한 번씩 지우는 셈"),
        "O(n)",
        ("linear", "선형"),
        ("the sieve keeps one flag per number", "체 배열이 n칸"),
        ("counted n itself and crashed on n = 0", "n 자신을 세고 n = 0에서 오류가 났다"),
        False,
    ),
    Problem(
        12,
        "Integer to Roman",
        ("an if/else chain per decimal digit", "자리마다 if문으로 경우 나누기"),
        ("greedy over the 13 symbol values, largest first", "13개 기호 값을 큰 것부터 탐욕적으로 빼기"),
        "O(1)",
        ("constant", "상수"),
        ("num is at most 3999, so the loop is bounded", "num이 3999 이하"),
        "O(1)",
        ("constant", "상수"),
        ("the symbol table is fixed", "기호 표가 13칸으로 고정"),
        ("left out the subtractive pairs 4 and 9", "4와 9 같은 빼기 조합을 빠뜨렸다"),
        True,
    ),
)
REDO = "2026-10-05"

# Labels per set and language; "unknown" keeps the template's labels but puts both complexities under
# one label the reader does not know.
LABELS = {
    ("full", "en"): {
        "problem": "Problem",
        "difficulty": "Difficulty",
        "first_idea": "First idea",
        "final_approach": "Final approach",
        "time": "Time complexity",
        "space": "Space complexity",
        "what_went_wrong": "What went wrong",
        "solved": "Solved",
        "redo_date": "Redo date",
    },
    ("full", "ko"): {
        "problem": "문제",
        "difficulty": "난이도",
        "first_idea": "처음 아이디어",
        "final_approach": "최종 접근",
        "time": "시간복잡도",
        "space": "공간복잡도",
        "what_went_wrong": "틀린 이유",
        "solved": "풀이 방식",
        "redo_date": "다시 풀 날짜",
    },
    ("short", "en"): {
        "problem": "Prob",
        "difficulty": "Diff",
        "first_idea": "First",
        "final_approach": "Final",
        "time": "TC",
        "space": "SC",
        "what_went_wrong": "Mistakes",
        "solved": "Solved",
        "redo_date": "Redo",
    },
    # 반말 and conversational labels (issue 43): '- 처음 생각:', '- 틀린 거:', '- 혼자 풀었어?:'
    ("casual", "en"): {
        "problem": "Problem",
        "difficulty": "Level",
        "first_idea": "First thoughts",
        "final_approach": "Final",
        "time": "Time",
        "space": "Space",
        "what_went_wrong": "Mistakes",
        "solved": "Solved?",
        "redo_date": "Redo",
    },
    ("casual", "ko"): {
        "problem": "문제",
        "difficulty": "난이도",
        "first_idea": "처음 생각",
        "final_approach": "최종 풀이",
        "time": "시간",
        "space": "공간",
        "what_went_wrong": "틀린 거",
        "solved": "혼자 풀었어?",
        "redo_date": "다시 풀 날",
    },
    ("short", "ko"): {
        "problem": "문제",
        "difficulty": "난도",
        "first_idea": "처음",
        "final_approach": "최종",
        "time": "시간",
        "space": "공간",
        "what_went_wrong": "실수",
        "solved": "풀이 방식",
        "redo_date": "복습일",
    },
}
UNKNOWN = {"en": "Complexity", "ko": "복잡도"}
BEFORE_EN = ("since", "as", "because")
BEFORE_KO = ("이라", "이라서", "이므로", "이니까", "이기 때문에")


@dataclass(frozen=True)
class Spec:
    problems: tuple[Problem, Problem]
    layout: str
    labels: str
    lang: str
    words: tuple[bool, bool]  # (time, space): said in words where the problem has a plain word for it
    before: tuple[bool, bool]  # (time, space): the reason before the claim
    connective: int  # which connective, per language
    drop: str | None  # the field left out of problem 1, or None for a complete log
    container: str = "none"  # CONTAINERS: the log as it is, in a code fence, or quoted line by line

    @property
    def dropped(self) -> str | None:
        return self.drop


@st.composite
def specs(draw: st.DrawFn, complete: bool | None = None) -> Spec:
    """A log's spec; ``complete`` True: no field left out, False: one left out, None: either."""
    first, second = draw(st.permutations(PROBLEMS))[:2]
    layout = draw(st.sampled_from(LAYOUTS))
    labelled = tuple(s for s in LABEL_SETS if s != "none")  # a table or a line per problem has labels
    labels = (
        "none"
        if layout == "prose"
        else draw(st.sampled_from(labelled if layout in ("line", "table", "columns") else LABEL_SETS))
    )
    if complete is True:
        drop = None
    elif complete is False:
        drop = draw(st.sampled_from(FIELDS[1:]))  # the problem itself starts the problem's section
    else:
        drop = draw(st.one_of(st.none(), st.sampled_from(FIELDS[1:])))
    return Spec(
        (first, second),
        layout,
        labels,
        draw(st.sampled_from(LANGS)),
        (draw(st.booleans()), draw(st.booleans())),
        (draw(st.booleans()), draw(st.booleans())),
        draw(st.integers(0, 4)),
        drop,
        draw(st.sampled_from(CONTAINERS)),
    )


# --------------------------------------------------------------------------- sentences


def _batchim(word: str) -> bool:
    last = word.rstrip()[-1]
    return "가" <= last <= "힣" and (ord(last) - 0xAC00) % 28 != 0


def _copula(np: str, ending: str) -> str:
    """'n칸' + '이라' -> 'n칸이라'; '이하' + '이라' -> '이하라' (no final consonant, no 이)."""
    return np + (ending if _batchim(np) or not ending.startswith("이") else ending[1:])


def claim(p: Problem, kind: str, spec: Spec) -> str:
    """The complexity as the student writes it: 'O(log n)' or in words ('log n time', '로그 시간')."""
    index = 0 if kind == "time" else 1
    words = p.time_words if kind == "time" else p.space_words
    if spec.words[index] and words is not None:
        noun = {"time": ("time", "시간"), "space": ("space", "공간")}[kind]
        return f"{words[0]} {noun[0]}" if spec.lang == "en" else f"{words[1]} {noun[1]}"
    return p.time if kind == "time" else p.space


def value(p: Problem, kind: str, spec: Spec) -> str:
    """A complexity field's value: the claim and its reason, in the spec's order and connective."""
    index = 0 if kind == "time" else 1
    said = claim(p, kind, spec)
    en, ko = p.time_reason if kind == "time" else p.space_reason
    if spec.lang == "en":
        if spec.before[index]:
            conn = BEFORE_EN[spec.connective % 3]
            return f"{conn} {en}, {said}" if spec.connective % 2 else f"{en}, so {said}"
        return f"{said} — {en}" if spec.connective % 2 else f"{said} because {en}"
    if spec.before[index]:
        return f"{_copula(ko, BEFORE_KO[spec.connective])} {said}"
    return f"{said} — {ko}" if spec.connective % 2 else f"{said}, {_copula(ko, '이기 때문')}"


def sentence(p: Problem, kind: str, spec: Spec) -> str:
    """The complexity as a sentence of prose, reason before or after the claim."""
    index = 0 if kind == "time" else 1
    said = claim(p, kind, spec)
    en, ko = p.time_reason if kind == "time" else p.space_reason
    word_en, word_ko = {"time": ("time", "시간"), "space": ("space", "공간")}[kind]
    words = said[0].isalpha() and not said.startswith("O(")
    if spec.lang == "en":
        main = f"it takes {said}" if words else f"the {word_en} complexity is {said}"
        if spec.before[index]:
            conn = BEFORE_EN[spec.connective % 3]
            return f"{conn.capitalize()} {en}, {main}."
        return f"{main[0].upper()}{main[1:]} because {en}."
    main = f"{said}이 든다" if words else f"{word_ko} 복잡도는 {said}이다"
    if spec.before[index]:
        return f"{_copula(ko, BEFORE_KO[spec.connective])} {main}."
    return f"{main}. {_copula(ko, '이기 때문이다')}."


def _texts(p: Problem, spec: Spec) -> dict[str, str]:
    """Each field's value for a labelled layout."""
    k = 0 if spec.lang == "en" else 1
    solved = (
        ("alone", "혼자")[k]
        if p.alone
        else (f"after reading a solution, redo {REDO}", f"풀이를 보고 풂, {REDO}에 다시 풀기")[k]
    )
    return {
        "problem": f"{p.number}. {p.title}",
        "difficulty": "Medium",
        "first_idea": p.first[k],
        "final_approach": p.final[k],
        "time": value(p, "time", spec),
        "space": value(p, "space", spec),
        "what_went_wrong": p.wrong[k],
        "solved": solved,
    }


def _prose(p: Problem, spec: Spec, drop: str | None) -> list[str]:
    """The fields as sentences, one a field, in template order."""
    k = 0 if spec.lang == "en" else 1
    if k == 0:
        said = {
            "problem": f"I solved LeetCode {p.number}. {p.title}.",
            "difficulty": "It is a Medium problem.",
            "first_idea": f"My first idea was to {_verb(p.first[0])}.",
            "final_approach": f"Then I switched to {p.final[0]}.",
            "what_went_wrong": f"I {p.wrong[0]}." if not p.wrong[0].startswith("I ") else p.wrong[0],
            "solved": "I solved it alone."
            if p.alone
            else f"I solved it after reading the editorial; redo on {REDO}.",
        }
    else:
        said = {
            "problem": f"LeetCode {p.number}번 {p.title} 문제를 풀었다.",
            "difficulty": "난이도는 Medium이다.",
            "first_idea": f"처음에는 {p.first[1]} 방법을 떠올렸다.",
            "final_approach": f"결국 {p.final[1]} 방법으로 바꿨다.",
            "what_went_wrong": f"{p.wrong[1]}.",
            "solved": "혼자 풀었다." if p.alone else f"풀이를 보고 풀었고 {REDO}에 다시 풀 것이다.",
        }
    said["time"], said["space"] = sentence(p, "time", spec), sentence(p, "space", spec)
    return [said[f] for f in FIELDS if f != drop]


def _verb(phrase: str) -> str:
    return phrase if phrase.split()[0] in ("multiply", "use") else f"use {phrase}"


# --------------------------------------------------------------------------- layouts


def render(spec: Spec) -> str:
    """The log the spec describes, as Markdown, in its container."""
    title = ("# LeetCode 기록" if spec.lang == "ko" else "# My LeetCode log") + "\n"
    if spec.layout == "table":
        body = _table(spec)
    elif spec.layout == "columns":
        body = _columns(spec)
    else:
        body = "\n".join(_problem(i, p, spec, spec.drop if i == 1 else None)
                         for i, p in enumerate(spec.problems, start=1))
    if spec.container == "fence":  # notes pasted from another app, fence and all (longer than any inside)
        fence = "````" if "```" in body else "```"
        return f"{title}\n{fence}markdown\n{body.rstrip()}\n{fence}\n"
    if spec.container == "quote":
        return "".join(f"> {line}".rstrip() + "\n" for line in f"{title}\n{body}".splitlines())
    return f"{title}\n{body}"


def _label(spec: Spec, name: str) -> str:
    labels = LABELS[("full" if spec.labels in ("full", "unknown", "none") else spec.labels, spec.lang)]
    return labels[name]


def _problem(i: int, p: Problem, spec: Spec, drop: str | None) -> str:
    texts = _texts(p, spec)
    heading = f"## 문제 {i}" if spec.lang == "ko" else f"## Problem {i}"
    if spec.layout == "prose" or spec.labels == "none":
        sentences = _prose(p, spec, drop)
        if spec.layout == "prose":
            return f"{heading}\n\n" + " ".join(sentences) + "\n"
        return f"{heading}\n" + "".join(f"- {s}\n" for s in sentences)  # label-less bullets
    if spec.layout == "leetcode":  # LeetCode's own solution template, its headings kept
        return _leetcode(i, p, spec, drop, texts)
    if spec.layout == "line":
        fields = [texts["problem"]] + (["Medium"] if drop != "difficulty" else [])
        fields += [f"{_label(spec, f)}: {texts[f]}" for f in FIELDS[2:] if f != drop]
        return f"{i}. " + ", ".join(fields) + "\n"
    lines = []
    for name in FIELDS:
        if name == drop:
            continue
        if spec.labels == "unknown" and name in ("time", "space"):
            if name == "time" or drop == "time":  # both complexities under one label it does not know
                said = [sentence(p, k, spec) for k in ("time", "space") if k != drop]
                lines.append((UNKNOWN[spec.lang], " ".join(said)))
            continue
        lines.append((_label(spec, name), texts[name]))
    if spec.layout == "template":
        body = "".join(f"- **{label}:** {text}\n" for label, text in lines)
        return f"{heading}\n\n{body}"
    if spec.layout == "notebook":  # a Markdown cell as Jupyter keeps it: one paragraph, <br> line breaks
        return f"{heading}\n\n" + "<br>".join(f"**{label}:** {text}" for label, text in lines) + "\n"
    return f"{heading}\n" + "".join(f"- {label}: {text}\n" for label, text in lines)


def _table(spec: Spec) -> str:
    """One row per problem. 'unknown' merges the complexities into one column with a reason column;
    'short' merges the first idea and the final approach into one column ('처음 → 최종')."""
    lab = {n: _label(spec, n) for n in FIELDS}
    merge_cx, merge_ap = spec.labels == "unknown", spec.labels == "short"
    cols: list[str] = ["problem", "difficulty"]
    cols += ["approach"] if merge_ap else ["first_idea", "final_approach"]
    cols += ["complexity", "reason"] if merge_cx else ["time", "space"]
    cols += ["what_went_wrong", "solved"]
    head = {
        **lab,
        "approach": f"{lab['first_idea']} → {lab['final_approach']}",
        "complexity": f"{lab['time']} / {lab['space']}",
        "reason": "이유" if spec.lang == "ko" else "Reason",
    }
    rows = ["| " + " | ".join(head[c] for c in cols) + " |", "|" + "---|" * len(cols)]
    for i, p in enumerate(spec.problems, start=1):
        drop = spec.drop if i == 1 else None
        texts = {k: ("" if k == drop else v) for k, v in _texts(p, spec).items()}
        en = spec.lang == "en"
        reasons = [
            (p.time_reason if k == "time" else p.space_reason)[0 if en else 1]
            for k in ("time", "space")
            if k != drop
        ]
        cell = {
            **texts,
            "approach": " → ".join(x or "-" for x in (texts["first_idea"], texts["final_approach"])),
            "complexity": " / ".join("-" if k == drop else claim(p, k, spec) for k in ("time", "space")),
            "reason": "; ".join(reasons),
        }
        rows.append("| " + " | ".join(cell[c] for c in cols) + " |")
    return "\n".join(rows) + "\n"


def _columns(spec: Spec) -> str:
    """A row per field and a column per problem (issue 43); 'unknown' puts both complexities in one row
    under a label the reader does not know."""
    k = "ko" if spec.lang == "ko" else "en"
    head = {"ko": ("항목", "문제"), "en": ("Field", "Problem")}[k]
    texts = [_texts(p, spec) for p in spec.problems]
    rows = [f"| {head[0]} | {head[1]} 1 | {head[1]} 2 |", "|---|---|---|"]
    for name in FIELDS:
        if spec.labels == "unknown" and name in ("time", "space"):
            if name == "time":
                said = [
                    " ".join(sentence(p, x, spec) for x in ("time", "space")
                             if not (i == 0 and x == spec.drop))
                    for i, p in enumerate(spec.problems)
                ]
                rows.append(f"| {UNKNOWN[spec.lang]} | {said[0]} | {said[1]} |")
            continue
        cells = ["" if (i == 0 and name == spec.drop) else t[name] for i, t in enumerate(texts)]
        rows.append(f"| {_label(spec, name)} | {cells[0]} | {cells[1]} |")
    return "\n".join(rows) + "\n"


def _leetcode(i: int, p: Problem, spec: Spec, drop: str | None, texts: dict[str, str]) -> str:
    """'# Intuition / # Approach / # Complexity / # Code', as LeetCode's editor starts a solution."""
    out = [f"## {_label(spec, 'problem')} {i}: {texts['problem']}"]
    if drop != "difficulty":
        out.append(f"{_label(spec, 'difficulty')}: Medium")
    if drop != "first_idea":
        out += ["# Intuition", f"{texts['first_idea']}"]
    if drop != "final_approach":
        out += ["# Approach", f"{texts['final_approach']}"]
    out.append("# Complexity")
    for kind in ("time", "space"):
        if kind != drop:
            out += [f"- {'Time' if kind == 'time' else 'Space'} complexity:", texts[kind]]
    out += ["# Code", "```python", f"def solve_{p.number}(): ...", "```"]
    for name in ("what_went_wrong", "solved"):
        if name != drop:
            out.append(f"{_label(spec, name)}: {texts[name]}")
    return "\n".join(out) + "\n"
