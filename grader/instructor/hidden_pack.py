"""The hidden suite as an encrypted, authenticated archive for CI.

``grade pack-hidden OUT [--lesson NAME]`` seals the lesson's hidden suite and reference solutions
(its ``suites/hidden`` and its reference solutions) into one file that is safe to commit
anywhere (even the student repository): without the passphrase it is noise, and any change to it is
detected.  The trusted workflow holds the passphrase in a secret and runs ``grade --hidden-from OUT``.

Format (all integers big-endian)::

    MAGIC(8) | log2_n(1) r(1) p(1) | salt(16) | check(16) | nonce(12) | AES-256-GCM(tar.gz)

The key comes from scrypt(passphrase, salt): its first 32 bytes are the AES key,
the next 16 are ``check``, so a wrong passphrase is told apart from a damaged
archive.  The whole header is the GCM associated data, so it cannot be edited
either.
"""

from __future__ import annotations

import argparse
import atexit
import hmac
import io
import json
import os
import secrets
import shutil
import sys
import tarfile
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from grader.engine.flags import add_lesson_argument, lesson_from_args
from grader.engine.lessons import load_lesson
from grader.engine.options import UsageProblem

if TYPE_CHECKING:
    from grader.engine.options import GradeOptions

MAGIC = b"GKHIDE1\n"
DEFAULT_KEY_ENV = "GK_HIDDEN_KEY"
HIDDEN_TMP_ENV = "GK_HIDDEN_TMP"  # where the decrypted copy goes (default: the system's temp folder)
SCRYPT_LOG2_N, SCRYPT_R, SCRYPT_P = 15, 8, 1  # ~32 MiB, ~0.1 s: cheap for CI, costly to brute-force
MAX_LOG2_N = 20  # a forged header must not make us allocate gigabytes
HEADER = len(MAGIC) + 3 + 16 + 16 + 12
MIN_PASSPHRASE = 16
ROOTS = ("hidden", "solutions")
# The hidden tests import the grader by module path (grader.core.testkit, ...).  Format 4 is the
# layout with core/ (testkit, feedback, errors) in the kit and every lesson's checks and probes in its own
# installed package (the kit holds no lesson); an older archive imports modules that moved
# (format 1: the flat modules, format 2: grader.lesson.testkit, grader.engine.feedback, format 3:
# grader.core.testkit's pe_formula, grader.runtime.probes' build_function, format 4: a lesson inside
# grader/), so it is refused with the command that re-seals it rather than failing test by test.
LAYOUT_FORMAT = 5
SKIP_PARTS = {"__pycache__", ".pytest_cache", ".ipynb_checkpoints"}


class HiddenArchiveError(Exception):
    """The archive cannot be used: a one-line, bilingual reason (exit status 2)."""


@dataclass
class Unpacked:
    root: Path
    suites_dir: Path
    solutions: Path
    manifest: dict


def holds_reference(folder: Path, modules: tuple[str, ...]) -> bool:
    """Whether ``folder`` holds a reference for the lesson: a file for each module its students write."""
    return bool(modules) and all((folder / f"{module}.py").is_file() for module in modules)


def _derive(passphrase: str, salt: bytes, log2_n: int, r: int, p: int) -> tuple[bytes, bytes]:
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    out = Scrypt(salt=salt, length=48, n=2**log2_n, r=r, p=p).derive(passphrase.encode("utf-8"))
    return out[:32], out[32:]


def passphrase_from_env(name: str) -> str:
    """Read the passphrase, then drop it from the environment so no child process inherits it."""
    value = os.environ.pop(name, "").strip()
    if not value:
        raise HiddenArchiveError(
            f"the key is missing: set the environment variable {name} (in CI: a repository secret); "
            f"make one with `python -c \"import secrets; print(secrets.token_urlsafe(32))\"` / "
            f"키가 없습니다: 환경 변수 {name}을(를) 설정하세요(CI에서는 저장소 secret)"
        )
    return value


# -- sealing ----------------------------------------------------------------------
def _files(root: Path) -> list[Path]:
    return sorted(
        f for f in root.rglob("*")
        if f.is_file() and not f.is_symlink() and not SKIP_PARTS.intersection(f.relative_to(root).parts)
        and f.suffix != ".pyc"
    )


def build_tar(hidden: Path, solutions: Path) -> tuple[bytes, dict]:
    """A deterministic tar.gz of hidden/ and solutions/ plus a manifest."""
    buf = io.BytesIO()
    manifest: dict = {"format": LAYOUT_FORMAT, "files": {}}
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, root in (("hidden", hidden), ("solutions", solutions)):
            for f in _files(root):
                arcname = f"{name}/{f.relative_to(root).as_posix()}"
                data = f.read_bytes()
                info = tarfile.TarInfo(arcname)
                info.size, info.mode, info.mtime = len(data), 0o644, 0
                tar.addfile(info, io.BytesIO(data))
                manifest["files"][arcname] = len(data)
        blob = json.dumps(manifest, sort_keys=True).encode()
        info = tarfile.TarInfo("manifest.json")
        info.size, info.mode, info.mtime = len(blob), 0o644, 0
        tar.addfile(info, io.BytesIO(blob))
    return buf.getvalue(), manifest


