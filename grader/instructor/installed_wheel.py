"""A wheel rebuilt from an installed distribution: what the Gradescope bundle ships of a kit or a lesson
that was installed from a wheel (not editable), so has no source folder to ship.

A wheel is a zip of the files pip put in site-packages plus the distribution's ``.dist-info`` with a
RECORD naming each file with its hash and size (PEP 427 / the binary distribution format). The installed
RECORD lists exactly those files, so the wheel is rebuilt from it, as the files are now (what grades
here is what grades there). Left out: byte code (``__pycache__``, pip compiles again), the files pip
writes about this installation (INSTALLER, REQUESTED, direct_url.json), RECORD itself (written anew) and
its signatures, and the console scripts pip wrote outside site-packages (it writes them again from
entry_points.txt, which stays, with the ``grader.lessons`` entry point in it).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import stat
import zipfile
from dataclasses import dataclass
from importlib.metadata import Distribution, PackagePath
from pathlib import Path

# Files of a .dist-info that describe one installation, not the distribution.
INSTALL_ONLY = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD", "RECORD.jws", "RECORD.p7s"}
SCRIPT_GROUPS = ("console_scripts", "gui_scripts")  # pip writes these scripts from entry_points.txt
DATE = (2020, 1, 1, 0, 0, 0)  # fixed, so the same installed files give the same wheel


@dataclass(frozen=True)
class Wheel:
    """A wheel in memory: its file name (``name-version-tag.whl``) and its bytes."""

    filename: str
    data: bytes


def installed_distribution(package: Path) -> Distribution | None:
    """The distribution whose RECORD installed the package folder ``package`` (its ``.dist-info`` lies
    beside it, as a wheel installs one); None for a package that no such RECORD lists (an editable
    install lists only its .pth and finder, a source tree has none)."""
    package = Path(package).resolve()
    for info in sorted(package.parent.glob("*.dist-info")):
        dist = Distribution.at(info)
        if any(f.parts[:1] == (package.name,) for f in dist.files or ()):
            return dist
    return None


def rebuild_wheel(dist: Distribution) -> Wheel:
    """The wheel of the installed ``dist``, from its installed files. ValueError when it cannot be
    rebuilt faithfully: no RECORD, no WHEEL, a listed file missing, or a file installed outside
    site-packages that is not a script pip writes again."""
    files = dist.files
    if files is None:
        raise ValueError(f"{dist.metadata['Name']} has no RECORD of its installed files")
    info = _info_dir(files)
    tag = _tag(dist.read_text("WHEEL") or "")
    if info is None or tag is None:
        raise ValueError(f"{dist.metadata['Name']} was not installed from a wheel (no .dist-info/WHEEL "
                         "with its tags)")
    scripts = {ep.name for ep in dist.entry_points if ep.group in SCRIPT_GROUPS}
    outside = [str(f) for f in files if f.parts[:1] == ("..",) and f.name not in scripts]
    if outside:
        raise ValueError(f"{dist.metadata['Name']} installed files outside site-packages: "
                         f"{', '.join(outside[:5])}")
    kept = sorted((f for f in files if _kept(f, info)), key=lambda f: (f.parts[0] == info, str(f)))
    buffer = io.BytesIO()
    record = io.StringIO()
    rows = csv.writer(record, lineterminator="\n")
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in kept:
            path = Path(str(dist.locate_file(f)))
            try:
                data = path.read_bytes()
                mode = stat.S_IMODE(path.stat().st_mode)
            except OSError as exc:
                raise ValueError(f"{dist.metadata['Name']}: {f} is listed in its RECORD but unreadable "
                                 f"({exc.strerror})") from exc
            _write(zf, f.as_posix(), data, mode)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.writerow([f.as_posix(), f"sha256={digest}", len(data)])
        rows.writerow([f"{info}/RECORD", "", ""])
        _write(zf, f"{info}/RECORD", record.getvalue().encode("utf-8"), 0o644)
    return Wheel(f"{info.removesuffix('.dist-info')}-{tag}.whl", buffer.getvalue())


def _info_dir(files: list[PackagePath]) -> str | None:
    """The ``name-version.dist-info`` folder the RECORD lists (a wheel's file name is made from it)."""
    return next((f.parts[0] for f in files if len(f.parts) == 2 and f.parts[0].endswith(".dist-info")), None)


def _kept(f: PackagePath, info: str) -> bool:
    if f.parts[:1] == ("..",) or "__pycache__" in f.parts or f.suffix == ".pyc":
        return False
    return not (f.parts[0] == info and f.name in INSTALL_ONLY)


def _tag(wheel_text: str) -> str | None:
    """The file name's tag from WHEEL's ``Tag:`` lines (several compress to ``py2.py3-none-any``)."""
    tags = [line.split(":", 1)[1].strip().split("-") for line in wheel_text.splitlines()
            if line.startswith("Tag:")]
    if not tags or any(len(t) != 3 for t in tags):
        return None
    return "-".join(".".join(dict.fromkeys(t[i] for t in tags)) for i in range(3))


def _write(zf: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    entry = zipfile.ZipInfo(name, date_time=DATE)
    entry.external_attr = (stat.S_IFREG | mode) << 16
    entry.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(entry, data)
