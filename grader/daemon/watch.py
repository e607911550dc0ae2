"""`grade --watch`: grade again each time a file of the submission is saved (mtimes polled), through
the user's warm grader, and print a short view: the score, what changed since the last run, and the
first three failed checks, each cut to the terminal's width."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from grader.core.lang import particle
from grader.daemon.place import python_module

POLL_SECONDS = 0.5
CHANGE_MARKS = ("since the last run", "지난 실행")


def snapshot(target: Path, skip: Path | None = None) -> dict[str, int]:
    """mtime and size of every file of the submission (a folder's, or the one file), leaving out what a
    grade writes there itself: bytecode, and ``skip`` (the reports folder, when it lies inside)."""
    skipped = skip.resolve() if skip is not None else None
    files = [target] if target.is_file() else [
        p for p in target.rglob("*") if p.is_file() and "__pycache__" not in p.parts
        and not (skipped is not None and p.resolve().is_relative_to(skipped))]
    out = {}
    for path in files:
        try:
            info = path.stat()
        except OSError:
            continue
        out[str(path)] = info.st_mtime_ns ^ info.st_size
    return out


def _fit(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


# The report's view of one grade (report/terminal.py's watch_lines, passed in by the cli: the daemon
# sits below the report layer): results -> lines.
Describe = Callable[[dict, str], list[str]]
WATCHING = ("grade --watch: grading {target} now and again on every save; Ctrl+C stops",  # (English, Korean)
            "grade --watch: {target_ko} 지금 채점하고, 파일을 저장할 때마다 다시 채점합니다. 멈추려면 Ctrl+C")


def summary(output: str, results_file: Path, lang: str, width: int,
            describe: Describe | None = None) -> list[str]:
    """The lines shown after one grade: score, the change since the last run, then ``describe``'s lines
    (the causes to fix first, as the summary tells them), else the first three failed checks."""
    try:
        results = json.loads(results_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [_fit(line, width) for line in output.strip().splitlines()[-3:]]
    k = "ko" if lang == "ko" else "en"
    lines = [f"{results.get('score', 0):g} / {results.get('max_score', 0):g}"]
    lines += [line.strip() for line in output.splitlines() if any(m in line for m in CHANGE_MARKS)][:1]
    if describe is not None:
        return [_fit(line, width) for line in [*lines, *describe(results, lang)]]
    failed = [t for t in results.get("tests", []) if t.get("status") != "passed"]
    for test in failed[:3]:
        message = (test.get("messages") or {}).get(k) or test.get("message") or ""
        lines.append(f"✗ {test.get('task', '')}: {message}")
    if len(failed) > 3:
        lines.append(f"… +{len(failed) - 3}")
    return [_fit(line, width) for line in lines]


def watch(target: Path, results_file: Path, argv: list[str], lang: str,
          poll: float = POLL_SECONDS, rounds: int | None = None,
          echo: Callable[[str], None] = print, describe: Describe | None = None) -> int:
    """Grade ``argv`` (`grade` without --watch) now and after each save under ``target``, until Ctrl-C
    (or ``rounds`` grades, for tests)."""
    env = dict(os.environ)
    env.setdefault("GK_DAEMON", "1")  # the warm grader serves each round, though its output is captured
    command = [*python_module("grader.cli"), *argv]  # the folder's own code never on its path
    seen: dict[str, int] | None = None
    done = 0
    shown = f"`{target.as_posix()}`"
    echo(WATCHING[lang == "ko"].format(target=shown, target_ko=particle(shown, "을")))
    try:
        while rounds is None or done < rounds:
            # Taken before the grade, so a save made while it runs (or as its lines are printed)
            # starts the next round; the grade itself writes nothing the snapshot counts.
            now = snapshot(target, skip=results_file.parent)
            if now != seen:
                seen = now
                run = subprocess.run(command, env=env, capture_output=True, text=True)
                width = shutil.get_terminal_size().columns
                head = f"── {time.strftime('%H:%M:%S')} "
                echo(head + "─" * max(0, width - len(head)))
                for line in summary(run.stdout + run.stderr, results_file, lang, width, describe):
                    echo(line)
                sys.stdout.flush()  # a piped watch shows each round as it ends
                done += 1
            else:
                time.sleep(poll)
    except KeyboardInterrupt:
        return 130
    return 0