def seal(payload: bytes, passphrase: str, *, log2_n: int = SCRYPT_LOG2_N) -> bytes:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    salt, nonce = secrets.token_bytes(16), secrets.token_bytes(12)
    key, check = _derive(passphrase, salt, log2_n, SCRYPT_R, SCRYPT_P)
    header = MAGIC + bytes([log2_n, SCRYPT_R, SCRYPT_P]) + salt + check + nonce
    return header + AESGCM(key).encrypt(nonce, payload, header)


# -- opening ------------------------------------------------------------------------
def _key_parameters(blob: bytes) -> tuple[int, int, int]:
    """The scrypt parameters of a sealed archive's header; HiddenArchiveError for anything else."""
    if len(blob) < HEADER + 16 or not blob.startswith(MAGIC):
        raise HiddenArchiveError(
            "not a hidden-suite archive (wrong file, or its first bytes were changed); make one with "
            "`grade pack-hidden` / 숨김 테스트 아카이브가 아닙니다(다른 파일이거나 앞부분이 바뀌었습니다). "
            "`grade pack-hidden`으로 만드세요"
        )
    log2_n, r, p = blob[len(MAGIC):len(MAGIC) + 3]
    if not (10 <= log2_n <= MAX_LOG2_N and 1 <= r <= 32 and 1 <= p <= 16):
        raise HiddenArchiveError("the archive header was tampered with (impossible key parameters) / "
                                 "아카이브 헤더가 변조되었습니다(불가능한 키 매개변수)")
    return log2_n, r, p


def open_sealed(blob: bytes, passphrase: str) -> bytes:
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    log2_n, r, p = _key_parameters(blob)
    at = len(MAGIC) + 3
    salt, check, nonce = blob[at:at + 16], blob[at + 16:at + 32], blob[at + 32:at + 44]
    key, expected = _derive(passphrase, salt, log2_n, r, p)
    if not hmac.compare_digest(check, expected):
        raise HiddenArchiveError(
            "wrong key: this archive was sealed with a different passphrase (check the secret's value) / "
            "키가 틀렸습니다: 이 아카이브는 다른 암호로 봉인되었습니다(secret 값을 확인하세요)"
        )
    try:
        return AESGCM(key).decrypt(nonce, blob[HEADER:], blob[:HEADER])
    except InvalidTag:
        raise HiddenArchiveError(
            "the archive was modified or damaged after it was sealed (authentication failed); pack it again "
            "/ 아카이브가 봉인된 뒤 변경되었거나 손상되었습니다(인증 실패). 다시 만드세요"
        ) from None


def _safe_members(tar: tarfile.TarFile) -> list[tarfile.TarInfo]:
    members = []
    for m in tar.getmembers():
        parts = PurePosixPath(m.name).parts
        ok = m.isfile() and parts and ".." not in parts and not m.name.startswith("/") and (
            parts[0] in ROOTS or m.name == "manifest.json")
        if not ok:
            raise HiddenArchiveError(f"the archive holds an unexpected entry {m.name!r} / "
                                     f"아카이브에 예상하지 못한 항목 {m.name!r}이(가) 있습니다")
        members.append(m)
    return members


def _read(archive: Path) -> bytes:
    try:
        return archive.read_bytes()
    except OSError as exc:
        raise HiddenArchiveError(f"cannot read the hidden archive {archive}: {exc.strerror} / "
                                 f"숨김 테스트 아카이브 {archive}을(를) 읽을 수 없습니다") from None


def precheck(archive: Path, key_env: str = DEFAULT_KEY_ENV) -> None:
    """What `grade --hidden-from` can tell before anything starts (the zygote imports torch, seconds):
    the key is set, the archive is readable and is one. HiddenArchiveError with the line the grade would
    say; the key stays in the environment for the grade, and a wrong key is found where it is used."""
    if not os.environ.get(key_env, "").strip():
        passphrase_from_env(key_env)  # raises its line
    _key_parameters(_read(archive))


