"""A wheel rebuilt from an installed distribution (grader/instructor/installed_wheel.py), and the Gradescope
bundle of a lesson installed from a wheel, with no source folder (grader/instructor/gradescope_bundle.py).

Fast: a distribution installed by hand as pip leaves one (package, .dist-info, RECORD). The bundle built
from real wheels and run in a simulated Gradescope container is in tests/test_wheel.py.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import sys
import zipfile
from importlib.metadata import Distribution
from pathlib import Path

import pytest

from grader.engine.lessons import load_lesson
from grader.instructor import gradescope_bundle
from grader.instructor.installed_wheel import installed_distribution, rebuild_wheel

sys.path.insert(0, str(Path(__file__).parent))
from test_lessons import install_toy  # noqa: E402  (the `arith` lesson: package + dist-info)

WHEEL = "Wheel-Version: 1.0\nGenerator: setuptools\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def finish_install(site: Path, info: str = "arith_lesson-1.0.dist-info", extra: tuple[str, ...] = ()) -> None:
    """What pip adds to an installed wheel: WHEEL, its own files, byte code, a console script outside
    site-packages, and the RECORD listing all of them (``extra``: more paths listed as installed)."""
    meta = site / info
    (meta / "WHEEL").write_text(WHEEL, encoding="utf-8")
    (meta / "INSTALLER").write_text("pip\n", encoding="utf-8")
    (meta / "REQUESTED").write_text("", encoding="utf-8")
    (meta / "direct_url.json").write_text('{"url": "file:///tmp/x.whl"}', encoding="utf-8")
    points = (meta / "entry_points.txt").read_text(encoding="utf-8")
    if "[console_scripts]" not in points:
        (meta / "entry_points.txt").write_text(points + "\n[console_scripts]\narith = arith_lesson:main\n",
                                               encoding="utf-8")
    cache = site / "arith_lesson" / "__pycache__"
    cache.mkdir(exist_ok=True)
    (cache / "__init__.cpython-311.pyc").write_bytes(b"\0compiled")
    rows = [[p.relative_to(site).as_posix(), _hash(p.read_bytes()), p.stat().st_size]
            for p in sorted(site.rglob("*")) if p.is_file() and p != meta / "RECORD"]
    rows += [["../../../bin/arith", "", ""], *[[e, "", ""] for e in extra], [f"{info}/RECORD", "", ""]]
    with (meta / "RECORD").open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerows(rows)


def test_the_rebuilt_wheel_is_the_installed_files_with_a_valid_record(tmp_path: Path) -> None:
    site = tmp_path / "site"
    package = install_toy(site)
    assert installed_distribution(package) is None  # no RECORD yet: not a wheel's installation
    finish_install(site)
    dist = installed_distribution(package)
    assert dist is not None and dist.metadata["Name"] == "arith-lesson"
    wheel = rebuild_wheel(dist)
    assert wheel.filename == "arith_lesson-1.0-py3-none-any.whl"
    zf = zipfile.ZipFile(io.BytesIO(wheel.data))
    names = zf.namelist()
    package_files = sorted(p.relative_to(site).as_posix() for p in package.rglob("*")
                           if p.is_file() and "__pycache__" not in p.parts)
    # the package as installed, then its metadata, RECORD last; nothing about this one installation
    info = "arith_lesson-1.0.dist-info"
    metadata = [f"{info}/{n}" for n in ("METADATA", "WHEEL", "entry_points.txt", "RECORD")]
    assert names == [*package_files, *metadata]
    assert "[grader.lessons]\narith = arith_lesson" in zf.read(f"{info}/entry_points.txt").decode()
    for name in package_files:
        assert zf.read(name) == (site / name).read_bytes()
    record = list(csv.reader(io.StringIO(zf.read(f"{info}/RECORD").decode())))
    assert [r[0] for r in record] == names
    for path, digest, size in record[:-1]:
        assert digest == _hash(zf.read(path)) and int(size) == len(zf.read(path))
    assert record[-1][1:] == ["", ""]
    assert rebuild_wheel(dist).data == wheel.data  # the same installed files, the same wheel


def test_what_cannot_be_rebuilt_faithfully_is_refused(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install_toy(site)
    finish_install(site, extra=("../../../share/arith/data.txt",))  # data files, outside site-packages
    with pytest.raises(ValueError, match="outside site-packages: ../../../share/arith/data.txt"):
        rebuild_wheel(Distribution.at(site / "arith_lesson-1.0.dist-info"))
    finish_install(site)
    (site / "arith_lesson" / "suites" / "pytest.ini").unlink()
    with pytest.raises(ValueError, match="pytest.ini is listed in its RECORD but unreadable"):
        rebuild_wheel(Distribution.at(site / "arith_lesson-1.0.dist-info"))


@pytest.fixture
def toy_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    install_toy(site)
    monkeypatch.syspath_prepend(str(site))
    yield site
    load_lesson.cache_clear()
    sys.modules.pop("arith_lesson", None)


def test_the_bundle_ships_a_lesson_installed_from_a_wheel_as_its_wheel(
    toy_site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No source folder: a wheel's installation ships as its wheel (wheels/), installed by setup.sh after
    the kit; neither (no RECORD) is one line and exit status 2."""
    out = tmp_path / "autograder.zip"
    argv = [str(out), "--lesson", "arith", "--public-only"]
    assert gradescope_bundle.main(argv) == 2
    err = capsys.readouterr().err
    assert "cannot ship lesson 'arith' (arith_lesson) at " in err
    assert "is installed neither from a source folder" in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()

    finish_install(toy_site)
    assert gradescope_bundle.main(argv) == 0
    with zipfile.ZipFile(out) as zf:
        names = zf.namelist()
        setup = zf.read("setup.sh").decode()
        shipped = zf.read("wheels/arith_lesson-1.0-py3-none-any.whl")
    assert shipped == rebuild_wheel(installed_distribution(toy_site / "arith_lesson")).data
    assert not any(n.startswith("lessons/") for n in names)
    assert "grader/engine/lessons.py" in names  # the kit from this checkout: its source, as before
    kit = setup.index("python3 -m pip install -e /autograder/source\n")
    assert kit < setup.index("python3 -m pip install /autograder/source/wheels/*.whl\n")
    assert setup.startswith(gradescope_bundle.SETUP_HEAD)
