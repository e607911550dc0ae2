"""MOSS-style fingerprints of each submission's code, with copydetect, and the pairs they share.

copydetect tokenizes with pygments and replaces every name by one letter (variables V, functions F,
classes O, strings S) and drops comments and spacing, so renaming and commenting change nothing; it
hashes every k-gram of that and keeps one hash per window (winnowing). Here its token rules are applied
in one pass that also keeps each token's place in the text (tokens.py: char_map), its hash() is replaced
by one that is the same in every process (stable_kgrams), and its winnowing, overlap and slicing functions do
the rest. A submission's files are fingerprinted as one document, and three kinds of fingerprints are
dropped before any pair is scored:

* the kit's exercise stubs (exercises/*.py): every student starts from them;
* the lesson's own code (its k-gram hashes, boilerplate.py): students are told to type it in;
* what many submissions share (MOSS's "max matches"): a fingerprint held by more than ``max_share`` of
  the class (and by more than ``MIN_COMMON`` submissions) is what everybody writes, not a copy.

A pair's similarity is the larger of the two shares of a submission's remaining code found in the
other (a copy padded with extra code still shows), and a pair is flagged only when that share is at
least ``threshold`` and at least ``min_tokens`` tokens match.
"""

from __future__ import annotations

import ast
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from grader.instructor.similarity.boilerplate import lesson_kgrams, text_kgrams
from grader.instructor.similarity.tokens import NOISE, char_map, stable_kgrams
from grader.paths import KIT_ROOT

STUBS_DIR = KIT_ROOT / "exercises"
PER_WORKER = 16  # submissions per extra process, at least
MIN_COMMON = 3  # a fingerprint two or three submissions share is exactly what a copy looks like


@dataclass(frozen=True)
class Settings:
    noise: int = NOISE  # k: matches shorter than this many filtered characters are ignored
    guarantee: int = 30  # matches at least this long are always found (window = guarantee - noise + 1)
    max_share: float = 0.5  # fingerprints in more than this share of the submissions are ignored
    threshold: float = 0.5  # flagged from this similarity ...
    min_tokens: int = 150  # ... and this many matched tokens
    boilerplate: bool = True  # drop the stubs and the lesson's code (off only to show what they would do)
    extra_boilerplate: tuple[Path, ...] = ()  # more given text to ignore (--boilerplate FILE)

    @property
    def window(self) -> int:
        return self.guarantee - self.noise + 1


@dataclass
class Document:
    """One submission's code as one text: each file under a `# ==== name ====` line (a comment: it
    never matches)."""

    name: str
    text: str
    files: list[str]
    fp: Fingerprint
    own_tokens: int = 0  # tokens left once boilerplate and common code are dropped


@dataclass
class Pair:
    a: str
    b: str
    similarity: float
    matched_tokens: int
    flagged: bool
    share_a: float
    share_b: float
    slices_a: np.ndarray = field(repr=False, default_factory=lambda: np.zeros((2, 0), dtype=int))
    slices_b: np.ndarray = field(repr=False, default_factory=lambda: np.zeros((2, 0), dtype=int))


def join_files(code: dict[str, str]) -> tuple[str, list[str]]:
    names = sorted(code)
    text = "".join(f"# ==== {n} ====\n{code[n].rstrip()}\n\n" for n in names)
    return text.replace("\r\n", "\n").replace("\r", "\n"), names


@dataclass
class Fingerprint:
    """What copydetect's CodeFingerprint holds, with a hash that is the same in every process."""

    filtered_code: str
    starts: np.ndarray  # where each character of filtered_code starts in the text as written ...
    ends: np.ndarray  # ... and ends
    every: np.ndarray  # the hash of each k-gram
    hash_idx: dict[int, list[int]]  # winnowed hash -> where its k-grams start
    k: int
    hashes: set[int] = field(default_factory=set)
    token_coverage: int = 0


def _fingerprint(text: str, settings: Settings) -> Fingerprint:
    """copydetect's tokenizing and winnowing (its CodeFingerprint) of one document."""
    from copydetect.utils import get_token_coverage, winnow

    filtered, starts, ends = char_map(text)
    every = stable_kgrams(filtered, settings.noise)
    hash_idx: dict[int, list[int]] = {}
    if len(every):
        hashes, idx = winnow(every, settings.window, remove_duplicates=False)
        for h, i in zip(hashes.tolist(), idx.tolist(), strict=True):
            hash_idx.setdefault(h, []).append(i)
    fp = Fingerprint(filtered, starts, ends, every, hash_idx, settings.noise, set(hash_idx))
    fp.token_coverage = int(get_token_coverage(hash_idx, fp.k, len(filtered)))
    return fp


