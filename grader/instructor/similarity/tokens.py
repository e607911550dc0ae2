"""copydetect's tokens and k-gram hashes, as both the fingerprints (fingerprint.py) and the lesson's stored
hashes (boilerplate.py) read a text: the same rules, the same hash, in every process.

copydetect replaces every name by one letter (variables V, functions F, classes O, strings S) and drops
comments and spacing; ``char_map`` applies its rules in one pass that also keeps each character's place in
the text as written, ``stable_kgrams`` hashes every k-gram of the result with a hash that does not change
between processes (copydetect's ``hash()`` does).
"""

from __future__ import annotations

from hashlib import blake2b

import numpy as np

NOISE = 25  # k: matches shorter than this many filtered characters are ignored (copydetect's default)


def stable_kgrams(filtered: str, k: int) -> np.ndarray:
    """The hash of every k-gram. copydetect uses hash(), which differs from one process to the next
    (PYTHONHASHSEED): a shard's run and the merged folder's must pick the same fingerprints."""
    data = filtered.encode("utf-8", "surrogatepass")
    if len(filtered) != len(data):  # non-ASCII kept verbatim (an identifier is V): hash the text's characters
        grams = (filtered[i:i + k].encode("utf-8", "surrogatepass") for i in range(len(filtered) - k + 1))
    else:
        grams = (data[i:i + k] for i in range(len(data) - k + 1))
    digests = (blake2b(g, digest_size=8).digest() for g in grams)
    return np.array([int.from_bytes(d, "little", signed=True) for d in digests], dtype=np.int64)


_LEXER = None


def char_map(text: str) -> tuple[str, np.ndarray, np.ndarray]:
    """copydetect's filtered code (its utils.filter_code, whose rules these are) with, for each of its
    characters, where it starts and ends in ``text``: copydetect's own offsets shift a match that ends
    next to a comment or a class name, and a second lexing pass would double the time."""
    global _LEXER
    from pygments import token
    from pygments.lexers import PythonLexer

    _LEXER = _LEXER or PythonLexer()
    variables = {token.Name, token.Name.Variable, token.Name.Attribute}
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for index, kind, value in _LEXER.get_tokens_unprocessed(text):
        if kind in variables:
            emitted = "V"
        elif kind in token.Name.Function:
            emitted = "F"
        elif kind in token.Name.Class:
            emitted = "O"
        elif kind == token.Comment.Preproc or kind == token.Comment.Hashbang:
            emitted = "P"
        elif kind in token.Text or kind in token.Comment:
            continue
        elif kind in token.Literal.String:
            emitted = '"' if value in ("'", '"') else "S"
        else:
            out.append(value)
            starts.extend(range(index, index + len(value)))
            ends.extend(range(index + 1, index + len(value) + 1))
            continue
        out.append(emitted)
        starts.append(index)
        ends.append(index + len(value))
    return "".join(out), np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)
