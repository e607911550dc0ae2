"""`grade gradescope-bundle OUT.zip`: the kit as a Gradescope autograder.

The zip holds Gradescope's two entry points at its root and the kit beside
them (Gradescope unpacks it into ``/autograder/source``):

* ``setup.sh`` installs the kit (CPU PyTorch first, then ``pip install -e``) and a lesson of its own
  package shipped as its source folder (``lessons/NAME/``); what was installed here from a wheel (the
  kit, a lesson) ships as a wheel rebuilt from its installed files (``wheels/``, installed_wheel.py),
  which setup.sh installs;
* ``run_autograder`` runs ``python3 -m grader.instructor.gradescope_bundle run``, which
  keeps its own copy of ``submission_metadata.json`` (read before any student code
  runs), makes ``/autograder`` root's alone (the worker runs as another uid: the
  ``uid`` level, grader/sandbox/uid.py), copies ``/autograder/submission`` to a
  private folder, grades it with the hidden suite in a fresh ``grade`` process,
  kills whatever still runs as a worker's uid, and only then writes Gradescope's
  ``/autograder/results/results.json`` (converted by grader/report/gradescope.py).
  ``AUTOGRADER_ROOT`` replaces ``/autograder`` (for tests and local dry runs).

Whatever goes wrong, a results.json is written: a student sees a score of 0
and the reason rather than Gradescope's bare "autograder failed".

What it needs (measured with a memory cgroup and a CPU quota, see
tests/test_gradescope_container.py): one hidden grade peaks at about 780 MB
(the trusted grader and the worker, each with torch), so Gradescope's default
container (768 MB, 0.5 CPU) kills a worker now and then and a correct
submission loses points. The bundle therefore declares ``REQUIRES`` (1.5 GB,
1 CPU): `grade gradescope-bundle` prints it for the instructor, and
run_autograder reads the container's real limits and, when they are lower,
says so in the output and next to every failure that a lack of memory can
cause. The kit's own timeout stays under Gradescope's, so a slow submission
gets the kit's message, not Gradescope's bare kill.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from grader.engine.flags import add_lesson_argument, lesson_from_args
from grader.engine.lessons import select
from grader.engine.options import UsageProblem
from grader.instructor.installed_wheel import Wheel, installed_distribution, rebuild_wheel
from grader.instructor.term.errors import TermError
from grader.paths import KIT_ROOT, PACKAGE, write_atomic
from grader.sandbox import reap
from grader.sandbox.cgroup import container_limits
from grader.sandbox.launch import UID_BASE, UID_SPAN

CONFIG = "gk_gradescope.json"
REQUIRES = {"memory_mb": 1536, "cpus": 1.0}  # Gradescope: Configure Autograder > container specifications
GRADESCOPE_TIMEOUT = 600.0  # Gradescope's default autograder timeout (10 minutes)
TIMEOUT_MARGIN = 60.0  # copying, starting Python, converting: room left inside Gradescope's timeout
KIT_FILES = ("grader", "templates", "pyproject.toml", "README.md")
SKIP_PARTS = {"__pycache__", ".pytest_cache"}

# setup.sh, in parts: the kit's source (a checkout's bundle), the wheels (what was installed from wheels),
# the lessons' source folders. A bundle of sources only is SETUP_SH.
SETUP_HEAD = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
set -euo pipefail
cd /autograder/source
if ! command -v pip3 >/dev/null 2>&1; then
  apt-get update && apt-get install -y python3 python3-pip
fi
# The CPU build of PyTorch: a fraction of the CUDA build's size, and enough to grade.
python3 -m pip install --upgrade pip
python3 -m pip install torch --index-url https://download.pytorch.org/whl/cpu
"""
SETUP_KIT = """python3 -m pip install -e /autograder/source
"""
SETUP_WHEELS = """\
# The kit or the lesson as installed where the bundle was built (a wheel each, rebuilt from its
# installed files), with what they depend on (a lesson's on the kit: met by the kit above or beside it).
python3 -m pip install /autograder/source/wheels/*.whl
"""
SETUP_LESSONS = """\
# A lesson of its own package, shipped beside the kit (lessons/NAME/): installed so `grade --lesson` finds it.
for lesson in /autograder/source/lessons/*/; do
  if [ -f "$lesson/pyproject.toml" ]; then python3 -m pip install -e "$lesson"; fi
done
"""
SETUP_SH = SETUP_HEAD + SETUP_KIT + SETUP_LESSONS
WHEELS = "wheels"  # the zip's folder of wheels (setup.sh installs them)