def _fingerprint_many(texts: list[str], settings: Settings) -> list[Fingerprint]:
    """Fingerprints of every text; on several cores at once for a class (pygments' lexing is most of
    the time: about 30 ms a submission)."""
    workers = min(os.cpu_count() or 1, 8, len(texts) // PER_WORKER)
    if workers < 2:
        return [_fingerprint(t, settings) for t in texts]
    import concurrent.futures
    import multiprocessing

    import copydetect.utils  # noqa: F401 (loaded once here, inherited by the forked workers)
    import pygments.lexers.python  # noqa: F401

    # fork, not spawn: nothing to import again. `grade batch` calls this once its children are done.
    fork = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=fork) as pool:
        return list(pool.map(_fingerprint, texts, [settings] * len(texts), chunksize=PER_WORKER // 2))


def _bare(text: str) -> str:
    """The stub without its annotations and docstrings: the signatures as a student who drops the type
    hints writes them (`def train_reversal(mode, seed=0, steps=300, *, length=8, ...)`)."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
            for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs,
                        node.args.vararg, node.args.kwarg]:
                if arg is not None:
                    arg.annotation = None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                node.body = body[1:] or [ast.Pass()]
    return ast.unparse(tree)


def boilerplate_hashes(settings: Settings) -> set[int]:
    """Every k-gram hash (not just the winnowed ones) of what every student is given: the stubs, as
    written and without type hints, and the lesson's code."""
    stubs = [p.read_text(encoding="utf-8") for p in sorted(STUBS_DIR.glob("*.py"))]
    hashes = lesson_kgrams(settings.noise, settings.extra_boilerplate)
    for text in [*stubs, *(_bare(t) for t in stubs)]:
        hashes |= text_kgrams(text, settings.noise)
    return hashes


def _drop(fp: Fingerprint, ignored: set[int], boilerplate: set[int]) -> None:
    """Remove the fingerprints of ``ignored`` hashes, and every fingerprint that overlaps a stretch of
    boilerplate (the seams where a student's code meets pasted stub or lesson code would otherwise
    match between two students who pasted the same pieces); recount the tokens still covered."""
    from copydetect.utils import get_token_coverage

    k = fp.k
    keep_at = None
    if boilerplate and len(fp.filtered_code) >= k:
        hit = np.fromiter((h in boilerplate for h in fp.every.tolist()), bool, len(fp.every))
        starts = np.flatnonzero(hit)
        covered = np.zeros(len(fp.filtered_code) + 1, dtype=np.int64)
        np.add.at(covered, starts, 1)
        np.add.at(covered, starts + k, -1)
        inside = np.cumsum(covered)[:-1] > 0  # a character inside some boilerplate k-gram
        seen = np.concatenate([[0], np.cumsum(inside)])
        keep_at = lambda i: seen[i + k] - seen[i] == 0  # noqa: E731 (the k-gram at i touches none)
    kept = {}
    for h, where in fp.hash_idx.items():
        if h in ignored:
            continue
        where = [i for i in where if keep_at is None or keep_at(i)]
        if where:
            kept[h] = where
    fp.hash_idx = kept
    fp.hashes = set(kept)
    fp.token_coverage = int(get_token_coverage(kept, k, len(fp.filtered_code)))


def fingerprint_all(codes: dict[str, dict[str, str]], settings: Settings) -> tuple[list[Document], int]:
    """A Document per submission that has code, with boilerplate and common fingerprints dropped;
    also how many fingerprints were dropped as common to the class."""
    joined = {name: join_files(codes[name]) for name in sorted(codes) if codes[name]}
    texts = [text for text, _ in joined.values()]
    fps = _fingerprint_many(texts, settings)
    docs = [Document(name, text, files, fp)
            for (name, (text, files)), fp in zip(joined.items(), fps, strict=True)]
    boilerplate = boilerplate_hashes(settings) if settings.boilerplate else set()
    held = Counter(h for d in docs for h in d.fp.hashes)
    limit = max(MIN_COMMON, settings.max_share * len(docs))
    common = {h for h, count in held.items() if count > limit and h not in boilerplate}
    for d in docs:
        _drop(d.fp, common | boilerplate, boilerplate)
        d.own_tokens = int(d.fp.token_coverage)
    return docs, len(common)


def raw_slices(doc: Document, slices: np.ndarray) -> np.ndarray:
    """Slices [start, end) of the filtered code -> the same stretches of the text as written."""
    if slices.shape[-1] == 0:
        return slices
    return np.array([doc.fp.starts[slices[0]], doc.fp.ends[slices[1] - 1]])


def compare(a: Document, b: Document, settings: Settings) -> Pair:
    """copydetect's comparison (its compare_files), keeping the matched tokens of both sides."""
    from copydetect.utils import find_fingerprint_overlap, get_copied_slices

    if not a.fp.hashes & b.fp.hashes:
        return Pair(a.name, b.name, 0.0, 0, False, 0.0, 0.0)
    idx_a, idx_b = find_fingerprint_overlap(a.fp.hashes, b.fp.hashes, a.fp.hash_idx, b.fp.hash_idx)
    slices_a, slices_b = get_copied_slices(idx_a, a.fp.k), get_copied_slices(idx_b, b.fp.k)
    matched_a = int(np.sum(slices_a[1] - slices_a[0]))
    matched_b = int(np.sum(slices_b[1] - slices_b[0]))
    share_a = min(matched_a / a.own_tokens, 1.0) if a.own_tokens else 0.0
    share_b = min(matched_b / b.own_tokens, 1.0) if b.own_tokens else 0.0
    # The smaller side's count, so that code repeated on one side does not inflate it.
    matched = min(matched_a, matched_b)
    similarity = max(share_a, share_b)
    flagged = similarity >= settings.threshold and matched >= settings.min_tokens
    return Pair(a.name, b.name, round(similarity, 4), matched, flagged, round(share_a, 4), round(share_b, 4),
                slices_a.astype(int), slices_b.astype(int))


def compare_all(docs: list[Document], settings: Settings) -> list[Pair]:
    """Every pair, most similar first (ties: most matched tokens, then the names)."""
    pairs = [compare(docs[i], docs[j], settings) for i in range(len(docs)) for j in range(i + 1, len(docs))]
    pairs.sort(key=lambda p: (-p.similarity, -p.matched_tokens, p.a, p.b))
    return pairs
