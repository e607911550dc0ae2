"""What a submitted file's bytes are: text (and how it was decoded) or, where not, what it looks like.

The staging step (engine/submission.py) and the messages of a failed import (core/feedback.py) both
name a binary file by ``BINARY_KINDS``.  Python source is read one way only, the importer's
(``python_source``): staging (``as_python``) and every trusted reader of a staged file
(``read_python``: core/source.py, core/tamper.py, lesson/structure.py, engine/locate.py) go through it,
so a file the worker can import is never one the grader cannot find or parse.
"""

from __future__ import annotations

import importlib.util
import io
import re
from dataclasses import dataclass
from pathlib import Path

# What a file that is not text looks like, by its first bytes: (English, Korean) for the messages.
BINARY_KINDS: dict[str, tuple[str, str]] = {
    "zip": ("a zip archive (a .zip, or a Word/Office document, saved under this name?)",
            "zip 압축 파일(.zip이나 Word 같은 Office 문서를 이 이름으로 저장했나요?)"),
    "pyc": ("compiled Python bytecode (a .pyc from __pycache__, not the source)",
            "컴파일된 파이썬 바이트코드(__pycache__의 .pyc이지 소스가 아닙니다)"),
    "pdf": ("a PDF document", "PDF 문서"),
    "image": ("an image", "이미지 파일"),
    "office": ("an old-style Office document (.doc/.hwp?)", "예전 형식의 Office/한글 문서(.doc/.hwp?)"),
    "binary": ("binary data (it holds NUL bytes)", "바이너리 데이터(NUL 바이트가 들어 있음)"),
    "encoding": ("text in an encoding that is neither UTF-8 nor a Korean Windows encoding",
                 "UTF-8도 한국어 윈도우 인코딩도 아닌 글자"),
}
_MAGIC = ((b"PK\x03\x04", "zip"), (b"%PDF", "pdf"), (b"\x89PNG", "image"), (b"\xff\xd8\xff", "image"),
          (b"GIF8", "image"), (b"\xd0\xcf\x11\xe0", "office"))
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def as_text(data: bytes) -> tuple[str | None, str, str]:
    """(the file as text, or None when it is not text; what it is, from BINARY_KINDS; a note on a conversion).

    UTF-16 (Notepad's "Unicode") and the Korean Windows encoding (cp949) are converted to
    UTF-8; anything with NUL bytes or undecodable is named by what it looks like.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "", "saved as UTF-16: read as such and converted to UTF-8"
        except UnicodeDecodeError:
            pass
    kind = next((k for magic, k in _MAGIC if data.startswith(magic)), None)
    if kind is None and len(data) >= 4 and data[2:4] == b"\r\n" and b"\0" in data[4:16]:
        kind = "pyc"  # the first two bytes are the Python version's magic number
    if kind is not None or b"\0" in data:
        return None, kind or "binary", ""
    try:
        return data.decode("utf-8"), "", ""
    except UnicodeDecodeError:
        pass
    head = data.split(b"\n", 2)[:2]
    if any(_CODING.match(line) for line in head):
        return data.decode("utf-8", "replace"), "", ""  # a declared encoding: Python reads it as declared
    try:
        return data.decode("cp949"), "", "saved in the Korean Windows encoding (cp949): converted to UTF-8"
    except UnicodeDecodeError:
        return None, "encoding", ""


_COOKIE = re.compile(r"^([ \t\f]*#.*?coding[:=][ \t]*)([-\w.]+)")


def python_source(data: bytes) -> str:
    """The text CPython's importer compiles from ``data``: ``importlib.util.decode_source``.

    The encoding is the PEP 263 coding cookie's, else UTF-8 (a UTF-8 byte-order mark is
    dropped); CRLF and lone CR are read as LF; form feeds and tabs stay as they are (the
    tokenizer gives them their meaning).  Raises SyntaxError, UnicodeDecodeError or
    LookupError where the importer refuses the bytes.
    """
    if b"\0" in data:
        raise SyntaxError("source code cannot contain null bytes")
    # The C tokenizer ends a line at a lone CR when it looks for the cookie; tokenize.detect_encoding
    # does not (a CR-only file would be one line).  Source encodings are ASCII-compatible and no
    # multi-byte character of one holds a CR or LF byte, so the bytes' line ends can be made LF first.
    return importlib.util.decode_source(data.replace(b"\r\n", b"\n").replace(b"\r", b"\n"))


def universal_newlines(text: str) -> str:
    """CRLF and lone CR as LF, as the importer and Python's text files read them."""
    return io.IncrementalNewlineDecoder(None, translate=True).decode(text, final=True)


def read_python(path: Path) -> str:
    """A staged ``.py`` file as the worker's importer reads it: the trusted side's one reader of source.

    Bytes the importer refuses cannot be imported either (the worker's import says why);
    they read as UTF-8 with replacement characters so the scans still see what is there.
    """
    data = Path(path).read_bytes()
    try:
        return python_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return universal_newlines(data.decode("utf-8", "replace").removeprefix("\ufeff"))


@dataclass(frozen=True)
class PythonFile:
    """A submitted ``.py`` as staged: ``staged`` is what the worker imports, ``text`` what it compiles."""

    text: str | None  # None: not text at all (``kind`` says what it looks like)
    staged: bytes
    kind: str = ""
    note: str = ""  # a conversion worth telling the student (UTF-16, cp949 without a cookie)


def _utf8_cookie(text: str) -> str:
    """``text`` with a coding cookie naming another encoding rewritten to utf-8 (it is staged as UTF-8)."""
    lines = text.split("\n", 2)
    for i in range(min(2, len(lines))):
        if _COOKIE.match(lines[i]):
            lines[i] = _COOKIE.sub(r"\g<1>utf-8", lines[i], count=1)
            break
    return "\n".join(lines)


def as_python(data: bytes) -> PythonFile:
    """Stage a ``.py`` file as UTF-8 text that compiles to exactly what the importer makes of ``data``.

    BOM, CRLF/CR and a declared encoding (``# -*- coding: cp949 -*-``) are normalised away: the
    worker and every trusted reader then see one text.  Bytes the importer refuses are converted
    where the kit is kinder than Python (UTF-16, cp949 without a cookie) or staged as they are, so
    that the worker's import reports Python's own error.
    """
    note = ""
    try:
        text = python_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        converted, kind, note = as_text(data)
        if converted is None:
            return PythonFile(None, data, kind)
        if not note:  # a declared encoding the bytes do not follow: Python's error, at import
            return PythonFile(universal_newlines(converted), data)
        text = universal_newlines(converted.removeprefix("\ufeff"))
    staged = text.encode("utf-8")
    try:
        same = python_source(staged) == text
    except (SyntaxError, UnicodeDecodeError, LookupError):
        same = False
    if not same:  # the cookie names the file's old encoding
        text = _utf8_cookie(text)
        staged = text.encode("utf-8")
    return PythonFile(text, staged, note=note)


def markdown_text(text: str) -> str:
    """A text file (the LeetCode log) as an editor shows it: no byte-order mark, LF line ends."""
    return universal_newlines(text.removeprefix("\ufeff"))