def setup_script(kit_source: bool, wheels: bool) -> str:
    """setup.sh for a bundle that ships the kit's source (else its wheel) and, or not, wheels."""
    return SETUP_HEAD + (SETUP_KIT if kit_source else "") + (SETUP_WHEELS if wheels else "") + SETUP_LESSONS


RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission (the files are in /autograder/submission).
# AUTOGRADER_ROOT replaces /autograder for local dry runs; GK_PYTHON the interpreter.
set -uo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
cd "$ROOT/source" || exit 1
exec "${GK_PYTHON:-python3}" -m grader.instructor.gradescope_bundle run --root "$ROOT"
"""


# -- building the zip ----------------------------------------------------------------------------


def build_bundle(out: Path, *, hidden: bool = True, keyword: str | None = None, lang: str = "ko",
                 timeout: float = GRADESCOPE_TIMEOUT - TIMEOUT_MARGIN,
                 gradescope_timeout: float = GRADESCOPE_TIMEOUT, policy: Path | None = None,
                 lesson: str = "", lesson_source: Path | None = None,
                 lesson_wheel: Wheel | None = None, kit_wheel: Wheel | None = None,
                 isolation: str = "auto", lesson_folders: tuple[Path, ...] = ()) -> list[str]:
    """Write the autograder zip; returns the names it holds. ``lesson`` (its registered name) is what the
    container grades (`grade --lesson`; "": the one `grade` picks in the working folder); ``lesson_source``,
    the source folder of a lesson in its own package (its pyproject.toml, hidden suite and solutions
    included), ships as lessons/<folder>/ and setup.sh installs it; ``lesson_wheel``, the wheel of one
    installed from a wheel (lesson_wheel()), ships in wheels/ and setup.sh installs it; ``lesson_folders``,
    folders a source lesson reads beside its own (the course's top-level solutions/), ship at their place
    relative to the kit's root. The kit ships
    as its source from a checkout, else as the wheel of its installed distribution (``kit_wheel`` when
    already rebuilt; Unshippable when there is none)."""
    if timeout > gradescope_timeout - TIMEOUT_MARGIN:
        raise ValueError(f"--timeout {timeout:g} s leaves less than {TIMEOUT_MARGIN:g} s inside Gradescope's "
                         f"{gradescope_timeout:g} s: Gradescope would kill the run before the kit can report")
    config = {"lesson": lesson or select(None, Path.cwd()).name, "hidden": hidden, "keyword": keyword,
              "lang": lang, "timeout": timeout, "gradescope_timeout": gradescope_timeout,
              "requires": REQUIRES}
    if isolation != "auto":  # --isolation process: the instructor's choice to grade as root where uid fails
        config["isolation"] = isolation
    if policy is not None:  # the late policy, applied in the container (grader/instructor/term/gradescope.py)
        from grader.instructor.term.policy import read_policy

        read_policy(policy)  # TermError (a ValueError) when it is malformed
        config["policy_toml"] = policy.read_text(encoding="utf-8-sig")
    kit = None if kit_from_source() else kit_wheel or installed_kit_wheel()
    wheels = [w for w in (kit, lesson_wheel) if w is not None]
    names: list[str] = []
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        setup = setup_script(kit_source=kit is None, wheels=bool(wheels))
        for name, text in (("setup.sh", setup), ("run_autograder", RUN_AUTOGRADER)):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | 0o755) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, text)
            names.append(name)
        zf.writestr(CONFIG, json.dumps(config, indent=2) + "\n")
        names.append(CONFIG)
        items = [*(KIT_FILES if kit is None else ()), *(f.relative_to(KIT_ROOT) for f in lesson_folders)]
        for item in items:
            src = KIT_ROOT / item
            files = ([src] if src.is_file()
                     else sorted(p for p in src.rglob("*") if p.is_file()) if src.is_dir() else [])
            for f in files:
                rel = f.relative_to(KIT_ROOT)
                if SKIP_PARTS & set(rel.parts) or f.suffix == ".pyc":
                    continue
                zf.write(f, rel.as_posix())
                names.append(rel.as_posix())
        if lesson_source is not None:
            for f in sorted(p for p in lesson_source.rglob("*") if p.is_file()):
                rel = f.relative_to(lesson_source)
                # what installing and grading need: no caches, build metadata, its own tests or examples
                if (SKIP_PARTS & set(rel.parts) or f.suffix == ".pyc" or rel.parts[0] in ("tests", "examples")
                        or any(part.startswith(".") or part.endswith(".egg-info") for part in rel.parts)):
                    continue
                name = f"lessons/{lesson_source.name}/{rel.as_posix()}"
                zf.write(f, name)
                names.append(name)
        for wheel in wheels:  # stored as they are: a wheel is a zip already
            info = zipfile.ZipInfo(f"{WHEELS}/{wheel.filename}", date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            zf.writestr(info, wheel.data, compress_type=zipfile.ZIP_STORED)
            names.append(info.filename)
    os.replace(tmp, out)
    return names


class Unshippable(Exception):
    """The kit or a lesson is installed in a way the bundle cannot carry: neither its source folder nor
    a wheel's installation (a RECORD listing its files)."""


def lesson_source(module: str) -> Path | None:
    """The source folder of a lesson's distribution (its pyproject.toml beside the package), or None."""
    from grader.instructor.lesson_release import package_root

    try:
        folder = package_root(module).parent
    except ValueError:
        return None
    return folder if (folder / "pyproject.toml").is_file() else None


def kit_from_source() -> bool:
    """Whether the kit runs from its source (a checkout, an editable install): its pyproject.toml at its
    root, which setup.sh's ``pip install -e`` needs. An installed kit's root is site-packages."""
    return (KIT_ROOT / "pyproject.toml").is_file()


def installed_kit_wheel() -> Wheel:
    """The installed kit's wheel, rebuilt from its installed files (its hidden suite and solutions too)."""
    return _wheel_of(PACKAGE, "the kit (grader)")


def lesson_wheel(module: str, name: str | None = None) -> Wheel:
    """The wheel of a lesson installed from one (no source folder), rebuilt from its installed files;
    ``name``: its registered name, for the message."""
    from grader.instructor.lesson_release import package_root

    what = f"lesson {name!r} ({module})" if name else f"lesson {module}"
    try:
        package = package_root(module)
    except ValueError as exc:
        raise Unshippable(f"{what}: {exc}") from exc
    return _wheel_of(package, what)


def _wheel_of(package: Path, what: str) -> Wheel:
    dist = installed_distribution(package)
    if dist is None:
        raise Unshippable(f"{what} at {package} is installed neither from a source folder (a pyproject.toml "
                          "beside its package) nor from a wheel (a .dist-info whose RECORD lists it)")
    try:
        return rebuild_wheel(dist)
    except ValueError as exc:
        raise Unshippable(f"{what}: {exc}") from exc


# -- running on Gradescope -----------------------------------------------------------------------


def pick_path(folder: Path) -> Path:
    """The submission inside Gradescope's folder: the folder, or its one notebook or zip."""
    entries = [p for p in folder.iterdir() if not p.name.startswith(".")]
    if any(p.suffix == ".py" for p in entries) or (folder / "exercises").is_dir():
        return folder
    singles = [p for p in entries if p.is_file() and p.suffix in (".ipynb", ".zip")]
    if len(singles) == 1:
        return singles[0]
    subdirs = [p for p in entries if p.is_dir()]
    if len(entries) == 1 and subdirs:  # everything inside one uploaded folder
        return pick_path(subdirs[0])
    return folder


def short_of(requires: dict, have: dict) -> dict[str, tuple[float, float]]:
    """What this container lacks: name -> (have, needed)."""
    return {k: (have[k], float(v)) for k, v in requires.items() if k in have and have[k] < float(v) * 0.97}


def resource_note(lacking: dict[str, tuple[float, float]], lang: str) -> str:
    """One paragraph for the output: this container is smaller than the kit needs."""
    have = ", ".join(f"{k.split('_')[0]} {h:g}{' MB' if k == 'memory_mb' else ''}"
                     for k, (h, _) in lacking.items())
    need = ", ".join(f"{k.split('_')[0]} {n:g}{' MB' if k == 'memory_mb' else ''}"
                     for k, (_, n) in lacking.items())
    en = (f"Note: this autograder container has {have}; the kit needs {need}. A test that fails because "
          "\"the process running your code died\" may be the container's fault, not your code's: the "
          "instructor should raise the container's resources and regrade.")
    ko = (f"참고: 이 자동 채점 컨테이너의 자원은 {have}이고, 키트에는 {need}가 필요합니다. \"코드를 실행하던 "
          "프로세스가 죽었습니다\"로 실패한 테스트는 코드가 아니라 컨테이너 탓일 수 있습니다. 강사가 "
          "컨테이너 자원을 늘리고 다시 채점해야 합니다.")
    return ko if lang == "ko" else en


DIED = ("process running your code died", "코드를 실행하던 프로세스")


def flag_resource_failures(gs: dict, note: str) -> None:
    """Put the note first in the output and after each failure a lack of memory can cause."""
    gs["output"] = note + "\n\n" + str(gs.get("output") or "")
    for t in gs.get("tests", []):
        if t.get("status") == "failed" and any(d in str(t.get("output", "")) for d in DIED):
            t["output"] = str(t["output"]) + "\n\n" + note


def student_path(target: Path, work: Path) -> str:
    """The path the student would type: their exercises folder, or the file they uploaded."""
    if target == work or target.is_dir():
        return "exercises"
    return target.name


def failure_results(message_en: str, message_ko: str, lang: str, started: float) -> dict:
    text = f"{message_ko}\n\n{message_en}" if lang == "ko" else f"{message_en}\n\n{message_ko}"
    return {"score": 0.0, "execution_time": int(time.monotonic() - started), "output": text,
            "output_format": "text", "visibility": "visible", "stdout_visibility": "hidden", "tests": []}


def to_gradescope(results: dict, lang: str, path: str) -> dict:
    """Our results.json in Gradescope's format (the reports' converter; a minimal one without it)."""
    try:
        from grader.report.gradescope import build_gradescope
        from grader.report.render import render_summary_md
    except ImportError:
        return _minimal_gradescope(results)
    try:
        summary = render_summary_md(results, lang, path)
    except Exception:  # the summary is a nicety; the scores must still reach Gradescope
        summary = ""
    return build_gradescope(results, lang, path, summary)


def _minimal_gradescope(results: dict) -> dict:
    tests = [{"name": t["id"], "score": float(t["score"]), "max_score": float(t["max_score"]),
              "status": "passed" if t["status"] == "passed" else "failed", "output": t.get("message", ""),
              "visibility": t.get("visibility", "visible")} for t in results.get("tests", [])]
    return {"score": float(results.get("score", 0.0)), "execution_time": int(results.get("duration", 0)),
            "output": results.get("error", ""), "visibility": "visible", "tests": tests}


def run_autograder(root: Path) -> int:
    """Grade ``root``/submission, write ``root``/results/results.json. Always writes it."""
    started = time.monotonic()
    source = root / "source"
    results_dir = root / "results"
    results_dir.mkdir(parents=True, exist_ok=True)
    try:
        config = json.loads((source / CONFIG).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = {"hidden": True, "keyword": None, "lang": "ko",
                  "timeout": GRADESCOPE_TIMEOUT - TIMEOUT_MARGIN}
    lang = config.get("lang", "ko")
    # The platform's word, read before any student code runs: the late policy uses this copy only.
    platform_word = read_metadata(root)
    if os.geteuid() == 0:  # Gradescope runs this as root: the worker's uid must not reach /autograder
        seal_autograder(root)
    have = container_limits()
    lacking = short_of(config.get("requires") or REQUIRES, have)
    print(f"grade (gradescope): container {have}, needs {config.get('requires') or REQUIRES}"
          + (f"; SHORT OF {sorted(lacking)}" if lacking else ""), flush=True)
    with tempfile.TemporaryDirectory(prefix="gk-gradescope-") as tmp:
        metadata = Path(tmp) / "submission_metadata.json"  # 0700 folder: the grader's alone
        metadata.write_bytes(platform_word)
        work = Path(tmp) / "submission"
        out = Path(tmp) / "out"
        try:
            # A private copy: links stay links (the reader refuses them), nothing outside is followed.
            shutil.copytree(root / "submission", work, symlinks=True)
        except (OSError, shutil.Error) as exc:
            gs = failure_results(f"Could not copy your submission: {exc}",
                                 f"제출물을 복사하지 못했습니다: {exc}", lang, started)
            return _write(results_dir, gs, 0)
        target = pick_path(work)
        argv = [sys.executable, "-m", "grader.cli", str(target), "--out", str(out), "-q", "--lang", lang]
        if config.get("lesson"):  # bundles from before lessons were named grade the kit's default
            argv += ["--lesson", str(config["lesson"])]
        if config.get("hidden", True):
            argv.append("--hidden")
        if config.get("keyword"):
            argv += ["-k", str(config["keyword"])]
        if config.get("isolation"):
            argv += ["--isolation", str(config["isolation"])]
        try:
            proc = subprocess.run(argv, cwd=source, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=float(config.get("timeout", GRADESCOPE_TIMEOUT - TIMEOUT_MARGIN)))
            log = (proc.stdout + proc.stderr)[-3000:]
            code = proc.returncode
        except subprocess.TimeoutExpired:
            reap_workers()
            t = config.get("timeout")
            gs = failure_results(
                f"Grading did not finish within {t} s and was stopped. Does your code loop forever, or train "
                f"far longer than asked?",
                f"채점이 {t}초 안에 끝나지 않아 중단했습니다. 무한 루프이거나 요청보다 훨씬 "
                f"오래 학습하는 코드가 아닌지 확인하세요.", lang, started)
            return _write(results_dir, gs, 0)
        reap_workers()  # nothing the student started may outlive the grade, or see results.json written
        try:
            results = json.loads((out / "results.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            print(log, file=sys.stderr)
            refused = [x for x in proc.stderr.splitlines() if x.startswith("grade: uid isolation is not")]
            if refused:  # never root by surprise: the one line that says why and how to fix it
                gs = failure_results(
                    f"The autograder is not set up to grade safely; please tell the instructor. "
                    f"{refused[-1]}",
                    f"자동 채점기가 안전하게 채점하도록 설정되지 않았습니다. 강사에게 알려 주세요. "
                    f"{refused[-1]}", lang, started)
                return _write(results_dir, gs, 0)
            gs = failure_results(
                f"The grader failed before scoring (exit status {code}); please tell the instructor. "
                f"{log[-500:]}",
                f"채점기가 점수를 매기기 전에 실패했습니다(종료 코드 {code}). 강사에게 알려 주세요.",
                lang, started)
            if lacking:  # killed for memory, most likely: say so first
                flag_resource_failures(gs, resource_note(lacking, lang))
            return _write(results_dir, gs, 0)
        results = with_late_policy(results, config, metadata)
        gs = to_gradescope(results, lang, student_path(target, work))
        if results.get("final"):  # Gradescope shows the top-level score: the final total
            final = results["final"]
            gs["score"] = float(final["total"])
            lines = [f"{s['en']} / {s['ko']}" for s in final["steps"]]
            head = f"Final total / 최종 점수: {final['total']:g} / {final['max']:g}"
            gs["output"] = "\n".join([head, *lines, "", str(gs.get("output") or "")])
        level = isolation_line(str(results.get("isolation", "")), lang)
        gs["output"] = level + "\n" + str(gs.get("output") or "")
        if lacking:
            flag_resource_failures(gs, resource_note(lacking, lang))
        if results.get("error"):
            gs["output"] = failure_results(f"Your submission could not be read: {results['error']}",
                                           f"제출물을 읽을 수 없습니다: {results['error']}",
                                           lang, started)["output"]
        gs["execution_time"] = int(time.monotonic() - started)
        return _write(results_dir, gs, 0)


def read_metadata(root: Path) -> bytes:
    """Gradescope's submission_metadata.json as it is before any student code runs (empty if absent)."""
    try:
        return (root / "submission_metadata.json").read_bytes()[:1_000_000]
    except OSError:
        return b""


def seal_autograder(root: Path) -> None:
    """/autograder for root alone: the kit, its hidden suite, the metadata and the results (a worker
    runs as another uid, grader/sandbox/uid.py, and can then neither read nor write any of it)."""
    for path in (root, root / "source", root / "results", root / "submission_metadata.json"):
        try:
            os.chmod(path, stat.S_IMODE(os.stat(path).st_mode) & ~stat.S_IRWXO)
        except OSError:
            pass


REAP_TIMEOUT_S = 30.0  # at most; a clean container has nothing to reap and returns at once


def reap_workers() -> None:
    """Kill every process still running as a worker's uid (the kit's range) in this container: its mount
    namespace, which a uid-level worker cannot leave. A machine that runs other graders beside it (the
    kit's own tests) keeps their workers, each in a mount namespace of its own."""
    here = _mount_ns("self")
    # A killed process still counts until its exit is done, which a loaded machine can stretch past
    # seconds (a torch worker unmapping gigabytes): wait for it, or results.json would be written beside it.
    reap.kill_until_gone(lambda: {p for p in reap.all_pids()
                                  if UID_BASE <= (reap.uid_of(p) or -1) < UID_BASE + UID_SPAN
                                  and _mount_ns(str(p)) == here}, timeout=REAP_TIMEOUT_S)


def _mount_ns(pid: str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/mnt")
    except OSError:
        return None


# What each level means for the student's code, in Gradescope's output beside its name.
LEVEL_MEANS = {
    "namespaces": ("its own view of the files, no network, a fresh unprivileged user",
                   "자기만의 파일 보기, 네트워크 없음, 권한 없는 새 사용자"),
    "uid": ("a fresh unprivileged user; the kit and the hidden tests sealed from it by permissions",
            "권한 없는 새 사용자로 실행, 키트와 숨은 테스트는 권한으로 막힘"),
    "process": ("as the grader's own user (root here): it could read the hidden tests",
                "채점기와 같은 사용자(여기서는 root)로 실행: 숨은 테스트를 읽을 수 있었음"),
}


def isolation_line(level: str, lang: str) -> str:
    """The sandbox level in words, and what it means, first in Gradescope's output."""
    means = LEVEL_MEANS.get(level)
    en = f"Isolation: {level or 'unknown'}" + (f" ({means[0]})" if means else "")
    ko = f"격리 수준: {level or '알 수 없음'}" + (f" ({means[1]})" if means else "")
    return f"{ko} / {en}" if lang == "ko" else f"{en} / {ko}"


def with_late_policy(results: dict, config: dict, metadata: Path) -> dict:
    """``results`` with its ``final`` total under the bundled late policy (unchanged without one);
    ``metadata``: the grader's copy of submission_metadata.json, or the folder that holds one."""
    if metadata.is_dir():
        metadata = metadata / "submission_metadata.json"
    if not config.get("policy_toml") or results.get("error"):
        return results
    from grader.instructor.term.errors import TermError
    from grader.instructor.term.gradescope import apply_in_gradescope
    from grader.instructor.term.policy import parse_policy, tomllib

    try:
        policy = parse_policy(tomllib.loads(config["policy_toml"]))
    except (TermError, tomllib.TOMLDecodeError) as exc:
        print(f"grade (gradescope): the bundled policy is unusable, no late policy applied: {exc}",
              file=sys.stderr)
        return results
    return apply_in_gradescope(results, policy, metadata)


def _write(results_dir: Path, data: dict, code: int) -> int:
    write_atomic(results_dir / "results.json", json.dumps(data, ensure_ascii=False, indent=2))
    return code


# -- command line --------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    if argv[:1] == ["run"]:
        p = argparse.ArgumentParser(prog="grader.instructor.gradescope_bundle run")
        p.add_argument("--root", type=Path, default=Path(os.environ.get("AUTOGRADER_ROOT", "/autograder")))
        return run_autograder(p.parse_args(argv[1:]).root)
    p = argparse.ArgumentParser(prog="grade gradescope-bundle", description=(
        "Build a Gradescope autograder zip (setup.sh, run_autograder, the kit with its hidden tests). / "
        "Gradescope 자동 채점기 zip을 만듭니다."))
    p.add_argument("out", type=Path, help="the zip to write, e.g. autograder.zip")
    p.add_argument("--public-only", action="store_true", help="grade with the public suite only")
    p.add_argument("-k", dest="keyword", default=None, help="only tests matching this pytest -k expression")
    p.add_argument("--lang", choices=("ko", "en"), default="ko", help="language of the feedback (default ko)")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds the kit grades one submission (default: Gradescope's timeout minus 60)")
    p.add_argument("--gradescope-timeout", type=float, default=GRADESCOPE_TIMEOUT,
                   help="the timeout set in Gradescope's autograder settings (default 600, its default)")
    p.add_argument("--policy", type=Path, default=None,
                   help="late policy (policy.toml) applied in the container from submission_metadata.json")
    p.add_argument("--isolation", choices=("auto", "process"), default="auto",
                   help="process: grade even where the container's Python cannot run as another uid, the "
                        "student's code then running as root (default auto: refuse there, saying why)")
    add_lesson_argument(p)
    args = p.parse_args(argv)
    if args.timeout is None:
        args.timeout = args.gradescope_timeout - TIMEOUT_MARGIN
    try:
        lesson = lesson_from_args(args)
    except UsageProblem as exc:
        print(f"grade gradescope-bundle: {exc}", file=sys.stderr)
        return 2
    source = wheel = kit = None
    try:
        # The zip carries the lesson as setup.sh installs it: its source folder (its pyproject.toml beside
        # its package), else the wheel it was installed from, rebuilt from its installed files.
        source = lesson_source(lesson.module)
        wheel = lesson_wheel(lesson.module, lesson.name) if source is None else None
        if not kit_from_source():  # the kit installed from a wheel ships as that wheel too
            kit = installed_kit_wheel()
    except Unshippable as exc:
        print(f"grade gradescope-bundle: cannot ship {exc}; install it from its source folder (`pip install "
              "-e`) or from its wheel / 번들에 담을 수 없습니다: 소스 폴더에서(`pip install -e`) 또는 "
              "wheel로 설치하세요", file=sys.stderr)
        return 2
    declared = lesson.load()
    # A source lesson's folders outside its own (the course keeps solutions/ at the top level) travel too.
    outside = tuple(
        Path(f).resolve() for f in (declared.solutions,)
        if source is not None and f is not None and not Path(f).resolve().is_relative_to(source.resolve())
        and Path(f).resolve().is_relative_to(KIT_ROOT.resolve())
    )
    hidden_dir = (declared.suites or Path(".")) / "hidden"
    if not args.public_only and not any(hidden_dir.glob("test_*.py")):
        print("grade gradescope-bundle: this copy has no hidden suite; use --public-only or the instructor "
              "copy / 이 키트에는 숨은 테스트가 없습니다", file=sys.stderr)
        return 2
    try:
        names = build_bundle(args.out, hidden=not args.public_only, keyword=args.keyword, lang=args.lang,
                             timeout=args.timeout, gradescope_timeout=args.gradescope_timeout,
                             policy=args.policy, lesson=lesson.name, lesson_source=source,
                             lesson_wheel=wheel, kit_wheel=kit, isolation=args.isolation,
                             lesson_folders=outside)
    except TermError as exc:  # a malformed --policy
        print(f"grade gradescope-bundle: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"grade gradescope-bundle: {exc} / 키트의 시간 제한이 Gradescope의 시간 제한 안에 들어가야 "
              "합니다", file=sys.stderr)
        return 2
    print(f"{args.out}: Gradescope autograder with {len(names)} files (setup.sh, run_autograder, the kit); "
          f"upload it under Configure Autograder / Gradescope의 Configure Autograder에 올리세요")
    print(f"  Set the container to at least {REQUIRES['cpus']:g} CPU and {REQUIRES['memory_mb'] / 1024:g} GB "
          f"of memory (Gradescope's default, 0.5 CPU / 768 MB, is too small for torch in two processes) and "
          f"the autograder timeout to {args.gradescope_timeout:g} s; the kit stops itself after "
          f"{args.timeout:g} s. / 컨테이너를 CPU {REQUIRES['cpus']:g}개, 메모리 "
          f"{REQUIRES['memory_mb'] / 1024:g} GB 이상으로, 시간 제한을 {args.gradescope_timeout:g}초로 "
          "설정하세요.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
