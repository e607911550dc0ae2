"""The language of the feedback when none is asked for: `grade`, `grade batch` and `check()` pick it alike."""

from __future__ import annotations

import locale
import os
import re
import unicodedata


def default_lang() -> str:
    """"ko" when the environment (GRADE_LANG, then the locale variables, then the locale) says Korean."""
    for var in ("GRADE_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "ko" if value.lower().startswith("ko") else "en"
    loc = (locale.getlocale()[0] or "").lower()
    return "ko" if loc.startswith("ko") else "en"


def lang_of(argv: list[str]) -> str:
    """The language a command line asks for: its --lang, else the environment's (default_lang)."""
    for i, arg in enumerate(argv):
        if arg.startswith("--lang="):
            return "ko" if arg.split("=", 1)[1] == "ko" else "en"
        if arg == "--lang" and i + 1 < len(argv):
            return "ko" if argv[i + 1] == "ko" else "en"
    return default_lang()


# Korean particles that change with the final sound of the word before them: (after a consonant,
# after a vowel). 으로/로 also takes 로 after ㄹ (서울로, 파일로).
_PARTICLES = {
    "이": ("이", "가"), "가": ("이", "가"),
    "을": ("을", "를"), "를": ("을", "를"),
    "은": ("은", "는"), "는": ("은", "는"),
    "과": ("과", "와"), "와": ("과", "와"),
    "으로": ("으로", "로"), "로": ("으로", "로"),
    "이라": ("이라", "라"), "라": ("이라", "라"),
    "이다": ("이다", "다"), "이에요": ("이에요", "예요"),
    "이어야": ("이어야", "여야"), "여야": ("이어야", "여야"),  # 0.25여야, (4, 6)이어야, True여야
}
# How Latin letters and digits are read aloud in Korean: the final sound of their names.
# Letters: a name ending in a consonant (ㄹ for L, R; ㅁ for M; ㄴ for N), else a vowel.
_LATIN_FINAL = {"l": "ㄹ", "r": "ㄹ", "m": "ㅁ", "n": "ㄴ"}
# Digits by their Sino-Korean names: 영, 일, 이, 삼, 사, 오, 육, 칠, 팔, 구.
_DIGIT_FINAL = {"0": "ㅇ", "1": "ㄹ", "2": "", "3": "ㅁ", "4": "", "5": "", "6": "ㄱ", "7": "ㄹ", "8": "ㄹ",
                "9": ""}
_POWERS = frozenset("⁰¹²³⁴⁵⁶⁷⁸⁹")  # superscript digits: a power, read '제곱' (isdigit() holds for them)
# Code words whose Korean reading ends in a consonant although the rule below reads a vowel
# (로짓, 드롭아웃, 인풋, 아웃풋, 집, 코랩, 타입, 스텝): the words a lesson's messages put a particle after.
_WORD_FINAL = {"logit": "ㅅ", "logits": "", "dropout": "ㅅ", "input": "ㅅ", "output": "ㅅ", "zip": "ㅂ",
               "colab": "ㅂ", "type": "ㅂ", "dtype": "ㅂ", "step": "ㅂ"}
_SKIP = set("`'\"’”)]}>*_ \t.,:;!?")


def _final_sound(word: str) -> str | None:
    """The final consonant of ``word`` as read aloud ("" for a vowel, "ㄹ" for ㄹ), None if unknown."""
    text = word.rstrip()
    if text.endswith(")") and "(" in text[:-1]:
        before = text[:text.rindex("(")].rstrip()
        if before and 0xAC00 <= ord(before[-1]) < 0xAC00 + 11172:
            text = before  # 가중치 공유(weight tying)는: a Korean word's aside does not count; O(n)은 does
    while text and text[-1] in _SKIP:  # `code`, '따옴표', (괄호), **굵게**: the word inside counts
        text = text[:-1]
    if not text:
        return None
    last = text[-1]
    code = ord(last) - 0xAC00
    if 0 <= code < 11172:  # a Hangul syllable: its final consonant (jongseong)
        final = code % 28
        return "" if final == 0 else ("ㄹ" if final == 8 else "ㄱ")
    if last in _POWERS:
        return "ㅂ"  # n² reads 'n 제곱'
    if last.isdigit():  # any script's digit ('２', '٢') as its value is read
        return _DIGIT_FINAL[str(unicodedata.digit(last))]
    if last.isascii() and last.isalpha():
        if text.isupper() or len(text) == 1 or not text[-2].isalpha():
            return _LATIN_FINAL.get(last.lower(), "")  # an acronym or one letter: read letter by letter
        # a word, read as Korean writes it: -ng 잉/옹, -l/-m/-n end in ㄹ/ㅁ/ㄴ, a silent e after
        # n/m/l too (none 논, table 테이블); anything else ends in a vowel (forward 포워드, params 파람스)
        tail = text.lower()
        last_word = re.search(r"[a-z]+$", tail)
        if last_word and last_word.group() in _WORD_FINAL:  # x.dtype, my_logit: the last word is read
            return _WORD_FINAL[last_word.group()]
        if tail.endswith("ng"):
            return "ㅇ"
        if len(tail) > 2 and tail[-1] == "e" and tail[-2] in "nml" and tail[-3] in "aeiouy":
            return _LATIN_FINAL[tail[-2]]
        if tail.endswith("ble") or tail.endswith("ple"):
            return "ㄹ"
        return _LATIN_FINAL.get(last.lower(), "") if last.lower() in "lmn" else ""
    return None


def particle(word: str, josa: str) -> str:
    """``word`` followed by the form of the particle ``josa`` its final sound takes.

    particle("월요일", "가") == "월요일이", particle("파일", "으로") == "파일로",
    particle("`pe`", "을") == "`pe`를". Unknown endings (symbols) keep the written form with both:
    "이(가)".
    """
    forms = _PARTICLES.get(josa)
    if forms is None:
        return word + josa
    final = _final_sound(word)
    if final is None:
        return f"{word}{forms[0]}({forms[1]})" if forms[0] != forms[1] else word + forms[0]
    if forms[0] == "으로":
        return word + ("로" if final in ("", "ㄹ") else "으로")
    return word + (forms[1] if final == "" else forms[0])


def place_ko(place: str) -> str:
    """A place in the student's code as Korean reads it: a notebook's "cell 5:23" (notebook/driver.py
    names a cell's code so) is "셀 5:23"; a file's "embedding.py:12" stays."""
    return re.sub(r"^cell (\d+)", r"셀 \1", place)
