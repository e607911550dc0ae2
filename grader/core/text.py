"""What a submitted file's bytes are: text (and how it was decoded) or, where not, what it looks like.

The staging step (engine/submission.py) and the messages of a failed import (core/feedback.py) both
name a binary file by ``BINARY_KINDS``.
"""

from __future__ import annotations

import re

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
