"""Replayable grading: every random input comes from a seed, fixed per submission where students
must not predict it (the hidden suite), fixed per lesson where they may (the public tests).

    submission seed = HMAC-SHA256(course secret, sha256 of the staged files)
    public seed     = HMAC-SHA256("gk-public-seed", "public:" + the lesson's module)

(a notebook's staged driver read as the code it runs, its kept statements: its cell numbers, file
name and skipped statements differ between the saved notebook and check()'s kernel, its inputs must not)

The course secret is the instructor's: ``GK_COURSE_SECRET`` (a string), else the
file named by ``GK_COURSE_SECRET_FILE``, else a random one created once in
``$XDG_STATE_HOME/grading-kit/course-secret`` (0600).  A batch keeps its own
beside its results (``use_batch_secret``), so a regrade elsewhere replays it.
The same submission graded twice draws the same inputs; a changed one draws
fresh ones.  A public run (a student's `grade`, `check()`, the warm grader; never
``--hidden``, ``--hidden-from``, `grade batch` or Gradescope) draws from the public
seed instead: the public tests are in the student's copy, so nothing is hidden by
a secret there (a student's own machine holds its secret anyway), and the same
code sees the same inputs in every run and place (a laptop, a notebook, CI), and
an edit to one file leaves the other tests' inputs as they were (a warm re-grade
reuses them, engine/reuse.py).  ``GK_GRADING_SEED`` replays a seed recorded in results.json
without the secret (the report's instructor reproduce command sets it).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

SECRET_ENV = "GK_COURSE_SECRET"
SECRET_FILE_ENV = "GK_COURSE_SECRET_FILE"
SEED_ENV = "GK_GRADING_SEED"
BATCH_SECRET = "course-secret"


def default_secret_file() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "grading-kit" / "course-secret"


def _read_or_create(path: Path) -> bytes:
    try:
        return path.read_bytes().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = secrets.token_hex(32).encode()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another grader process made it first: use theirs
        return path.read_bytes().strip()
    with os.fdopen(fd, "wb") as fh:
        fh.write(fresh + b"\n")
    return fresh


def course_secret() -> tuple[bytes, str]:
    """(secret, where it came from) — the source is recorded, never the secret."""
    if os.environ.get(SECRET_ENV):
        return os.environ[SECRET_ENV].encode(), f"${SECRET_ENV}"
    path = Path(os.environ.get(SECRET_FILE_ENV) or default_secret_file())
    try:
        return _read_or_create(path), str(path)
    except OSError:  # a read-only home: still unpredictable, replayable only through the recorded seed
        return secrets.token_hex(32).encode(), "ephemeral"


def use_batch_secret(out_dir: Path) -> None:
    """A batch without an explicit secret keeps a random one in its out folder (its children inherit it)."""
    if not os.environ.get(SECRET_ENV) and not os.environ.get(SECRET_FILE_ENV):
        os.environ[SECRET_FILE_ENV] = str(Path(out_dir) / BATCH_SECRET)


PUBLIC_KEY = b"gk-public-seed"


def replay_info(content_hash: str, public: str | None = None) -> dict:
    """The run's seed and what it was made from (results.json ``replay``): ``public``, the lesson's
    module for a public run (the public seed), else None (the submission seed).  ``content_hash`` is
    the staged files' hash either way (what was graded)."""
    if os.environ.get(SEED_ENV):
        seed = os.environ[SEED_ENV].strip().lower()
        return {"seed": seed, "content_hash": content_hash, "secret": f"${SEED_ENV}", "made_from": "given"}
    if public is not None:
        made_from = f"public:{public}"
        seed = hmac.new(PUBLIC_KEY, made_from.encode(), hashlib.sha256).hexdigest()[:32]
        return {"seed": seed, "content_hash": content_hash, "made_from": made_from}
    secret, source = course_secret()
    seed = hmac.new(secret, content_hash.encode(), hashlib.sha256).hexdigest()[:32]
    fingerprint = hashlib.sha256(b"gk-secret-id:" + secret).hexdigest()[:12]
    return {
        "seed": seed,
        "content_hash": content_hash,
        "secret": source,
        "secret_id": fingerprint,
        "made_from": "submission",
    }


def derive(seed: str, key: str) -> int:
    """A 63-bit integer for one use (``key``) of the submission seed."""
    return int.from_bytes(hmac.new(seed.encode(), key.encode(), hashlib.sha256).digest()[:8], "big") >> 1