def unpack(archive: Path, passphrase: str, public_suites: Path, into: Path) -> Unpacked:
    """Decrypt ``archive`` into ``into`` and lay out a suites folder: public + hidden + pytest.ini."""
    payload = open_sealed(_read(archive), passphrase)
    data = into / "data"
    with tarfile.open(fileobj=io.BytesIO(payload), mode="r:gz") as tar:
        for m in _safe_members(tar):
            target = data / m.name
            target.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(m)
            assert src is not None
            target.write_bytes(src.read())
    manifest = json.loads((data / "manifest.json").read_text()) if (data / "manifest.json").is_file() else {}
    if manifest.get("format") != LAYOUT_FORMAT:
        raise HiddenArchiveError(
            f"the archive was sealed by an older kit (format {manifest.get('format')}, this kit reads "
            f"{LAYOUT_FORMAT}): re-seal it with `grade pack-hidden {archive}` / 이전 버전 키트로 봉인된 "
            f"아카이브입니다. `grade pack-hidden {archive}`로 다시 봉인하세요")
    if not any((data / "hidden").glob("test_*.py")):
        raise HiddenArchiveError("the archive holds no hidden tests (hidden/test_*.py) / "
                                 "아카이브에 숨김 테스트(hidden/test_*.py)가 없습니다")
    suites = into / "suites"
    shutil.copytree(public_suites / "public", suites / "public",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(public_suites / "pytest.ini", suites / "pytest.ini")
    shutil.move(str(data / "hidden"), suites / "hidden")
    solutions = data / "solutions"
    return Unpacked(into, suites, solutions, manifest)


def open_hidden_archive(archive: Path, public_suites: Path, key_env: str = DEFAULT_KEY_ENV) -> Unpacked:
    """For `grade --hidden-from`: decrypt into a private folder (mkdtemp: 0700), removed at exit.

    The caller points its GradeOptions at ``suites_dir`` and ``solutions`` and hides ``root`` from
    the worker's view (the decrypted copy must never be bound into the sandbox).
    """
    passphrase = passphrase_from_env(key_env)
    # GK_HIDDEN_TMP: a cluster task's own folder (batch/cluster/task.py), removed with it even
    # when this process is killed before its atexit runs
    root = Path(tempfile.mkdtemp(prefix="gk-hidden-", dir=os.environ.get(HIDDEN_TMP_ENV) or None))
    atexit.register(shutil.rmtree, root, True)
    return unpack(archive, passphrase, public_suites, root)


def options_with_archive(options: GradeOptions, archive: Path, key_env: str) -> GradeOptions:
    """``options`` pointed at the hidden suite sealed in ``archive`` (`grade --hidden-from`, and a batch's
    children); ValueError with the reason."""
    try:
        unpacked = open_hidden_archive(archive, options.suites_dir, key_env)
    except HiddenArchiveError as exc:
        raise ValueError(str(exc)) from None
    policy = replace(options.policy, hide=(*options.policy.hide, str(unpacked.root)))
    modules = load_lesson(options.lesson).layout.modules
    solutions = unpacked.solutions if holds_reference(unpacked.solutions, modules) else options.solutions_dir
    return replace(options, hidden=True, suites_dir=unpacked.suites_dir, solutions_dir=solutions,
                   policy=policy)


# -- `grade pack-hidden` ----------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="grade pack-hidden",
                                description="Seal the hidden suite and the solutions into an encrypted "
                                            "archive for CI.")
    p.add_argument("out", help="archive to write (e.g. grading/hidden.gkpack)")
    p.add_argument("--key-env", default=DEFAULT_KEY_ENV,
                   help=f"environment variable holding the passphrase (default: {DEFAULT_KEY_ENV})")
    p.add_argument("--hidden", default=None, help="hidden suite folder (default: the lesson's)")
    p.add_argument("--solutions", default=None, help="reference solutions folder (default: the lesson's)")
    add_lesson_argument(p)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        lesson = lesson_from_args(args).load()
    except UsageProblem as exc:
        print(f"grade pack-hidden: {exc}", file=sys.stderr)
        return 2
    hidden = Path(args.hidden) if args.hidden else (lesson.suites or Path(".")) / "hidden"
    solutions = Path(args.solutions) if args.solutions else lesson.solutions or Path("solutions")
    try:
        if not any(hidden.glob("test_*.py")):
            raise HiddenArchiveError(f"no hidden tests in {hidden} (this copy of the kit has none) / "
                                     f"{hidden}에 숨김 테스트가 없습니다")
        if not holds_reference(solutions, lesson.layout.modules):
            raise HiddenArchiveError(f"no reference solutions in {solutions} / {solutions}에 참조 답안이 "
                                     "없습니다")
        passphrase = passphrase_from_env(args.key_env)
        if len(passphrase) < MIN_PASSPHRASE:
            raise HiddenArchiveError(f"the passphrase in {args.key_env} is too short (at least "
                                     f"{MIN_PASSPHRASE} characters) / {args.key_env}의 암호가 너무 "
                                     f"짧습니다(최소 {MIN_PASSPHRASE}자)")
    except HiddenArchiveError as exc:
        print(f"grade pack-hidden: {exc}", file=sys.stderr)
        return 2
    payload, manifest = build_tar(hidden, solutions)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(seal(payload, passphrase))
    print(f"sealed {len(manifest['files'])} files into {out} ({out.stat().st_size} bytes); "
          f"commit it, and store the passphrase as the CI secret {args.key_env}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
