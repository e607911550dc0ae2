"""What every student is given or told to type, as k-gram hashes that `grade similarity` ignores.

The exercise stubs are read from the kit. The lesson's own code is not in the kit: the kit quotes
nothing from the lesson, so it keeps only the hashes of the lesson text's k-grams (``lesson_kgrams.txt``:
64-bit BLAKE2b digests of copydetect's filtered tokens, as signed integers; nothing of the text can be
read back from them). Regenerate them when the lesson changes, from the text students read:

    python -m grader.instructor.similarity.boilerplate path/to/lesson.txt

The whole text is hashed, prose included: prose tokens do not form the runs of code a student writes,
and no one has to mark where the code blocks start. `grade similarity --boilerplate FILE` adds any
other text (another handout, a posted hint) the same way, at run time.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from grader.instructor.similarity.tokens import NOISE, char_map, stable_kgrams
from grader.paths import write_atomic

LESSON_KGRAMS = Path(__file__).with_name("lesson_kgrams.txt")
HEADER = "# k-gram hashes of the lesson students read (grader/instructor/similarity/boilerplate.py)"


def text_kgrams(text: str, k: int) -> set[int]:
    """Every k-gram hash of ``text`` as the fingerprints hash it (tokens.py: char_map, stable_kgrams)."""
    filtered, _, _ = char_map(text)
    return set(stable_kgrams(filtered, k).tolist())


@cache
def stored_lesson_kgrams() -> tuple[int, frozenset[int]]:
    """(k, hashes) stored for the lesson; (0, empty) where the file is missing."""
    if not LESSON_KGRAMS.is_file():
        return 0, frozenset()
    k, hashes = 0, set()
    for line in LESSON_KGRAMS.read_text(encoding="ascii").splitlines():
        if line.startswith("k="):
            k = int(line[2:])
        elif line and not line.startswith("#"):
            hashes.add(int(line))
    return k, frozenset(hashes)


def lesson_kgrams(k: int, extra: Iterable[Path] = ()) -> set[int]:
    """The lesson's hashes for this ``k`` (stored ones only fit the k they were made with), plus those of
    every ``extra`` file. ValueError when the stored ones do not fit and no file replaces them."""
    hashes: set[int] = set()
    for path in extra:
        hashes |= text_kgrams(path.read_text(encoding="utf-8", errors="replace"), k)
    stored_k, stored = stored_lesson_kgrams()
    if stored_k == k:
        hashes |= stored
    elif stored and not hashes:
        raise ValueError(f"the stored lesson hashes are for --noise {stored_k}, not {k}: pass the lesson "
                         f"with --boilerplate FILE / 저장된 수업 해시는 --noise {stored_k}용입니다: "
                         "--boilerplate FILE로 수업 파일을 주세요")
    return hashes


def write_lesson_kgrams(lesson: Path, k: int) -> int:
    hashes = sorted(text_kgrams(lesson.read_text(encoding="utf-8"), k))
    body = "\n".join([HEADER, f"k={k}", *map(str, hashes)]) + "\n"
    write_atomic(LESSON_KGRAMS, body, encoding="ascii")
    stored_lesson_kgrams.cache_clear()
    return len(hashes)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m grader.instructor.similarity.boilerplate",
                                description="store the k-gram hashes of the lesson students read")
    p.add_argument("lesson", type=Path)
    p.add_argument("--noise", type=int, default=NOISE)
    args = p.parse_args(argv)
    count = write_lesson_kgrams(args.lesson, args.noise)
    print(f"{count} hashes of {args.lesson} written to {LESSON_KGRAMS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
